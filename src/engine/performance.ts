// Performance statistics of a backtest, beside the trade statistics of results.ts: return and CAGR,
// Sharpe, Sortino and Calmar, exposure, expectancy, average trade duration, longest drawdown
// duration, monthly returns, and a buy-and-hold benchmark over the same span.
// Pure: cents, epoch seconds and day numbers in, plain numbers out; no I/O, no clock. Any result
// view (the playground's runs, Replay/end, the desk's journal) can feed it.
//
// The model, stated once (docs/decisions.md, "Playground"):
// - Returns are of equity (balance + open P&L, marked at bar closes) against the starting balance.
// - Daily returns: from the equity at each trade date's close (the last bar close of the trade date;
//   the first return is against the starting balance). Trade dates without a bar do not exist here.
// - Sharpe = mean / sample standard deviation (n − 1) of the daily returns × √252; Sortino = mean /
//   downside deviation (√(Σ min(r, 0)² / n), target 0) × √252. Risk-free rate 0. 252 trade dates a
//   year. null with fewer than two daily returns, a zero deviation, or an equity that reached 0.
// - Calmar = annualised return of the daily returns ((Π(1 + r))^(252 / n) − 1) / |maximum drawdown
//   of the daily closes| (the deepest fall from a running peak, the start included, as a fraction of
//   that peak): empyrical's calmar_ratio. null with fewer than two daily returns or no drawdown.
// - Expectancy = the mean net P&L of a trade (Σ pnl / trades), cents; null without trades.
// - Buy and hold: one contract bought at the first bar's open and sold at the last bar's close, no
//   fees; its P&L against the starting balance, and the price's own change in percent.
// - CAGR = (final / start)^(1 / years) − 1, years = the span played / 365.25 days.
// - Exposure = share of bars during which a position was open (held at the bar's start or after its
//   fills; a position opened at a bar's close counts from the next bar).
// - Drawdown duration = time from an equity peak (the start counts as one) to the first bar close
//   back at or above it, or to the end of the run if it never came back.
// - Monthly returns: the equity at a month's last trade-date close against the previous month's
//   (the starting balance for the first month); months are the trade dates' calendar months.

import { civilFromDays } from '../lib/civil-date.ts';

/** Trade dates a year, for annualising daily Sharpe and Sortino ratios. */
export const TRADE_DATES_PER_YEAR = 252;
const YEAR_S = 365.25 * 86_400;

export interface DailyClose {
  /** The trade date (days since 1970-01-01). */
  day: number;
  equityCents: number;
}

export interface PerformanceInput {
  startingBalanceCents: number;
  finalEquityCents: number;
  /** The span played: the first bar's open to the last bar's end, epoch seconds. */
  startS: number;
  endS: number;
  /** Equity at each trade date's close, oldest first. */
  dailyCloses: readonly DailyClose[];
  trades: readonly { entryTimeS: number; exitTimeS: number; pnlCents: number }[];
  exposedBars: number;
  bars: number;
  longestDrawdownS: number;
  /** The first bar's open and the last bar's close (one contract's P&L between them); null before a bar. */
  benchmark: { entryPriceTicks: number; exitPriceTicks: number; pnlCents: number } | null;
}

/** One contract held over the whole span (the model above). */
export interface BuyAndHold {
  entryPriceTicks: number;
  exitPriceTicks: number;
  pnlCents: number;
  /** The P&L against the starting balance, percent, two decimals. */
  returnPct: number;
  /** The price's change, percent, two decimals. */
  priceChangePct: number;
}

export interface MonthlyReturn {
  /** YYYY-MM. */
  month: string;
  /** Percent, two decimals. */
  returnPct: number;
}

export interface Performance {
  /** Percent of the starting balance, two decimals. */
  returnPct: number;
  /** Percent a year, two decimals; null for an empty span or when not finite. */
  cagrPct: number | null;
  sharpeRatio: number | null;
  sortinoRatio: number | null;
  calmarRatio: number | null;
  /** Mean net P&L a trade, cents, rounded; null without trades. */
  expectancyCents: number | null;
  /** 0–100, two decimals. */
  exposurePct: number;
  /** Seconds, rounded; null without trades. */
  averageTradeDurationS: number | null;
  longestDrawdownS: number;
  buyAndHold: BuyAndHold | null;
  monthlyReturns: MonthlyReturn[];
}

export function performance(x: PerformanceInput): Performance {
  const start = x.startingBalanceCents;
  const returns = dailyReturns(start, x.dailyCloses);
  let durationSum = 0;
  let pnlSum = 0;
  for (const t of x.trades) {
    durationSum += t.exitTimeS - t.entryTimeS;
    pnlSum += t.pnlCents;
  }
  const n = x.trades.length;
  return {
    returnPct: round2(((x.finalEquityCents - start) / start) * 100),
    cagrPct: cagr(start, x.finalEquityCents, x.endS - x.startS),
    sharpeRatio: returns === null ? null : sharpe(returns),
    sortinoRatio: returns === null ? null : sortino(returns),
    calmarRatio: returns === null ? null : calmar(returns),
    expectancyCents: n === 0 ? null : Math.round(pnlSum / n),
    exposurePct: x.bars === 0 ? 0 : round2((x.exposedBars / x.bars) * 100),
    averageTradeDurationS: n === 0 ? null : Math.round(durationSum / n),
    longestDrawdownS: x.longestDrawdownS,
    buyAndHold: x.benchmark === null ? null : buyAndHold(start, x.benchmark),
    monthlyReturns: monthlyReturns(start, x.dailyCloses),
  };
}

/** Daily returns against the previous close (the first against `start`); null once an equity reached 0 or below. */
export function dailyReturns(start: number, closes: readonly DailyClose[]): number[] | null {
  const out: number[] = [];
  let prev = start;
  for (const c of closes) {
    if (prev <= 0) return null;
    out.push(c.equityCents / prev - 1);
    prev = c.equityCents;
  }
  return out;
}

function cagr(start: number, final: number, spanS: number): number | null {
  if (spanS <= 0) return null;
  if (final <= 0) return -100;
  const v = (Math.pow(final / start, YEAR_S / spanS) - 1) * 100;
  return Number.isFinite(v) ? round2(v) : null;
}

function sharpe(r: readonly number[]): number | null {
  const n = r.length;
  if (n < 2) return null;
  const m = mean(r);
  let ss = 0;
  for (const x of r) ss += (x - m) * (x - m);
  const sd = Math.sqrt(ss / (n - 1));
  return sd === 0 ? null : round2((m / sd) * Math.sqrt(TRADE_DATES_PER_YEAR));
}

function sortino(r: readonly number[]): number | null {
  const n = r.length;
  if (n < 2) return null;
  let ss = 0;
  for (const x of r) if (x < 0) ss += x * x;
  const dd = Math.sqrt(ss / n);
  return dd === 0 ? null : round2((mean(r) / dd) * Math.sqrt(TRADE_DATES_PER_YEAR));
}

function calmar(r: readonly number[]): number | null {
  const n = r.length;
  if (n < 2) return null;
  let growth = 1;
  let peak = 1;
  let deepest = 0;
  for (const x of r) {
    growth *= 1 + x;
    if (growth > peak) peak = growth;
    else if ((peak - growth) / peak > deepest) deepest = (peak - growth) / peak;
  }
  if (deepest === 0) return null;
  const annual = Math.pow(growth, TRADE_DATES_PER_YEAR / n) - 1;
  return Number.isFinite(annual) ? round2(annual / deepest) : null;
}

function buyAndHold(start: number, b: NonNullable<PerformanceInput['benchmark']>): BuyAndHold {
  const change = b.entryPriceTicks === 0 ? 0 : ((b.exitPriceTicks - b.entryPriceTicks) / Math.abs(b.entryPriceTicks)) * 100;
  return { ...b, returnPct: round2((b.pnlCents / start) * 100), priceChangePct: round2(change) };
}

function monthlyReturns(start: number, closes: readonly DailyClose[]): MonthlyReturn[] {
  const out: MonthlyReturn[] = [];
  let prevMonthEnd = start;
  for (let i = 0; i < closes.length; i++) {
    const month = monthOf(closes[i].day);
    if (i + 1 < closes.length && monthOf(closes[i + 1].day) === month) continue;
    const eq = closes[i].equityCents;
    out.push({ month, returnPct: prevMonthEnd <= 0 ? -100 : round2((eq / prevMonthEnd - 1) * 100) });
    prevMonthEnd = eq;
  }
  return out;
}

function monthOf(day: number): string {
  const [y, m] = civilFromDays(day);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}`;
}

function mean(r: readonly number[]): number {
  let s = 0;
  for (const x of r) s += x;
  return s / r.length;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * The longest time spent below an equity peak, fed one mark at a time (no allocation): from the peak
 * (the start counts as one) to the first mark back at or above it, or to `finish` if none came back.
 */
export class DrawdownDuration {
  private peak: number;
  private peakTimeS: number;
  private below = false;
  longestS = 0;

  constructor(startingEquityCents: number, startS: number) {
    this.peak = startingEquityCents;
    this.peakTimeS = startS;
  }

  update(equityCents: number, timeS: number): void {
    if (equityCents >= this.peak) {
      if (this.below && timeS - this.peakTimeS > this.longestS) this.longestS = timeS - this.peakTimeS;
      this.peak = equityCents;
      this.peakTimeS = timeS;
      this.below = false;
    } else {
      this.below = true;
    }
  }

  /** The longest duration, counting a drawdown still open at `endS` up to it. */
  longestUntil(endS: number): number {
    return this.below ? Math.max(this.longestS, endS - this.peakTimeS) : this.longestS;
  }
}
