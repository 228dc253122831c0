// The earlier family: History/retrieveBars over the same HistoryService, with this family's contract
// IDs, `barsBack` (count back from endTime), endTime defaulting to the user's replay time, and a
// bars-per-request cap by instrument and timeframe.

import type { Elysia } from 'elysia';
import { legacyInstrumentForId } from '../../domain/contract-id.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { legacyInstrumentOfBase } from '../../domain/legacy-instruments.ts';
import { DAY_S, HOUR_S, MINUTE_S, type Timeframe } from '../../domain/timeframe.ts';
import type { HistoryPolicy } from '../../service/history.ts';
import type { Services } from '../../service/services.ts';
import { barsResponse } from '../shared/bars.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as ep from './schemas.ts';
import * as codes from './trading-codes.ts';

type WidthClass = 'second' | 'minute' | 'hour' | 'day';

/**
 * Most bars per request (spec: "depends on instrument and timeframe"), by this family's symbol and
 * bar width: second bars 10,000 (about 2.8 hours of 1 s bars) on 1 s instruments, 5,000 (14 hours of
 * 10 s bars, a whole session) on the 10 s ones; minute bars 20,000 (the current family's cap, about
 * 14 trading days of 1 m bars); hour bars 10,000 and day bars 5,000 (more than the history held).
 */
export const BARS_PER_REQUEST_MAX: Readonly<Record<string, Readonly<Record<WidthClass, number>>>> = {
  NQ: { second: 10_000, minute: 20_000, hour: 10_000, day: 5_000 },
  ES: { second: 10_000, minute: 20_000, hour: 10_000, day: 5_000 },
  MNQ: { second: 10_000, minute: 20_000, hour: 10_000, day: 5_000 },
  MES: { second: 10_000, minute: 20_000, hour: 10_000, day: 5_000 },
  EURUSD: { second: 10_000, minute: 20_000, hour: 10_000, day: 5_000 },
  GC: { second: 5_000, minute: 20_000, hour: 10_000, day: 5_000 },
  CL: { second: 5_000, minute: 20_000, hour: 10_000, day: 5_000 },
};

function widthClass(tf: Timeframe): WidthClass {
  if (tf.kind === 'calendar' || tf.widthS >= DAY_S) return 'day';
  if (tf.widthS >= HOUR_S) return 'hour';
  return tf.widthS >= MINUTE_S ? 'minute' : 'second';
}

const POLICY: HistoryPolicy = {
  instrumentFor: (contractId) => legacyInstrumentForId(contractId)?.base,
  barsPerRequestMax: (inst: Instrument, tf: Timeframe) => {
    const row = BARS_PER_REQUEST_MAX[legacyInstrumentOfBase(inst)?.symbol ?? ''];
    return row ? row[widthClass(tf)] : 5_000;
  },
};

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
      POLICY,
    );
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponse(request, r.value.instrument, r.value.bars);
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

