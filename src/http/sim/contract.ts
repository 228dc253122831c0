// Contract/search, Contract/available and Contract/searchById of the current family. `symbolId`
// takes the request's profile's form (http/shared/profile.ts).

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import type { ContractView } from '../../service/contracts.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { symbolIdStyleOf } from '../shared/profile.ts';
import * as codes from './codes.ts';
import { presentContract } from './present.ts';
import * as ep from './schemas.ts';

export function registerContract<P extends string>(app: Elysia<P>, s: Services): void {
  const viewOf = (profile: ApiProfile): ContractView => ({ style: symbolIdStyleOf(s.config, profile) });

  for (const search of [ep.contractSearch, ep.contractAvailable]) {
    route(app, s, search, ({ body, profile }) => search.ok({ contracts: s.contracts.search(body.searchText ?? null, viewOf(profile)).map(presentContract) }));
  }

  route(app, s, ep.contractSearchById, ({ body, profile }) => {
    const contract = s.contracts.byId(body.contractId, viewOf(profile));
    return contract ? ep.contractSearchById.ok({ contract: presentContract(contract) }) : mapError(codes.contractById, { kind: 'contract_not_found' });
  });
}
