// Backtest results from an engine's fill log: round-trip trades and the summary statistics every
// result view shows (the playground's runs, the earlier family's Replay/end `results`). Pure: ticks
// and cents in, ticks and cents out; adapters convert to prices and dollars.
//
// A trade is a round trip from flat to flat (backtrader and most platforms count the same way).
// Adding to a position extends the trade; a fill that reverses the position closes the trade with
// the contracts that flatten it and opens the next with the rest. Fees belong to the contracts that
// pay them (fees are per contract per side, so the split of a reversing fill is exact). A trade's
// P&L is its realized P&L (FIFO, from the engine) minus all its fees.

import type { Fill } from './types.ts';
import { OrderSide } from './types.ts';

export interface TradeRecord {
  /** 1 long, -1 short. */
  direction: 1 | -1;
  entryTimeS: number;
  exitTimeS: number;
  /** Contracts opened over the trade (the largest position when it was built in steps). */
  entryQty: number;
  /** Σ size × price of the opening fills, and of the closing fills: averages are value / qty. */
  entryValueTicks: number;
  exitValueTicks: number;
  pnlCents: number;
  feesCents: number;
  /** The contract's place in a run's instruments (0 or absent: the main one); set by a run over several instruments. */
  leg?: number;
  /** The instrument's symbol, set by a replay session over several instruments (absent: the session's own). */
  symbol?: string;
}

export interface RunStats {
  totalPnlCents: number;
  totalTrades: number;
  winningTrades: number;
  losingTrades: number;
  /** 0–100, two decimals; 0 without trades. */
  winRate: number;
  averageWinCents: number;
  /** ≤ 0. */
  averageLossCents: number;
  largestWinCents: number;
  /** ≤ 0. */
  largestLossCents: number;
  /** Gross wins / gross losses, two decimals; null when there is no losing trade. */
  profitFactor: number | null;
  /** ≤ 0: the deepest fall of equity below its running peak. */
  maxDrawdownCents: number;
  finalBalanceCents: number;
}

/** Folds fills into round-trip trades, one fill at a time. */
export class TradeBook {
  readonly closed: TradeRecord[] = [];
  private qty = 0;
  private open: TradeRecord | null = null;

  /** Contracts held (signed) after the fills seen so far. */
  get position(): number {
    return this.qty;
  }

  add(f: Fill): void {
    const sign = f.side === OrderSide.Buy ? 1 : -1;
    const feePerContract = f.feeCents / f.size;
    let remaining = f.size;
    const t = this.open;
    if (t !== null && this.qty !== 0 && Math.sign(this.qty) !== sign) {
      const closing = Math.min(remaining, Math.abs(this.qty));
      t.exitValueTicks += closing * f.priceTicks;
      t.feesCents += feePerContract * closing;
      t.pnlCents += f.realizedPnlCents - feePerContract * closing;
      this.qty += sign * closing;
      remaining -= closing;
      if (this.qty === 0) {
        t.exitTimeS = f.timeS;
        this.closed.push(t);
        this.open = null;
      }
    }
    if (remaining > 0) {
      if (this.open === null) {
        this.open = { direction: sign, entryTimeS: f.timeS, exitTimeS: f.timeS, entryQty: 0, entryValueTicks: 0, exitValueTicks: 0, pnlCents: 0, feesCents: 0 };
      }
      const o = this.open;
      o.entryQty += remaining;
      o.entryValueTicks += remaining * f.priceTicks;
      o.feesCents += feePerContract * remaining;
      o.pnlCents -= feePerContract * remaining;
      this.qty += sign * remaining;
    }
  }
}

/** Tracks the running equity peak and the deepest drawdown below it. */
export class DrawdownTracker {
  private peak: number;
  maxDrawdownCents = 0;

  constructor(startingEquityCents: number) {
    this.peak = startingEquityCents;
  }

  update(equityCents: number): void {
    if (equityCents > this.peak) this.peak = equityCents;
    const dd = equityCents - this.peak;
    if (dd < this.maxDrawdownCents) this.maxDrawdownCents = dd;
  }
}

export function runStats(trades: readonly TradeRecord[], startingBalanceCents: number, finalBalanceCents: number, maxDrawdownCents: number): RunStats {
  const tally = new TradeTally();
  for (const t of trades) tally.add(t);
  return tally.stats(startingBalanceCents, finalBalanceCents, maxDrawdownCents);
}

/**
 * Round trips folded one at a time into what `runStats` reads of them, so statistics over more
 * trades than fit in memory at once (a walk-forward's out-of-sample runs, read a page at a time)
 * are the same as over the whole list.
 */
export class TradeTally {
  count = 0;
  private readonly wins = new SideTally(1);
  private readonly losses = new SideTally(-1);

  add(t: TradeRecord): void {
    this.count++;
    if (t.pnlCents > 0) this.wins.add(t.pnlCents);
    else if (t.pnlCents < 0) this.losses.add(t.pnlCents);
  }

  stats(startingBalanceCents: number, finalBalanceCents: number, maxDrawdownCents: number): RunStats {
    const { count: n, wins, losses } = this;
    return {
      totalPnlCents: finalBalanceCents - startingBalanceCents,
      totalTrades: n,
      winningTrades: wins.n,
      losingTrades: losses.n,
      winRate: n === 0 ? 0 : round2((wins.n / n) * 100),
      averageWinCents: wins.averageCents(),
      averageLossCents: losses.averageCents(),
      largestWinCents: wins.largestCents,
      largestLossCents: losses.largestCents,
      profitFactor: losses.n === 0 ? null : round2(wins.grossCents / -losses.grossCents),
      maxDrawdownCents,
      finalBalanceCents,
    };
  }
}

/** One side of a tally, the winning or the losing trades (all of `sign`): how many, their sum, the largest. */
class SideTally {
  n = 0;
  grossCents = 0;
  largestCents = 0;

  constructor(private readonly sign: 1 | -1) {}

  add(pnlCents: number): void {
    this.n++;
    this.grossCents += pnlCents;
    if (pnlCents * this.sign > this.largestCents * this.sign) this.largestCents = pnlCents;
  }

  averageCents(): number {
    return this.n === 0 ? 0 : Math.round(this.grossCents / this.n);
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
