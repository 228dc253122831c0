// Validation and planning of Replay/start: which instrument, timeframe and time span a session
// gets, how many bars it has, and its chart history. Pure over the bar source; the service creates
// and persists the session.
//
// Checks in the spec's table order: instrument given → instrument known → startDate given →
// timeframe (custom switch, grammar, range, stored resolution) → dates → data present.

import { countBuckets } from '../../data/bucket-count.ts';
import { lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { instrumentForContractId } from '../../domain/contract-id.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { bucketStart, parseTimeframe, type Timeframe } from '../../domain/timeframe.ts';
import { tradeDateEndS, tradeDateStartS } from '../../domain/trading-hours.ts';
import { limits } from '../../config.ts';
import { civilFromDays, daysFromCivil } from '../../lib/civil-date.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import { dayToDateString, parseDateDay } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { DAY_S } from '../../lib/time-units.ts';

/** The refusals of `instrumentSymbols`, a session over several instruments (the current family's extension). */
export type InstrumentsError =
  | { kind: 'instruments_invalid' }
  | { kind: 'instrument_unknown'; symbol: string }
  | { kind: 'instrument_twice'; symbol: string }
  | { kind: 'instrument_not_first'; field: 'instrumentSymbol' | 'contractId' };

export type StartError =
  | { kind: 'instrument_required' }
  | { kind: 'instrument_not_found' }
  | InstrumentsError
  | { kind: 'start_date_required' }
  | { kind: 'custom_disabled' }
  | { kind: 'invalid_timeframe' }
  | { kind: 'timeframe_out_of_range' }
  | { kind: 'incompatible_resolution' }
  | { kind: 'date_invalid'; field: 'start' | 'end' }
  | { kind: 'end_not_after_start' }
  | { kind: 'span_too_long' }
  | { kind: 'no_data'; symbol: string; fromDate: string; toDate: string | null }
  | { kind: 'too_many_sessions' }
  | { kind: 'challenge_not_found' }
  | { kind: 'challenge_busy' }
  | { kind: 'challenge_inactive'; challengeId: number; status: string }
  | { kind: 'challenge_time'; challengeId: number; lastSimTimeS: number }
  | { kind: 'rate_limited'; retryAfterS: number };

/**
 * Replay/start as a family's route parsed it: each field as its schema types it, absent or null where
 * it was not sent, `INVALID` where the schema failed (refused at the field's place in the order of checks).
 */
export interface StartRequest {
  instrumentSymbol: string | null | undefined | Invalid;
  /** A session over several instruments (the current family's extension); absent or null: the spec's one. */
  instrumentSymbols?: readonly string[] | null | Invalid;
  contractId: string | null | undefined | Invalid;
  /** YYYY-MM-DD (required: absent, null or empty is `start_date_required`). */
  startDate: string | null | undefined | Invalid;
  endDate: string | null | undefined | Invalid;
  /** Default 1s. */
  timeframe: string | null | undefined | Invalid;
  /** A challenge account the session inherits from. */
  accountId: number | null | undefined | Invalid;
  /** The profile whose instruments may be named (instruments.json's `profiles`); the spec's when absent. */
  listedIn?: ApiProfile;
}

/** A field of a start request that names something: a text that is neither empty nor blank. */
function named(v: StartRequest['instrumentSymbol']): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

export interface SessionPlan {
  inst: Instrument;
  tf: Timeframe;
  startS: number;
  endS: number;
  totalBars: number;
  historyBars: number;
  /** Close and time of the last stored bar before the start: the price of orders before the first step. */
  lastPrice: { ticks: number; timeS: number } | null;
}

export function resolveInstrument(req: StartRequest): Result<Instrument, StartError> {
  const sym = req.instrumentSymbol;
  const cid = req.contractId;
  if (!named(sym) && !named(cid)) return err({ kind: 'instrument_required' });
  const inst = named(sym) ? findInstrument(sym, req.listedIn) : instrumentForContractId(cid, req.listedIn);
  return inst ? ok(inst) : err({ kind: 'instrument_not_found' });
}

/**
 * The instruments of a session over several (`instrumentSymbols`), or null when the request names
 * one the spec's way. The list holds 1 to limits.replayInstrumentsMax known, distinct symbols; an
 * `instrumentSymbol` or `contractId` sent beside it must name its first.
 */
export function resolveInstruments(req: StartRequest): Result<Instrument[] | null, StartError> {
  const list = req.instrumentSymbols;
  if (list === undefined || list === null) return ok(null);
  if (isInvalid(list) || list.length < 1 || list.length > limits.replayInstrumentsMax) return err({ kind: 'instruments_invalid' });
  const out: Instrument[] = [];
  for (const symbol of list) {
    const inst = findInstrument(symbol, req.listedIn);
    if (!inst) return err({ kind: 'instrument_unknown', symbol });
    if (out.includes(inst)) return err({ kind: 'instrument_twice', symbol: inst.symbol });
    out.push(inst);
  }
  if (named(req.instrumentSymbol) && findInstrument(req.instrumentSymbol, req.listedIn) !== out[0]) return err({ kind: 'instrument_not_first', field: 'instrumentSymbol' });
  if (named(req.contractId) && instrumentForContractId(req.contractId, req.listedIn) !== out[0]) return err({ kind: 'instrument_not_first', field: 'contractId' });
  return ok(out);
}

export function parseSessionTimeframe(text: StartRequest['timeframe'], inst: Instrument, customEnabled: boolean): Result<Timeframe, StartError> {
  if (isInvalid(text)) return err({ kind: 'invalid_timeframe' });
  const r = parseTimeframe(text ?? '1s', { customEnabled, storedResolutionS: inst.storedResolutionS });
  if (r.ok) return r;
  switch (r.error.kind) {
    case 'custom_disabled':
      return err({ kind: 'custom_disabled' });
    case 'invalid_timeframe':
      return err({ kind: 'invalid_timeframe' });
    case 'out_of_range':
      return err({ kind: 'timeframe_out_of_range' });
    case 'incompatible_resolution':
      return err({ kind: 'incompatible_resolution' });
  }
}

/**
 * How a family turns startDate and endDate into a session's span (each family's wire decides; the
 * walk over bars is the same):
 * - `utc_days`: [startDate 00:00 UTC, the day after endDate 00:00 UTC).
 * - `trade_dates`: [the session open of startDate's trade date, the session close of endDate's]
 *   (trading-hours.ts: Globex 17:00 CT the evening before to 16:00 CT; forex 17:00 New York).
 * Without endDate: `data_end` plays to the end of the data, `start_date` plays startDate alone.
 * `endMayEqualStart`: endDate = startDate is one day (else endDate must come after startDate).
 */
export interface SpanPolicy {
  readonly unit: 'utc_days' | 'trade_dates';
  readonly defaultEnd: 'data_end' | 'start_date';
  readonly endMayEqualStart: boolean;
}

/** The span of a session (see SpanPolicy), clipped to the end of the data held. */
export function planSession(
  source: BarSource,
  inst: Instrument,
  tf: Timeframe,
  startDate: StartRequest['startDate'],
  endDate: StartRequest['endDate'],
  span: SpanPolicy,
): Result<SessionPlan, StartError> {
  const startDay = isInvalid(startDate) ? undefined : parseDateDay(startDate);
  if (startDay === undefined) return err({ kind: 'date_invalid', field: 'start' });
  const maxDay = twoYearsAfter(startDay);
  const lastDataDay = source.range(inst).lastDay;
  const endGiven = !(endDate === undefined || endDate === null || endDate === '');
  let endDay = span.defaultEnd === 'start_date' ? startDay : Math.min(lastDataDay, maxDay);
  if (endGiven) {
    const d = isInvalid(endDate) ? undefined : parseDateDay(endDate);
    if (d === undefined) return err({ kind: 'date_invalid', field: 'end' });
    if (d < startDay || (d === startDay && !span.endMayEqualStart)) return err({ kind: 'end_not_after_start' });
    if (d > maxDay) return err({ kind: 'span_too_long' });
    endDay = d;
  }
  const dataEndS = (lastDataDay + 1) * DAY_S;
  const startS = span.unit === 'utc_days' ? startDay * DAY_S : tradeDateStartS(inst.session, startDay);
  const endS = Math.min(span.unit === 'utc_days' ? (endDay + 1) * DAY_S : tradeDateEndS(inst.session, endDay), dataEndS);
  const totalBars = endS > startS ? countBuckets(source, inst, tf, startS, endS) : 0;
  if (totalBars === 0) {
    return err({ kind: 'no_data', symbol: inst.symbol, fromDate: dayToDateString(startDay), toDate: endGiven ? dayToDateString(endDay) : null });
  }
  return ok({ inst, tf, startS, endS, totalBars, historyBars: historyBarCount(source, inst, tf, startS), lastPrice: lastPriceBefore(source, inst, startS) });
}

/**
 * Chart history: up to `replayHistoryBars` timeframe bars before the start, looked for within the
 * 30 days before it (a year for calendar timeframes).
 */
function historyBarCount(source: BarSource, inst: Instrument, tf: Timeframe, startS: number): number {
  const firstS = historyWindowStartS(source, inst, tf, startS);
  if (firstS >= startS) return 0;
  return Math.min(limits.replayHistoryBars, countBuckets(source, inst, tf, firstS, startS));
}

/** Where the chart history is looked for from: 30 days before the start (a year for calendar timeframes), not before the data. */
function historyWindowStartS(source: BarSource, inst: Instrument, tf: Timeframe, startS: number): number {
  const lookbackS = (tf.kind === 'calendar' ? 365 : 30) * DAY_S;
  return Math.max(startS - lookbackS, source.range(inst).firstDay * DAY_S);
}

/**
 * Open time of the first of a session's `historyBars` chart-history bars (its bucket's start), or
 * null without history, so a client reads them as one History request up to the start. The latest
 * time from which the window still holds that many buckets is the last stored bar of the first of
 * them: galloping back from the start by doubling spans, then halving.
 */
export function historyStartS(source: BarSource, inst: Instrument, tf: Timeframe, startS: number, historyBars: number): number | null {
  const firstS = historyWindowStartS(source, inst, tf, startS);
  const count = (fromS: number) => countBuckets(source, inst, tf, fromS, startS);
  const n = firstS < startS ? Math.min(historyBars, count(firstS)) : 0;
  if (n <= 0) return null;
  let lo = firstS; // count(lo) >= n
  let hi = startS; // count(hi) < n
  for (let spanS = 3600; startS - spanS > lo; spanS *= 2) {
    if (count(startS - spanS) >= n) {
      lo = startS - spanS;
      break;
    }
    hi = startS - spanS;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (count(mid) >= n) lo = mid;
    else hi = mid;
  }
  return bucketStart(tf, lo);
}

/** The last stored bar before `startS`, searched for up to 10 days back (long weekends, holidays). */
export function lastPriceBefore(source: BarSource, inst: Instrument, startS: number): { ticks: number; timeS: number } | null {
  const firstDay = source.range(inst).firstDay;
  for (let day = Math.floor((startS - 1) / DAY_S), n = 0; n < 10 && day >= firstDay; day--, n++) {
    const bars = source.day(inst, day);
    const i = lowerBound(bars.time, bars.length, startS) - 1;
    if (i >= 0) return { ticks: bars.close[i], timeS: bars.time[i] };
  }
  return null;
}

/** The same calendar date two years later (29 February → 28 February). */
function twoYearsAfter(day: number): number {
  const [y, m, d] = civilFromDays(day);
  return daysFromCivil(y + limits.replaySpanYearsMax, m, m === 2 && d === 29 ? 28 : d);
}
