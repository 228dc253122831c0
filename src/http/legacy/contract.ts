// The earlier family: Contract/search, Contract/searchById over its own instrument table
// (src/domain/legacy-instruments.ts: CL on the oil history, EURUSD on a 0.00005 tick).
// The front month is read at call time, as in the current family.

import { legacyContractFor, legacyInstrumentForId, searchLegacyContracts } from '../../domain/contract-id.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentContract } from './present.ts';

export function registerContract(app: App, s: Services): void {
  authedPost(app, s, '/Contract/search', ({ body }) => {
    const text = body.searchText;
    if (text !== undefined && text !== null && typeof text !== 'string') {
      return mapError(codes.contractSearch, { kind: 'search_text_not_string' });
    }
    return success({ contracts: searchLegacyContracts(text ?? null, s.clock.nowMs()).map(presentContract) });
  });

  // A one-element `contracts` array (spec); `id` echoes the ID sent, as in the current family.
  authedPost(app, s, '/Contract/searchById', ({ body }) => {
    const inst = legacyInstrumentForId(body.contractId);
    if (!inst) return mapError(codes.contractSearchById, { kind: 'contract_not_found' });
    const contract = { ...legacyContractFor(inst, s.clock.nowMs()), id: String(body.contractId) };
    return success({ contracts: [presentContract(contract)] });
  });
}
