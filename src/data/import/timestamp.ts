// Timestamp fields of bar files, parsed from char codes into epoch seconds plus a sub-second
// remainder in nanoseconds. Three written forms:
//
// - ISO 8601: `2024-01-02T14:30:00Z`, `2024-01-02 09:30:00-05:00`, `2024-01-02T14:30:00.000000000Z`
//   (Databento pretty_ts), naive `2024-01-02 09:30:00` (wall-clock time in the caller's zone), or a
//   bare date (midnight). The caller learns from `out.zoned` whether an offset was written.
// - Epoch integers, whose unit is told by magnitude: below 1e11 seconds, below 1e14 milliseconds,
//   below 1e17 microseconds, otherwise nanoseconds. Each unit's range starts in 1973 and ends in
//   year 5138, so for market data since 1973 the reading is unambiguous. Digits are handled as
//   text, so 19-digit nanosecond stamps keep their exact seconds (a double cannot hold them).
// - Compact `yyyyMMdd HHmmss` (NinjaTrader, HistData) with an optional sub-second part either after
//   a space (NinjaTrader ticks: ` fffffff`, 100 ns units) or run on (HistData ticks: `HHmmssNNN`, ms),
//   or a bare `yyyyMMdd` (daily bars).
//
// All return NaN for anything unparseable or impossible (month 13, 30 February, 24:00).

import { daysFromCivil } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { digitsAt } from './text-scan.ts';

/** Outputs of the last parse besides the returned seconds; one per parser, reused for every line. */
export class StampParts {
  /** Sub-second part in nanoseconds, 0..999 999 999. */
  fracNs = 0;
  /** True when the text carried `Z` or an offset, so the returned seconds are already UTC. */
  zoned = false;
  /** True for a bare date (no time of day). */
  dateOnly = false;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Epoch seconds of a wall-clock time read as UTC; NaN when a component is out of range. */
export function civilToEpochS(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return NaN;
  const dim = mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1];
  if (d > dim) return NaN;
  return daysFromCivil(y, mo, d) * DAY_S + h * 3600 + mi * 60 + s;
}

/** Nanoseconds written by the fraction digits `text[s, e)` (`5` → 500 000 000); -1 if not digits. */
function fractionNs(text: string, s: number, e: number): number {
  let v = 0;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    // Digits past nanoseconds only matter for being zero or not; keep a non-zero marker.
    if (n < 9) v = v * 10 + c;
    else if (c !== 0 && v === 0) v = 1;
    n++;
  }
  if (n === 0) return -1;
  for (; n < 9; n++) v *= 10;
  return v;
}

/** Parses ISO 8601 at `text[s, e)`; see the header for accepted forms. */
export function parseIsoStamp(text: string, s: number, e: number, out: StampParts): number {
  out.fracNs = 0;
  out.zoned = false;
  out.dateOnly = false;
  if (e - s < 10 || text.charCodeAt(s + 4) !== 45 || text.charCodeAt(s + 7) !== 45) return NaN;
  const y = digitsAt(text, s, 4);
  const mo = digitsAt(text, s + 5, 2);
  const d = digitsAt(text, s + 8, 2);
  if (y < 0 || mo < 0 || d < 0) return NaN;
  if (e - s === 10) {
    out.dateOnly = true;
    return civilToEpochS(y, mo, d, 0, 0, 0);
  }
  const sep = text.charCodeAt(s + 10);
  if (sep !== 84 && sep !== 116 && sep !== 32) return NaN; // T, t or space
  let i = s + 11;
  if (i + 5 > e || text.charCodeAt(i + 2) !== 58) return NaN;
  const h = digitsAt(text, i, 2);
  const mi = digitsAt(text, i + 3, 2);
  let sec = 0;
  i += 5;
  if (i < e && text.charCodeAt(i) === 58) {
    sec = digitsAt(text, i + 1, 2);
    i += 3;
    if (i > e) return NaN;
    if (i < e && text.charCodeAt(i) === 46) {
      let j = i + 1;
      while (j < e && isDigit(text.charCodeAt(j))) j++;
      const frac = fractionNs(text, i + 1, j);
      if (frac < 0) return NaN;
      out.fracNs = frac;
      i = j;
    }
  }
  if (h < 0 || mi < 0 || sec < 0) return NaN;
  const local = civilToEpochS(y, mo, d, h, mi, sec);
  if (i === e) return local;
  const offset = parseOffset(text, i, e);
  if (Number.isNaN(offset)) return NaN;
  out.zoned = true;
  return local - offset;
}

/** `Z`, `+05:30`, `-0500`, `+05` (optionally after one space) → seconds east of UTC; NaN otherwise. */
function parseOffset(text: string, i: number, e: number): number {
  if (text.charCodeAt(i) === 32) i++;
  const c = text.charCodeAt(i);
  if ((c === 90 || c === 122) && i + 1 === e) return 0;
  if (c !== 43 && c !== 45) return NaN;
  const sign = c === 45 ? -1 : 1;
  const hh = digitsAt(text, i + 1, 2);
  let mm = 0;
  const rest = e - (i + 3);
  if (rest === 3 && text.charCodeAt(i + 3) === 58) mm = digitsAt(text, i + 4, 2);
  else if (rest === 2) mm = digitsAt(text, i + 3, 2);
  else if (rest !== 0) return NaN;
  if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return NaN;
  return sign * (hh * 3600 + mm * 60);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** True when `text[s, e)` is all digits (an epoch stamp rather than ISO). */
export function isAllDigits(text: string, s: number, e: number): boolean {
  if (s >= e) return false;
  for (let i = s; i < e; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

/** Epoch-integer thresholds: a value below the first is seconds, below the second ms, and so on. */
export const EPOCH_SECONDS_BELOW = 1e11;
export const EPOCH_MILLIS_BELOW = 1e14;
export const EPOCH_MICROS_BELOW = 1e17;

/** Parses an epoch integer of any unit (see header); always UTC. */
export function parseEpochStamp(text: string, s: number, e: number, out: StampParts): number {
  out.fracNs = 0;
  out.zoned = true;
  out.dateOnly = false;
  while (s < e - 1 && text.charCodeAt(s) === 48) s++; // leading zeros do not change the magnitude
  const n = e - s;
  if (n <= 0 || n > 20 || !isAllDigits(text, s, e)) return NaN;
  // Significant-digit count is the magnitude: ≤ 11 digits is < 1e11, ≤ 14 is < 1e14, ≤ 17 is < 1e17.
  const fracDigits = n <= 11 ? 0 : n <= 14 ? 3 : n <= 17 ? 6 : 9;
  const secDigits = n - fracDigits;
  const seconds = secDigits === 0 ? 0 : digitsAt(text, s, secDigits);
  if (fracDigits > 0) out.fracNs = fractionNs(text, s + secDigits, e);
  return seconds;
}

/** Parses `yyyyMMdd`, `yyyyMMdd HHmmss`, `yyyyMMdd HHmmss fffffff` or `yyyyMMdd HHmmssNNN` (wall clock). */
export function parseCompactStamp(text: string, s: number, e: number, out: StampParts): number {
  out.fracNs = 0;
  out.zoned = false;
  out.dateOnly = false;
  const y = digitsAt(text, s, 4);
  const mo = digitsAt(text, s + 4, 2);
  const d = digitsAt(text, s + 6, 2);
  if (e - s < 8 || y < 0 || mo < 0 || d < 0) return NaN;
  if (e - s === 8) {
    out.dateOnly = true;
    return civilToEpochS(y, mo, d, 0, 0, 0);
  }
  if (e - s < 15 || text.charCodeAt(s + 8) !== 32) return NaN;
  const h = digitsAt(text, s + 9, 2);
  const mi = digitsAt(text, s + 11, 2);
  const sec = digitsAt(text, s + 13, 2);
  if (h < 0 || mi < 0 || sec < 0) return NaN;
  let i = s + 15;
  if (i < e) {
    if (text.charCodeAt(i) === 32) i++;
    const frac = fractionNs(text, i, e);
    if (frac < 0) return NaN;
    out.fracNs = frac;
  }
  return civilToEpochS(y, mo, d, h, mi, sec);
}
