// Wall-clock times → UTC for files written in a local zone (a NinjaTrader export from a PC set to
// New York, a CSV with naive times and --tz). Fixed-offset zones (UTC, HistData's EST) are one
// subtraction. IANA zones ask Intl.DateTimeFormat, but not per line: the zone's offsets are
// worked out once per local calendar day (two Intl calls), and on the few days that hold a DST
// change the exact instant of the change is found by bisection (about 18 more calls). Every line
// then costs a compare and a subtraction, so a million-line file makes a few hundred Intl calls.
//
// DST rules, stated once:
// - A non-existent wall time (the hour skipped when clocks spring forward, 02:30 on the second
//   Sunday of March in New York) returns NaN; the parser reports it, since an export from that
//   zone cannot hold such a time and the likeliest cause is a wrong --tz.
// - An ambiguous wall time (the hour repeated when clocks fall back) takes the earlier instant,
//   unless that is before `notBeforeS` (the previous line's time, or one second after it for bars),
//   in which case it takes the later. A time-ordered file walking through the repeated hour twice
//   thus converts correctly; a file whose first pass through that hour is missing cannot be told
//   apart and gets the earlier reading.
// - Assumes at most one offset change within three days, true of every zone's rules since 1970.

import { daysFromCivil } from '../../domain/timeframe.ts';
import { err, ok } from '../../lib/result.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { importError, type ImportError, type ImportResult } from './types.ts';

export interface WallClockZone {
  readonly name: string;
  /** UTC epoch seconds of wall-clock seconds `localS` (a local time read as if UTC); NaN if it does not exist. */
  toUtc(localS: number, notBeforeS: number): number;
}

export function fixedOffsetZone(name: string, offsetS: number): WallClockZone {
  return { name, toUtc: (localS) => localS - offsetS };
}

export const UTC_ZONE: WallClockZone = fixedOffsetZone('UTC', 0);

/** HistData.com's zone: Eastern Standard Time all year, never daylight time. */
export const EST_NO_DST_ZONE: WallClockZone = fixedOffsetZone('EST (UTC-5, no DST)', -5 * 3600);

/** The zone for an IANA name, or undefined when the runtime does not know the name. */
export function zoneByName(name: string): WallClockZone | undefined {
  const upper = name.toUpperCase();
  if (upper === 'UTC' || upper === 'ETC/UTC' || upper === 'Z' || upper === 'GMT') return UTC_ZONE;
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return undefined; // RangeError: unknown time zone
  }
  return new IanaZone(fmt.resolvedOptions().timeZone, fmt);
}

class IanaZone implements WallClockZone {
  readonly name: string;
  private readonly fmt: Intl.DateTimeFormat;
  /** Local day (days since epoch of the wall clock) whose offsets are loaded below. */
  private day = Number.NaN;
  private offsetBeforeS = 0;
  private offsetAfterS = 0;
  /** First UTC second with offsetAfterS; +Infinity when the day has one offset. */
  private changeAtS = Number.POSITIVE_INFINITY;

  constructor(name: string, fmt: Intl.DateTimeFormat) {
    this.name = name;
    this.fmt = fmt;
  }

  toUtc(localS: number, notBeforeS: number): number {
    const day = Math.floor(localS / DAY_S);
    if (day !== this.day) this.loadDay(day);
    const before = localS - this.offsetBeforeS;
    if (this.changeAtS === Number.POSITIVE_INFINITY) return before;
    const after = localS - this.offsetAfterS;
    const beforeValid = before < this.changeAtS;
    const afterValid = after >= this.changeAtS;
    if (beforeValid && afterValid && before !== after) {
      const early = Math.min(before, after);
      return early >= notBeforeS ? early : Math.max(before, after);
    }
    if (beforeValid) return before;
    if (afterValid) return after;
    return Number.NaN;
  }

  /** Offsets in force for every instant whose wall time falls on local day `day`, with a day of margin. */
  private loadDay(day: number): void {
    this.day = day;
    const lo = day * DAY_S - DAY_S;
    const hi = day * DAY_S + 2 * DAY_S;
    const offLo = this.offsetAt(lo);
    const offHi = this.offsetAt(hi);
    this.offsetBeforeS = offLo;
    this.offsetAfterS = offHi;
    this.changeAtS = Number.POSITIVE_INFINITY;
    if (offLo === offHi) return;
    let a = lo; // offset offLo at a
    let b = hi; // offset differs at b
    while (b - a > 1) {
      const mid = Math.floor((a + b) / 2);
      if (this.offsetAt(mid) === offLo) a = mid;
      else b = mid;
    }
    this.changeAtS = b;
  }

  /** Seconds east of UTC at UTC instant `utcS`. */
  private offsetAt(utcS: number): number {
    const parts = this.fmt.formatToParts(new Date(utcS * 1000));
    const n = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
    return daysFromCivil(n('year'), n('month'), n('day')) * DAY_S + n('hour') * 3600 + n('minute') * 60 + n('second') - utcS;
  }
}

/** The zone a `--tz` option names, or `fallback` when none was given. */
export function zoneOption(tz: string | undefined, fallback: WallClockZone): ImportResult<WallClockZone> {
  if (tz === undefined || tz === '') return ok(fallback);
  const zone = zoneByName(tz);
  if (zone !== undefined) return ok(zone);
  return err(importError(0, 'bad_option', `Unknown time zone "${tz}"; use an IANA name such as America/New_York`));
}

/** Refuses a `--tz` option for formats whose zone is part of the format. */
export function refuseZoneOption(tz: string | undefined, why: string): ImportError | null {
  if (tz === undefined || tz === '') return null;
  return importError(0, 'bad_option', `--tz does not apply: ${why}`);
}

export function nonexistentLocalTime(line: number, stamp: string, zoneName: string): ImportError {
  return importError(line, 'nonexistent_local_time',
    `local time "${stamp}" does not exist in ${zoneName} (clocks moved forward); check the time zone`);
}
