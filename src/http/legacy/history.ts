// The earlier family: History/retrieveBars over the same HistoryService, with this family's contract
// IDs, `barsBack` (count back from endTime), endTime defaulting to the user's replay time, and a
// bars-per-request cap by instrument and timeframe.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { limits } from '../../config.ts';
import { barsResponseOffLoop } from '../shared/bars-worker.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { LEGACY_POLICY } from './policy.ts';
import * as ep from './schemas.ts';
import * as codes from './trading-codes.ts';

export function registerHistory<P extends string>(app: Elysia<P>, s: Services): void {
  // barsBack's own check is the route's (its schema, first); combined with startTime it is refused
  // here, before the service looks at the contract.
  route(app, s, ep.retrieveBars, async ({ body, principal, request }) => {
    const back = body.barsBack ?? null;
    if (back !== null && body.startTime !== undefined && body.startTime !== null) {
      return mapError<codes.LegacyHistoryError>(codes.retrieveBars, { kind: 'bars_back_with_start' });
    }
    const r = await s.history.retrieveSliced(
      principal.user.id,
      {
        contractId: body.contractId,
        unit: body.unit,
        unitNumber: body.unitNumber,
        startTime: body.startTime,
        endTime: body.endTime,
        limit: null,
        barsBack: back,
        defaultEndS: replayNowS(s, principal.user.id),
      },
      LEGACY_POLICY.history,
    );
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponseOffLoop(request, r.value.instrument, r.value.bars, limits.historySliceMs);
  });
}

/**
 * The default endTime: the replay time of the user's live session (the earliest when several run,
 * whichever family started them), so a chart never shows a bar after the one being replayed;
 * null without a live session (then the end of the data).
 */
function replayNowS(s: Services, userId: number): number | null {
  let nowS: number | null = null;
  for (const live of s.replay.liveSessionsOf(userId)) if (nowS === null || live.nowS < nowS) nowS = live.nowS;
  return nowS;
}

