// Timeframes: the grammar of Replay/start `timeframe`, the (unit, unitNumber) pair of
// History/retrieveBars, and the buckets that bars are aggregated into.
//
// The model (spec "Replay control" → timeframe grammar; "History"):
// - Grammar `^([1-9]\d{0,4})(s|m|h|d|w|M|y)$`, case-sensitive (M months, m minutes), no spaces.
// - s m h d are fixed widths on the epoch grid: a bucket starts at floor(t / width) × width, so 4h
//   buckets start at 00:00, 04:00, … UTC and 7d buckets start on Thursdays (1970-01-01 was one).
// - w M y are calendar buckets: ISO weeks starting Monday 00:00 UTC, UTC months, UTC years.
//   Multi-count calendar buckets are anchored on the epoch: 2w buckets start on Mondays whose week
//   number since the week of Monday 1970-01-05 is even; 3M buckets start in months whose number
//   since 1970-01 is divisible by 3 (so quarters: Jan, Apr, Jul, Oct); 2y buckets in even years.
//   A count that does not divide 12 months (5M) therefore drifts through the calendar year.
// - Canonical form: the largest unit that divides the width evenly, never crossing between fixed
//   and calendar units (60m → 1h, 86400s → 1d, 12M → 1y; 7d stays 7d, 90s stays 90s).
// - Replay checks, in this order, each on the canonical form:
//     grammar → canonical → custom switch → range → stored resolution.
//   The custom switch comes before the range because the spec says every grammar-valid value
//   that is not a preset answers `Custom timeframes are currently disabled` while the switch is
//   off, so `31d` gets that answer rather than an out-of-range one. Presets are all in range, so
//   the range check only ever decides when the switch is on. Resolution comes last because it
//   depends on the instrument, not on the text.
// - History checks: unit → unitNumber (missing, non-integer, < 1, or wider than the request's
//   scan window, one spec row) → canonical → custom switch → stored resolution. History has its
//   own ceiling (the scan window of the request's unit: 30 days for s/m, 120 for h, 365 for d);
//   Replay's bounds (30-day fixed width, 5-digit count) do not apply there, so a 60-day bar is a
//   valid custom History width while `60d` is out of range for Replay. The live gateway's week (5)
//   and month (6) units are accepted when the caller says so (the live profile): counts up to
//   Replay's calendar bounds, and `1w` and `1M` count as presets there.
// - Times are integer epoch seconds (UTC). Calendar math is integer civil-date arithmetic
//   (Howard Hinnant's days_from_civil), so nothing here allocates or reads a clock. Times before
//   Monday 1970-01-05 fall in a week bucket starting 1969-12-29 (negative); stored data never does.

import { coreLimits } from '../core-limits.ts';
import { AssertionError, assert } from '../lib/assert.ts';
import { civilFromDays, daysFromCivil } from '../lib/civil-date.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { DAY_S } from '../lib/time-units.ts';

export { daysFromCivil };

export type TimeframeUnit = 's' | 'm' | 'h' | 'd' | 'w' | 'M' | 'y';
export type TimeframeKind = 'fixed' | 'calendar';

export interface Timeframe {
  /** Count of `unit`, canonical (the largest unit dividing the width evenly). */
  readonly count: number;
  readonly unit: TimeframeUnit;
  readonly kind: TimeframeKind;
  /** Width in seconds for fixed timeframes; 0 for calendar ones (their width varies). */
  readonly widthS: number;
  /** Canonical text, e.g. `1h` for an input of `60m`. */
  readonly text: string;
}

export type TimeframeError =
  | { kind: 'invalid_timeframe' }
  | { kind: 'custom_disabled' }
  | { kind: 'out_of_range' }
  | { kind: 'incompatible_resolution' };

export type HistoryTimeframeError =
  | { kind: 'unit_invalid' }
  | { kind: 'unit_number_invalid' }
  | { kind: 'custom_disabled' }
  | { kind: 'incompatible_resolution' };

export interface TimeframeOptions {
  /** The platform switch for non-preset timeframes (config `customTimeframes`, off by default). */
  readonly customEnabled: boolean;
  /** The instrument's stored bar width in seconds (Instrument.storedResolutionS). */
  readonly storedResolutionS: number;
}

/** The History scan windows; `limits` in config.ts has this shape and can be passed as is. */
export interface HistoryScanLimits {
  readonly historyScanSecondMinuteDays: number;
  readonly historyScanHourDays: number;
  readonly historyScanDayDays: number;
  /** Week and month bars (the live gateway's units 5 and 6); absent = no window. */
  readonly historyScanWeekDays?: number;
  readonly historyScanMonthDays?: number;
}

export interface HistoryTimeframeOptions extends TimeframeOptions {
  readonly scanLimits: HistoryScanLimits;
  /**
   * The live gateway's calendar units are accepted: 5 (weeks) and 6 (months), unitNumber up to
   * Replay's calendar bounds (52 weeks, 12 months); one week and one month count as presets.
   */
  readonly calendarUnits?: boolean;
}

/** History/retrieveBars `unit` values of the gateway schema; Week and Month only under the live profile. */
export const BarUnit = { Second: 1, Minute: 2, Hour: 3, Day: 4, Week: 5, Month: 6 } as const;
export type BarUnit = (typeof BarUnit)[keyof typeof BarUnit];

export const MINUTE_S = 60;
export const HOUR_S = 3_600;
export const WEEK_S = 7 * DAY_S;

// (spec) Replay maximum counts, checked on the canonical form.

const GRAMMAR = /^([1-9]\d{0,4})(s|m|h|d|w|M|y)$/;

/** Fixed units from the largest down: canonicalization takes the first that divides the width. */
const FIXED_UNITS: readonly (readonly [TimeframeUnit, number])[] = [
  ['d', DAY_S],
  ['h', HOUR_S],
  ['m', MINUTE_S],
  ['s', 1],
];
const FIXED_UNIT_S: Readonly<Record<string, number>> = { s: 1, m: MINUTE_S, h: HOUR_S, d: DAY_S };

function fixedTimeframe(widthS: number): Timeframe {
  for (const [unit, unitS] of FIXED_UNITS) {
    if (widthS % unitS === 0) {
      const count = widthS / unitS;
      return Object.freeze({ count, unit, kind: 'fixed', widthS, text: `${count}${unit}` });
    }
  }
  throw new AssertionError(`width ${widthS} s is not a whole number of seconds`);
}

function calendarTimeframe(count: number, unit: 'w' | 'M' | 'y'): Timeframe {
  // Months fold into years only when whole; weeks never become months (they do not divide them).
  if (unit === 'M' && count % 12 === 0) return calendarTimeframe(count / 12, 'y');
  return Object.freeze({ count, unit, kind: 'calendar', widthS: 0, text: `${count}${unit}` });
}

const PRESET_TEXTS = ['1s', '5s', '10s', '15s', '30s', '1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;
const presetSet: ReadonlySet<string> = new Set(PRESET_TEXTS);

/** The 12 presets (spec), canonical, in increasing width. */
export const PRESET_TIMEFRAMES: readonly Timeframe[] = Object.freeze(
  PRESET_TEXTS.map((text) => fixedTimeframe(Number(text.slice(0, -1)) * FIXED_UNIT_S[text.slice(-1)])),
);

export function isPresetTimeframe(tf: Timeframe): boolean {
  return presetSet.has(tf.text);
}

function inRange(tf: Timeframe): boolean {
  if (tf.kind === 'fixed') return tf.widthS <= coreLimits.timeframeFixedWidthDaysMax * DAY_S;
  if (tf.unit === 'w') return tf.count <= coreLimits.timeframeWeeksMax;
  if (tf.unit === 'M') return tf.count <= coreLimits.timeframeMonthsMax;
  return tf.count <= coreLimits.timeframeYearsMax;
}

/** Bars are built from stored bars, so a bucket edge must fall on a stored-bar edge. */
function fitsResolution(tf: Timeframe, storedResolutionS: number): boolean {
  assert(Number.isInteger(storedResolutionS) && storedResolutionS >= 1, `bad storedResolutionS ${storedResolutionS}`);
  // Calendar buckets start at midnight UTC, so stored bars must tile a day.
  if (tf.kind === 'calendar') return DAY_S % storedResolutionS === 0;
  return tf.widthS % storedResolutionS === 0;
}

/** Parses a Replay/start timeframe. Checks run in the order given in the header. */
export function parseTimeframe(text: unknown, opts: TimeframeOptions): Result<Timeframe, TimeframeError> {
  const match = typeof text === 'string' ? GRAMMAR.exec(text) : null;
  if (match === null) return err({ kind: 'invalid_timeframe' });
  const count = Number(match[1]);
  const unit = match[2] as TimeframeUnit;
  const unitS = FIXED_UNIT_S[unit];
  const tf = unitS === undefined ? calendarTimeframe(count, unit as 'w' | 'M' | 'y') : fixedTimeframe(count * unitS);
  if (!opts.customEnabled && !isPresetTimeframe(tf)) return err({ kind: 'custom_disabled' });
  if (!inRange(tf)) return err({ kind: 'out_of_range' });
  if (!fitsResolution(tf, opts.storedResolutionS)) return err({ kind: 'incompatible_resolution' });
  return ok(tf);
}

/** Width in seconds of one History `unit`, or 0 for a unit History does not accept. */
function historyUnitS(unit: unknown): number {
  if (unit === BarUnit.Second) return 1;
  if (unit === BarUnit.Minute) return MINUTE_S;
  if (unit === BarUnit.Hour) return HOUR_S;
  if (unit === BarUnit.Day) return DAY_S;
  return 0;
}

/**
 * The scan window of one History request, from its `unit` as sent: 30 days for second and minute
 * bars, 120 for hour bars, 365 for day bars (spec); week and month bars (live profile) as the limits
 * say. 0 for a unit without a window.
 */
export function historyScanWindowS(unit: unknown, scanLimits: HistoryScanLimits): number {
  if (unit === BarUnit.Second || unit === BarUnit.Minute) return scanLimits.historyScanSecondMinuteDays * DAY_S;
  if (unit === BarUnit.Hour) return scanLimits.historyScanHourDays * DAY_S;
  if (unit === BarUnit.Day) return scanLimits.historyScanDayDays * DAY_S;
  if (unit === BarUnit.Week) return (scanLimits.historyScanWeekDays ?? 0) * DAY_S;
  if (unit === BarUnit.Month) return (scanLimits.historyScanMonthDays ?? 0) * DAY_S;
  return 0;
}

/**
 * The timeframe of a History/retrieveBars request (`unit` × `unitNumber`). Arguments are the raw
 * wire values, so a missing or non-numeric one is reported here with its spec'd kind.
 */
export function timeframeFromUnit(
  unit: unknown,
  unitNumber: unknown,
  opts: HistoryTimeframeOptions,
): Result<Timeframe, HistoryTimeframeError> {
  if (opts.calendarUnits && (unit === BarUnit.Week || unit === BarUnit.Month)) return calendarFromUnit(unit, unitNumber, opts);
  const unitS = historyUnitS(unit);
  if (unitS === 0) return err({ kind: 'unit_invalid' });
  if (typeof unitNumber !== 'number' || !Number.isInteger(unitNumber) || unitNumber < 1) {
    return err({ kind: 'unit_number_invalid' });
  }
  // The ceiling is checked before the width is built, so huge unitNumbers never reach the math.
  if (unitNumber > historyScanWindowS(unit, opts.scanLimits) / unitS) return err({ kind: 'unit_number_invalid' });
  const tf = fixedTimeframe(unitNumber * unitS);
  if (!opts.customEnabled && !isPresetTimeframe(tf)) return err({ kind: 'custom_disabled' });
  if (!fitsResolution(tf, opts.storedResolutionS)) return err({ kind: 'incompatible_resolution' });
  return ok(tf);
}

/**
 * Week or month bars of the live gateway's History (units 5 and 6): ISO weeks or UTC months, as
 * Replay's `w` and `M`. Checks in the order of the fixed units': unitNumber (Replay's calendar bounds
 * stand for the scan ceiling), custom switch (only a count of one is a preset), stored resolution.
 */
function calendarFromUnit(unit: 5 | 6, unitNumber: unknown, opts: HistoryTimeframeOptions): Result<Timeframe, HistoryTimeframeError> {
  const countMax = unit === BarUnit.Week ? coreLimits.timeframeWeeksMax : coreLimits.timeframeMonthsMax;
  if (typeof unitNumber !== 'number' || !Number.isInteger(unitNumber) || unitNumber < 1 || unitNumber > countMax) {
    return err({ kind: 'unit_number_invalid' });
  }
  const tf = calendarTimeframe(unitNumber, unit === BarUnit.Week ? 'w' : 'M');
  if (!opts.customEnabled && unitNumber !== 1) return err({ kind: 'custom_disabled' });
  if (!fitsResolution(tf, opts.storedResolutionS)) return err({ kind: 'incompatible_resolution' });
  return ok(tf);
}

// ---- Buckets. ----

/** Monday 1970-01-05 00:00 UTC: the first ISO week start after the epoch, the week anchor. */
const FIRST_MONDAY_S = 4 * DAY_S;

/** Months since 1970-01 of the UTC month holding day `days`. */
function monthIndexOfDay(days: number): number {
  const [year, month] = civilFromDays(days);
  return (year - 1970) * 12 + month - 1;
}

function monthStartS(monthIndex: number): number {
  const year = 1970 + Math.floor(monthIndex / 12);
  const month = monthIndex - (year - 1970) * 12 + 1;
  return daysFromCivil(year, month, 1) * DAY_S;
}

/** Calendar periods (months for M, years as 12 months for y) per bucket. */
function monthsPerBucket(tf: Timeframe): number {
  return tf.unit === 'y' ? tf.count * 12 : tf.count;
}

/** Start (epoch seconds) of the bucket of `tf` holding `epochS`. */
export function bucketStart(tf: Timeframe, epochS: number): number {
  if (tf.kind === 'fixed') return Math.floor(epochS / tf.widthS) * tf.widthS;
  if (tf.unit === 'w') {
    const bucketS = tf.count * WEEK_S;
    return FIRST_MONDAY_S + Math.floor((epochS - FIRST_MONDAY_S) / bucketS) * bucketS;
  }
  const n = monthsPerBucket(tf);
  const monthIndex = monthIndexOfDay(Math.floor(epochS / DAY_S));
  return monthStartS(Math.floor(monthIndex / n) * n);
}

/**
 * Start of the bucket after the one holding `epochS` (usually called with a bucket start): the
 * exclusive end of that bucket, which the aggregation loop compares each bar time against.
 */
export function nextBucketStart(tf: Timeframe, epochS: number): number {
  if (tf.kind === 'fixed') return bucketStart(tf, epochS) + tf.widthS;
  if (tf.unit === 'w') return bucketStart(tf, epochS) + tf.count * WEEK_S;
  const n = monthsPerBucket(tf);
  const monthIndex = monthIndexOfDay(Math.floor(epochS / DAY_S));
  return monthStartS(Math.floor(monthIndex / n) * n + n);
}
