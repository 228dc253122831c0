// The live profile's reading of a client's time bounds (src/domain/client-window.ts) on the request's
// replay clock (src/service/replay-clock.ts): ISO texts in, ISO texts out, for the services, which
// parse and check them as under the spec. A bound that is not an ISO time passes unchanged, so the
// service refuses it with its own row.

import { limits } from '../../config.ts';
import { readClientWindow } from '../../domain/client-window.ts';
import { isoFromEpochMs, parseIsoMs } from '../../lib/iso-time.ts';
import type { ClockReading } from '../../service/replay-clock.ts';
import type { Services } from '../../service/services.ts';
import type { TimeBound } from '../../service/trading.ts';

export interface WireBounds {
  readonly start: TimeBound;
  readonly end: TimeBound;
}

/** `start` and `end` (absent, null, ISO or not) moved onto the clock's simulated time. */
export function replayBounds(start: TimeBound, end: TimeBound, clock: ClockReading): WireBounds {
  const startMs = start === undefined || start === null ? null : parseIsoMs(start);
  const endMs = end === undefined || end === null ? null : parseIsoMs(end);
  if (startMs === undefined || endMs === undefined) return { start, end };
  const w = readClientWindow({ startMs, endMs }, { sessionMs: clock.nowMs, wallMs: clock.wallMs, nowToleranceMs: limits.liveNowToleranceMs });
  return { start: w.startMs === null ? start : isoFromEpochMs(w.startMs), end: w.endMs === null ? end : isoFromEpochMs(w.endMs) };
}

/** Order/search's and Trade/search's bounds under the live profile: on the clock of the account searched. */
export async function accountBounds(s: Services, userId: number, accountId: number, start: TimeBound, end: TimeBound): Promise<WireBounds> {
  return replayBounds(start, end, await s.replayClock.ofAccount(userId, accountId));
}
