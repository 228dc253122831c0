// ISO 8601 formatting and parsing for the wire. Formatting many bar times is a real share of a
// History response, so the date part is cached per UTC day and the time part built from integers.

import { DAY_S } from './time-units.ts';

let cachedDay = -1;
let cachedPrefix = '';

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** `2024-03-05T14:30:00Z` for an epoch-seconds time (whole seconds, as bars are). */
export function isoFromEpochS(epochS: number): string {
  const day = Math.floor(epochS / DAY_S);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day * DAY_S * 1000).toISOString().slice(0, 11);
  }
  const s = epochS - day * DAY_S;
  const h = (s / 3600) | 0;
  const m = ((s % 3600) / 60) | 0;
  return `${cachedPrefix}${pad2(h)}:${pad2(m)}:${pad2(s % 60)}Z`;
}

/** ISO 8601 with milliseconds for wall-clock times. */
export function isoFromEpochMs(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses an ISO 8601 date or date-time to epoch milliseconds. A time without offset is UTC
 * (the spec says timestamps are UTC); `2025-03-03T09:30:00-05:00` keeps its offset.
 * Returns undefined for anything unparseable or out of range (month 13, Feb 30).
 */
export function parseIsoMs(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(base);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined;
  const ms = frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  let offsetMin = 0;
  if (off && off !== 'Z' && off !== 'z') {
    const sign = off[0] === '-' ? -1 : 1;
    const digits = off.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  return base + ms - offsetMin * 60_000;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a plain `YYYY-MM-DD` date to its UTC day number (days since 1970-01-01). */
export function parseDateDay(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const ms = parseIsoMs(m[0]);
  return ms === undefined ? undefined : ms / 86_400_000;
}

export function dayToDateString(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** Seconds from `nowMs` to the next 00:00 UTC (at least 1): the Retry-After of daily budgets. */
export function secondsToUtcMidnight(nowMs: number): number {
  const next = (Math.floor(nowMs / 86_400_000) + 1) * 86_400_000;
  return Math.max(1, Math.ceil((next - nowMs) / 1000));
}
