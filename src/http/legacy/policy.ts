// The earlier family's policy values (docs/decisions.md, "Earlier family"):
// a span of trade dates (endDate defaults to the startDate session), one live session per user, up
// to 1,000 steps a call, real-time playback, and History caps by instrument and bar width.

import { legacyInstrumentForId } from '../../domain/contract-id.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { legacyInstrumentOfBase } from '../../domain/legacy-instruments.ts';
import { HOUR_S, MINUTE_S, type Timeframe } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { FamilyPolicy } from '../shared/policy.ts';

type WidthClass = 'second' | 'minute' | 'hour' | 'day';

/**
 * Most bars per request (spec: "depends on instrument and timeframe"), by this family's symbol and
 * bar width: second bars 10,000 (about 2.8 hours of 1 s bars) on 1 s instruments, 5,000 (14 hours of
 * 10 s bars, a whole session) on the 10 s ones; minute bars 20,000 (the current family's cap, about
 * 14 trading days of 1 m bars); hour bars 10,000 and day bars 5,000 (more than the history held).
 */
export const HISTORY_BARS_PER_REQUEST: Readonly<Record<string, Readonly<Record<WidthClass, number>>>> = {
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

export const LEGACY_POLICY: FamilyPolicy = Object.freeze<FamilyPolicy>({
  // One live session per user (spec: "An active session already exists"), counting every family's.
  start: { span: { unit: 'trade_dates', defaultEnd: 'start_date', endMayEqualStart: true }, liveSessionsMax: 1 },
  // Replay/step: the spec states no maximum; this bound protects the process and the streaming allowance.
  stepsMax: 1000,
  // Speed 1 is real time: one bar per bar width (a 1 m session plays a bar a minute), speed n plays n
  // times faster. Calendar timeframes (only a current-family start makes them) pace as one day.
  playbackRate: (speed, s) => speed / (s.tf.widthS > 0 ? s.tf.widthS : DAY_S),
  history: {
    instrumentFor: (contractId) => legacyInstrumentForId(contractId)?.base,
    barsPerRequestMax: (inst: Instrument, tf: Timeframe) => {
      const row = HISTORY_BARS_PER_REQUEST[legacyInstrumentOfBase(inst)?.symbol ?? ''];
      return row ? row[widthClass(tf)] : 5_000;
    },
  },
});
