// Contract/search, Contract/available and Contract/searchById of the current family.

import type { Services } from '../../service/services.ts';
import { failure, success } from '../shared/envelope.ts';
import { authedPost, type App, type AuthedCall } from '../shared/route.ts';
import { presentContract } from './present.ts';

export function registerContract(app: App, s: Services): void {
  const search = ({ body }: AuthedCall) => {
    const text = body.searchText;
    if (text !== undefined && text !== null && typeof text !== 'string') {
      return failure(1, 'searchText must be a string or null');
    }
    return success({ contracts: s.contracts.search(text ?? null).map(presentContract) });
  };
  authedPost(app, s, '/Contract/search', search);
  authedPost(app, s, '/Contract/available', search);

  authedPost(app, s, '/Contract/searchById', ({ body }) => {
    const contract = s.contracts.byId(body.contractId);
    return contract ? success({ contract: presentContract(contract) }) : failure(1, 'Contract not found');
  });
}
