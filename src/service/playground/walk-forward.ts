// Walk-forward analysis of an optimisation. Pure: trade dates in, windows out; out-of-sample runs'
// curves and trades in, one stitched curve and its statistics out.
//
// - Windows count trade dates that hold bars (a weekend or holiday is not a day of a window): window
//   k's in-sample part is the `inSampleDays` trade dates from the k × `outOfSampleDays`-th, its
//   out-of-sample part the `outOfSampleDays` trade dates right after; windows roll forward by the
//   out-of-sample length while a whole out-of-sample part fits in the span, so the out-of-sample
//   parts tile the span after the first in-sample part without overlapping.
// - Each in-sample part is optimised like a whole optimisation; the best combination's params (the
//   objective and constraints of the request) run once on the out-of-sample part. A window without a
//   qualifying combination has no out-of-sample run.
// - The stitched out-of-sample curve chains the runs: each starts where the previous ended (the
//   starting balance plus the P&L so far). Its statistics are engine/results.ts's over every
//   out-of-sample trade, with the drawdown measured on the stitched curve.

import { DrawdownTracker, type RunStats, type TradeTally } from '../../engine/results.ts';
import type { EquityPoint } from './ledger.ts';

export interface WindowPlan {
  /** Indexes into the trade dates given. */
  inSample: [number, number];
  outOfSample: [number, number];
}

export function walkForwardWindows(days: number, inSampleDays: number, outOfSampleDays: number): WindowPlan[] {
  const out: WindowPlan[] = [];
  for (let first = 0; first + inSampleDays + outOfSampleDays <= days; first += outOfSampleDays) {
    const oos = first + inSampleDays;
    out.push({ inSample: [first, oos - 1], outOfSample: [oos, oos + outOfSampleDays - 1] });
  }
  return out;
}

export interface OutOfSampleRun {
  equity: readonly EquityPoint[];
  finalBalanceCents: number;
}

export interface Stitched {
  equity: EquityPoint[];
  stats: RunStats;
  /** Percent of the starting balance, two decimals. */
  returnPct: number;
}

/**
 * The out-of-sample runs chained in order, thinned evenly to at most `pointsMax` points (the last
 * kept); `trades` holds every out-of-sample trade, tallied (the caller reads them a page at a time).
 */
export function stitch(runs: readonly OutOfSampleRun[], trades: TradeTally, startingBalanceCents: number, pointsMax: number): Stitched {
  const all: EquityPoint[] = [];
  const dd = new DrawdownTracker(startingBalanceCents);
  let offset = 0;
  for (const r of runs) {
    for (const p of r.equity) {
      const q = { timeS: p.timeS, equityCents: p.equityCents + offset };
      dd.update(q.equityCents);
      all.push(q);
    }
    offset += r.finalBalanceCents - startingBalanceCents;
  }
  const final = startingBalanceCents + offset;
  const stats = trades.stats(startingBalanceCents, final, dd.maxDrawdownCents);
  return { equity: thin(all, pointsMax), stats, returnPct: Math.round((offset / startingBalanceCents) * 10_000) / 100 };
}

function thin(points: EquityPoint[], max: number): EquityPoint[] {
  if (points.length <= max) return points;
  const out: EquityPoint[] = [];
  const step = (points.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(points[Math.round(i * step)]);
  return out;
}
