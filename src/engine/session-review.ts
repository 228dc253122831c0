// The journal's statistics over a set of round trips (one session's, or several sessions'):
// expectancy in dollars and in R, a calendar of daily P&L, and P&L by weekday and by hour. Pure:
// the trading day and the hour of a time come from the caller (the service knows the zones).
//
// - Expectancy is the average net P&L per trade (the same as win rate × average win + loss rate ×
//   average loss); in R, the average R of the trades that have one (a trade without an initial stop
//   has no R and is left out of it, counted in `tradesWithR`).
// - A trade belongs to the trading day and weekday of its exit (when its P&L is realized), and to the
//   hour of its entry (when the decision was taken): TraderSync and FX Replay count the same.

export interface ReviewedTrade {
  entryTimeS: number;
  exitTimeS: number;
  pnlCents: number;
  rMultiple: number | null;
}

/** P&L of a group of trades: a day, a weekday, an hour. */
export interface Bucket {
  trades: number;
  wins: number;
  losses: number;
  pnlCents: number;
}

export interface ReviewStats {
  trades: number;
  expectancyCents: number;
  /** Two decimals; null when no trade has an R. */
  expectancyR: number | null;
  tradesWithR: number;
  /** By trading day (a day number, days since 1970-01-01), oldest first. */
  days: Array<Bucket & { day: number }>;
  /** By the weekday of the trading day (1 Monday … 5 Friday), only those with trades. */
  weekdays: Array<Bucket & { weekday: number }>;
  /** By the hour of the entry (0–23) in the caller's zone, only those with trades. */
  hours: Array<Bucket & { hour: number }>;
}

export interface ReviewClock {
  /** The trading day (day number) a time belongs to. */
  tradingDay(epochS: number): number;
  /** The hour (0–23) of a time in the reader's zone. */
  hour(epochS: number): number;
}

function add(m: Map<number, Bucket>, key: number, pnlCents: number): void {
  let b = m.get(key);
  if (!b) m.set(key, (b = { trades: 0, wins: 0, losses: 0, pnlCents: 0 }));
  b.trades++;
  if (pnlCents > 0) b.wins++;
  else if (pnlCents < 0) b.losses++;
  b.pnlCents += pnlCents;
}

function sorted<K extends string>(m: Map<number, Bucket>, name: K): Array<Bucket & Record<K, number>> {
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([k, b]) => ({ [name]: k, ...b }) as Bucket & Record<K, number>);
}

/** Weekday of a day number, 1 Monday … 7 Sunday (1970-01-01 was a Thursday). */
export function isoWeekday(day: number): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

export function reviewStats(trades: Iterable<ReviewedTrade>, clock: ReviewClock): ReviewStats {
  const days = new Map<number, Bucket>();
  const weekdays = new Map<number, Bucket>();
  const hours = new Map<number, Bucket>();
  let n = 0;
  let pnl = 0;
  let rSum = 0;
  let rCount = 0;
  for (const t of trades) {
    n++;
    pnl += t.pnlCents;
    if (t.rMultiple !== null) {
      rSum += t.rMultiple;
      rCount++;
    }
    const day = clock.tradingDay(t.exitTimeS);
    add(days, day, t.pnlCents);
    add(weekdays, isoWeekday(day), t.pnlCents);
    add(hours, clock.hour(t.entryTimeS), t.pnlCents);
  }
  return {
    trades: n,
    expectancyCents: n === 0 ? 0 : Math.round(pnl / n),
    expectancyR: rCount === 0 ? null : Math.round((rSum / rCount) * 100) / 100,
    tradesWithR: rCount,
    days: sorted(days, 'day'),
    weekdays: sorted(weekdays, 'weekday'),
    hours: sorted(hours, 'hour'),
  };
}
