// A replay session's statistics for the console: the earlier family's Replay/end `results`
// (`ReplayService.results`, from the session's stored fills through src/engine/results.ts), for one
// of the user's accounts, live or ended, so the desk shows them when a session ends and keeps them
// readable afterwards. Endpoint declared in schemas.ts.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { presentStats } from '../shared/present-common.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

export function registerReplayResults<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.replayResults, async ({ params, user }) => {
    const id = Number(params.accountId);
    const account = Number.isSafeInteger(id) ? await s.accounts.owned(user.id, id) : null;
    if (!account) return mapError(codes.replayResults, { kind: 'account_not_found' });
    const results = presentStats(await s.replay.results(account.id));
    return ep.replayResults.ok({ accountId: account.id, name: account.name, canTrade: account.active, results });
  });
}
