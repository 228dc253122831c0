// The results of a replay session (the earlier family's Replay/end `results`), from its fill log
// through the product's one definition of trades and statistics (src/engine/results.ts, which the
// playground uses too).
//
// Measured on the fills alone, so a session restored after a restart (whose engine keeps no fill
// history) gets the same answer as one that never stopped:
// - trades: round trips flat to flat, FIFO, net of fees (TradeBook), per instrument in a session over several;
// - the starting balance is the final balance less the fills' net P&L, so a payout taken during
//   the session lowers both ends and is not counted as a loss;
// - maxDrawdown: the deepest fall of the balance below its running peak, the balance taken after
//   each fill (closed P&L). Open-position swings between fills are not seen: a replay session is
//   stepped by its client, and the balance after fills is the figure every session has whatever
//   the stepping (the playground samples equity at each bar close; both use DrawdownTracker).

import { DrawdownTracker, type RunStats, TradeBook, type TradeRecord, TradeTally } from '../../engine/results.ts';
import type { Fill } from '../../engine/types.ts';

/** The balance after the fills of one second (closed P&L less fees); the first point is the start. */
export interface EquityPoint {
  timeS: number;
  balanceCents: number;
}

/** A session's fills folded once: its statistics, its round-trip trades (oldest first) and its balance curve. */
export interface SessionFold {
  stats: RunStats;
  trades: readonly TradeRecord[];
  equity: EquityPoint[];
}

/** `fills` oldest first; `finalBalanceCents` the account's balance after them; `startS` the session's start. */
export function foldSession(fills: readonly Fill[], finalBalanceCents: number, startS: number): SessionFold {
  const folder = new SessionFolder(startS, Number.POSITIVE_INFINITY, true);
  for (const f of fills) folder.add(f);
  return folder.result(finalBalanceCents);
}

/** `fills` oldest first; `finalBalanceCents` the account's balance after them. */
export function sessionResults(fills: readonly Fill[], finalBalanceCents: number): RunStats {
  return foldSession(fills, finalBalanceCents, fills[0]?.timeS ?? 0).stats;
}

/**
 * The fold of `foldSession` a fill at a time, for fills read a page at a time: every trade is
 * tallied, the first `tradesKept` kept, and the curve kept when asked. Balances are counted from 0
 * and moved onto the starting balance at the end, once the fills' net is known (the final balance
 * less it); a drawdown is the same either way.
 */
export class SessionFolder {
  private readonly trades: TradeRecord[] = [];
  private readonly equity: EquityPoint[] = [];
  /** Round trips per instrument: a session over several keeps each fill's symbol (store/replay.ts StoredFill). */
  private readonly books = new Map<string, TradeBook>();
  private readonly tally = new TradeTally();
  private readonly dd = new DrawdownTracker(0);
  private netCents = 0;

  constructor(
    private readonly startS: number,
    private readonly tradesKept: number,
    private readonly keepEquity: boolean,
  ) {}

  add(f: Fill & { readonly symbol?: string }): void {
    // The start stands before the first fill, so the curve's times strictly increase.
    if (this.equity.length === 0 && this.keepEquity) this.equity.push({ timeS: Math.min(this.startS, f.timeS - 1), balanceCents: 0 });
    const key = f.symbol ?? '';
    let book = this.books.get(key);
    if (book === undefined) this.books.set(key, (book = new TradeBook()));
    book.add(f);
    for (const t of book.closed) {
      if (f.symbol !== undefined) t.symbol = f.symbol;
      this.tally.add(t);
      if (this.trades.length < this.tradesKept) this.trades.push(t);
    }
    book.closed.length = 0;
    this.netCents += f.realizedPnlCents - f.feeCents;
    this.dd.update(this.netCents);
    if (!this.keepEquity) return;
    const last = this.equity[this.equity.length - 1];
    if (last.timeS === f.timeS) last.balanceCents = this.netCents;
    else this.equity.push({ timeS: f.timeS, balanceCents: this.netCents });
  }

  /** Every round trip closed so far, kept or not. */
  get tradesTotal(): number {
    return this.tally.count;
  }

  result(finalBalanceCents: number): SessionFold {
    const startingBalanceCents = finalBalanceCents - this.netCents;
    if (this.equity.length === 0 && this.keepEquity) this.equity.push({ timeS: this.startS, balanceCents: 0 });
    for (const p of this.equity) p.balanceCents += startingBalanceCents;
    return { stats: this.tally.stats(startingBalanceCents, finalBalanceCents, this.dd.maxDrawdownCents), trades: this.trades, equity: this.equity };
  }
}
