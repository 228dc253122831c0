// Contract/search, Contract/available and Contract/searchById of the current family. `symbolId`
// takes the request's profile's form (http/shared/profile.ts). Under the live profile the contract
// ID and name carry the front month on the replay clock's date (src/service/replay-clock.ts: the
// user's live session acted on last, else the wall clock), so a March 2025 replay names `H25`, and
// the live profile lists the whole catalogue (src/domain/instruments.json), the spec's its seven.

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
  const viewOf = async (profile: ApiProfile, userId: number): Promise<ContractView> => {
    const style = symbolIdStyleOf(s.config, profile);
    return profile === 'live' ? { style, atMs: (await s.replayClock.ofUser(userId)).nowMs, listedIn: profile } : { style };
  };

  for (const search of [ep.contractSearch, ep.contractAvailable]) {
    route(app, s, search, async ({ body, profile, principal }) => {
      const view = await viewOf(profile, principal.user.id);
      return search.ok({ contracts: s.contracts.search(body.searchText ?? null, view).map(presentContract) });
    });
  }

  route(app, s, ep.contractSearchById, async ({ body, profile, principal }) => {
    const contract = s.contracts.byId(body.contractId, await viewOf(profile, principal.user.id));
    return contract ? ep.contractSearchById.ok({ contract: presentContract(contract) }) : mapError(codes.contractById, { kind: 'contract_not_found' });
  });
}
