// The journal's clock for its statistics (src/engine/session-review.ts): the trading day of a time
// is the CME's (a new day at 17:00 Chicago time, Friday's close to Sunday's open belonging to
// Friday: src/domain/trading-hours.ts), whatever the instrument, so days add up across instruments;
// the hour of a time is read in the zone the reader asks for (the console sends its time-zone
// preference), any IANA name the runtime knows, UTC by default.

import { tradeDate } from '../domain/trading-hours.ts';
import type { ReviewClock } from '../engine/session-review.ts';

/** A clock for `zone` (undefined or '' → UTC); null when the runtime knows no such zone. */
export function reviewClock(zone: string | undefined): ReviewClock | null {
  const name = zone === undefined || zone === '' ? 'UTC' : zone;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: name, hour: '2-digit', hourCycle: 'h23' });
  } catch {
    return null;
  }
  const utc = format.resolvedOptions().timeZone === 'UTC';
  return {
    tradingDay: (epochS) => tradeDate('cme_globex', epochS),
    hour: utc ? (epochS) => Math.floor((epochS % 86_400) / 3_600) : (epochS) => Number(format.format(new Date(epochS * 1000))) % 24,
  };
}
