// Trading hours and trade dates of the two session kinds, in pure integer calendar math.
//
// The model:
// - cme_globex: open Sunday 17:00 through Friday 16:00 America/Chicago, closed every day 16:00–17:00
//   (the 60-minute maintenance halt) and from Friday 16:00 to Sunday 17:00. fx_24x5: open Sunday
//   17:00 through Friday 17:00 America/New_York, without a daily halt.
// - A trade date is a weekday (Monday–Friday), written as a day number (days since 1970-01-01).
//   It begins at 17:00 local on the previous calendar day (Sunday 17:00 for Monday) and lasts until
//   the next trade date begins. So an open time at or after 17:00 local belongs to the next calendar
//   day's trade date, the daily halt belongs to the trade date that just closed, and the weekend
//   closure (Friday close to Sunday 17:00) belongs to Friday: no time maps to a Saturday or Sunday
//   trade date, and the trade date changes exactly at `nextTradeDateStartS`.
// - Holidays are not modelled: every weekday is a trading day (docs/decisions.md, "Accounts and contracts").
// - US daylight-saving rules of 2007 onward, for both zones: daylight time from the second Sunday of
//   March 02:00 local standard time to the first Sunday of November 02:00 local daylight time. The
//   same rule is applied to earlier years, where it is wrong; the simulator's data starts later.
// - Both DST changes happen on a Sunday at 02:00, when both sessions are closed, so the UTC offset is
//   constant over every open interval (the generator relies on this).
//
// Speed: offsets are computed with integer calendar math and a one-year cache per zone, so
// `isMarketOpen`, `tradeDate` and `nextTradeDateStartS` cost a few compares and no allocation; no Intl.

import { civilFromDays, daysFromCivil } from '../lib/civil-date.ts';
import { DAY_S } from '../lib/time-units.ts';
import type { SessionKind } from './instrument.ts';

const HOUR_S = 3_600;
const SESSION_OPEN_LOCAL_S = 17 * HOUR_S;
const CME_CLOSE_LOCAL_S = 16 * HOUR_S;
const FX_CLOSE_LOCAL_S = 17 * HOUR_S;
const CHICAGO_STANDARD_OFFSET_S = -6 * HOUR_S;
const NEW_YORK_STANDARD_OFFSET_S = -5 * HOUR_S;

const SUNDAY = 0;
const FRIDAY = 5;
const SATURDAY = 6;

/** Day of week of a day number: 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** UTC day number (days since 1970-01-01) of an epoch-seconds time. */
export function utcDayOf(epochS: number): number {
  return Math.floor(epochS / DAY_S);
}

/** `YYYY-MM-DD` of a day number. */
export function tradeDateString(day: number): string {
  const [y, m, d] = civilFromDays(day);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

// ---- Time zones: US DST rules, cached one year at a time. ----

interface ZoneCache {
  readonly standardOffsetS: number;
  yearStartS: number;
  yearEndS: number;
  dstStartS: number;
  dstEndS: number;
}

function newZoneCache(standardOffsetS: number): ZoneCache {
  return { standardOffsetS, yearStartS: 1, yearEndS: 0, dstStartS: 0, dstEndS: 0 };
}

const chicago = newZoneCache(CHICAGO_STANDARD_OFFSET_S);
const newYork = newZoneCache(NEW_YORK_STANDARD_OFFSET_S);

/** First Sunday on or after a day number. */
function sundayOnOrAfter(day: number): number {
  return day + ((7 - weekdayOf(day)) % 7);
}

function loadYear(z: ZoneCache, epochS: number): void {
  const year = civilFromDays(utcDayOf(epochS))[0];
  z.yearStartS = daysFromCivil(year, 1, 1) * DAY_S;
  z.yearEndS = daysFromCivil(year + 1, 1, 1) * DAY_S;
  // Spring forward at 02:00 standard time; fall back at 02:00 daylight time (= 01:00 standard).
  z.dstStartS = (sundayOnOrAfter(daysFromCivil(year, 3, 1)) + 7) * DAY_S + 2 * HOUR_S - z.standardOffsetS;
  z.dstEndS = sundayOnOrAfter(daysFromCivil(year, 11, 1)) * DAY_S + 2 * HOUR_S - (z.standardOffsetS + HOUR_S);
}

function zoneOffsetS(z: ZoneCache, epochS: number): number {
  if (epochS < z.yearStartS || epochS >= z.yearEndS) loadYear(z, epochS);
  return epochS >= z.dstStartS && epochS < z.dstEndS ? z.standardOffsetS + HOUR_S : z.standardOffsetS;
}

/** UTC offset of America/Chicago at an instant: -21600 (CST) or -18000 (CDT). */
export function chicagoOffsetS(epochS: number): number {
  return zoneOffsetS(chicago, epochS);
}

/** UTC offset of America/New_York at an instant: -18000 (EST) or -14400 (EDT). */
export function newYorkOffsetS(epochS: number): number {
  return zoneOffsetS(newYork, epochS);
}

/** UTC offset of the session's exchange zone (Chicago for Globex, New York for spot forex). */
export function sessionOffsetS(session: SessionKind, epochS: number): number {
  return session === 'cme_globex' ? zoneOffsetS(chicago, epochS) : zoneOffsetS(newYork, epochS);
}

/**
 * Epoch seconds of a local wall time (`localS` = local seconds since 1970-01-01 read as if UTC).
 * Exact for wall times away from 01:00–03:00 on DST Sundays, which covers every time used here
 * (16:00 and 17:00).
 */
function localToUtcS(session: SessionKind, localS: number): number {
  const standard = session === 'cme_globex' ? CHICAGO_STANDARD_OFFSET_S : NEW_YORK_STANDARD_OFFSET_S;
  return localS - sessionOffsetS(session, localS - standard);
}

function closeLocalS(session: SessionKind): number {
  return session === 'cme_globex' ? CME_CLOSE_LOCAL_S : FX_CLOSE_LOCAL_S;
}

// ---- Sessions and trade dates. ----

/** True when the session trades at `epochS` (bars exist only at such times). */
export function isMarketOpen(session: SessionKind, epochS: number): boolean {
  const localS = epochS + sessionOffsetS(session, epochS);
  const day = Math.floor(localS / DAY_S);
  const secondOfDay = localS - day * DAY_S;
  const closeS = closeLocalS(session);
  switch (weekdayOf(day)) {
    case SATURDAY:
      return false;
    case SUNDAY:
      return secondOfDay >= SESSION_OPEN_LOCAL_S;
    case FRIDAY:
      return secondOfDay < closeS;
    default:
      return secondOfDay < closeS || secondOfDay >= SESSION_OPEN_LOCAL_S;
  }
}

/** The trade date (a weekday's day number) that `epochS` belongs to; see the header for the rule. */
export function tradeDate(session: SessionKind, epochS: number): number {
  const localS = epochS + sessionOffsetS(session, epochS);
  let day = Math.floor(localS / DAY_S);
  if (localS - day * DAY_S >= SESSION_OPEN_LOCAL_S) day += 1;
  const weekday = weekdayOf(day);
  if (weekday === SATURDAY) return day - 1;
  if (weekday === SUNDAY) return day - 2;
  return day;
}

/** Epoch seconds when trade date `day` (a weekday) begins: 17:00 local on the previous calendar day. */
export function tradeDateStartS(session: SessionKind, day: number): number {
  return localToUtcS(session, (day - 1) * DAY_S + SESSION_OPEN_LOCAL_S);
}

/** Epoch seconds when trading of trade date `day` stops: 16:00 CT (Globex) or 17:00 New York (forex). */
export function tradeDateEndS(session: SessionKind, day: number): number {
  return localToUtcS(session, day * DAY_S + closeLocalS(session));
}

/** The trade date after `day` (Friday → Monday). */
export function nextTradeDay(day: number): number {
  return weekdayOf(day) === FRIDAY ? day + 3 : day + 1;
}

/** The trade date before `day` (Monday → Friday). */
export function previousTradeDay(day: number): number {
  return weekdayOf(day) === 1 ? day - 3 : day - 1;
}

/** The first trade-date boundary strictly after `epochS` (Sunday–Thursday 17:00 local). */
export function nextTradeDateStartS(session: SessionKind, epochS: number): number {
  return tradeDateStartS(session, nextTradeDay(tradeDate(session, epochS)));
}

/**
 * The open intervals [startS, endS) intersecting UTC day `utcDay`, clipped to it, in time order;
 * touching intervals are merged (forex trades through its trade-date boundaries).
 */
export function openIntervalsForUtcDay(session: SessionKind, utcDay: number): Array<[number, number]> {
  const dayStartS = utcDay * DAY_S;
  const dayEndS = dayStartS + DAY_S;
  const out: Array<[number, number]> = [];
  // A trade date's trading lies between 17:00 local the day before and 17:00 local on the day, so
  // only trade dates `utcDay` and `utcDay + 1` can reach into this UTC day.
  for (let day = utcDay; day <= utcDay + 1; day++) {
    const weekday = weekdayOf(day);
    if (weekday === SATURDAY || weekday === SUNDAY) continue;
    const startS = Math.max(tradeDateStartS(session, day), dayStartS);
    const endS = Math.min(tradeDateEndS(session, day), dayEndS);
    if (startS >= endS) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last[1] === startS) last[1] = endS;
    else out.push([startS, endS]);
  }
  return out;
}

/** The latest trade date whose trading has ended at or before `nowEpochS` (a day number). */
export function lastCompletedTradingDay(session: SessionKind, nowEpochS: number): number {
  let day = tradeDate(session, nowEpochS);
  while (tradeDateEndS(session, day) > nowEpochS) day = previousTradeDay(day);
  return day;
}
