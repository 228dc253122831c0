// The earlier family: Contract/search, Contract/searchById over its own instrument table
// (src/domain/legacy-instruments.ts: CL on the oil history, EURUSD on a 0.00005 tick).
// The front month is read at call time, as in the current family.

import type { Elysia } from 'elysia';
import { legacyContractFor, legacyInstrumentForId, searchLegacyContracts } from '../../domain/contract-id.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { presentContract } from './present.ts';
import * as ep from './schemas.ts';

export function registerContract<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.contractSearch, ({ body }) =>
    ep.contractSearch.ok({ contracts: searchLegacyContracts(body.searchText ?? null, s.clock.nowMs()).map(presentContract) }),
  );

  // A one-element `contracts` array (spec); `id` echoes the ID sent, as in the current family.
  route(app, s, ep.contractSearchById, ({ body }) => {
    const inst = legacyInstrumentForId(body.contractId);
    if (!inst) return mapError(codes.contractSearchById, { kind: 'contract_not_found' });
    const contract = { ...legacyContractFor(inst, s.clock.nowMs()), id: body.contractId };
    return ep.contractSearchById.ok({ contracts: [presentContract(contract)] });
  });
}
