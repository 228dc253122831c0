// History/retrieveBars of the current family. `Accept: application/x-msgpack` gets the same
// envelope in msgpack. A long scan runs in slices (src/service/history.ts), and a long answer is encoded
// off the event loop by a worker (shared/bars-worker.ts barsResponseOffLoop; in slices, shared/bars.ts
// barsResponseSliced, when the worker cannot), so the handler is async.
// Under the live profile (docs/gateway-profile.md) the bars end at the replay clock of the user's
// session acted on last (src/service/replay-clock.ts): the client's window is read on that clock
// (replay-window.ts), the default end is the session's time, `limit` keeps the bars nearest the end,
// `includePartialBar` is honoured, weeks and months are served, the gateway's rate applies, and the
// bars come newest first.

import type { Elysia } from 'elysia';
import { reversedBars } from '../../data/bar-columns.ts';
import type { Services } from '../../service/services.ts';
import { limits } from '../../config.ts';
import { barsResponseOffLoop } from '../shared/bars-worker.ts';
import { mapError } from '../shared/code-table.ts';
import { routeByProfile } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as live from './live-schemas.ts';
import { SIM_LIVE_HISTORY_POLICY, SIM_POLICY } from './policy.ts';
import { replayBounds } from './replay-window.ts';
import * as ep from './schemas.ts';

export function registerHistory<P extends string>(app: Elysia<P>, s: Services): void {
  routeByProfile(app, s, [ep.retrieveBars, async ({ body, principal, request }) => {
    const r = await s.history.retrieveSliced(principal.user.id, {
      contractId: body.contractId,
      unit: body.unit,
      unitNumber: body.unitNumber,
      startTime: body.startTime,
      endTime: body.endTime,
      limit: body.limit,
    }, SIM_POLICY.history);
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponseOffLoop(request, r.value.instrument, r.value.bars, limits.historySliceMs);
  }], [live.retrieveBars, async ({ body, principal, request }) => {
    const clock = await s.replayClock.ofUser(principal.user.id);
    const bounds = replayBounds(body.startTime, body.endTime, clock);
    const r = await s.history.retrieveSliced(principal.user.id, {
      contractId: body.contractId,
      unit: body.unit,
      unitNumber: body.unitNumber,
      startTime: bounds.start,
      endTime: bounds.end,
      limit: body.limit,
      defaultEndS: Math.floor(clock.nowMs / 1000),
      fromEnd: true,
      wholeBarsOnly: body.includePartialBar !== true,
    }, SIM_LIVE_HISTORY_POLICY);
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponseOffLoop(request, r.value.instrument, reversedBars(r.value.bars), limits.historySliceMs);
  }]);
}
