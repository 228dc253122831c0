// Contract/search, Contract/available and Contract/searchById of the current family.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { presentContract } from './present.ts';
import * as ep from './schemas.ts';

export function registerContract<P extends string>(app: Elysia<P>, s: Services): void {
  for (const search of [ep.contractSearch, ep.contractAvailable]) {
    route(app, s, search, ({ body }) => search.ok({ contracts: s.contracts.search(body.searchText ?? null).map(presentContract) }));
  }

  route(app, s, ep.contractSearchById, ({ body }) => {
    const contract = s.contracts.byId(body.contractId);
    return contract ? ep.contractSearchById.ok({ contract: presentContract(contract) }) : mapError(codes.contractById, { kind: 'contract_not_found' });
  });
}
