// The results of a replay session (the earlier family's Replay/end `results`), from its fill log
// through the product's one definition of trades and statistics (src/engine/results.ts, which the
// playground uses too).
//
// Measured on the fills alone, so a session restored after a restart (whose engine keeps no fill
// history) gets the same answer as one that never stopped:
// - trades: round trips flat to flat, FIFO, net of fees (TradeBook);
// - the starting balance is the final balance less the fills' net P&L, so a payout taken during
//   the session lowers both ends and is not counted as a loss;
// - maxDrawdown: the deepest fall of the balance below its running peak, the balance taken after
//   each fill (closed P&L). Open-position swings between fills are not seen: a replay session is
//   stepped by its client, and the balance after fills is the figure every session has whatever
//   the stepping (the playground samples equity at each bar close; both use DrawdownTracker).

import { DrawdownTracker, runStats, type RunStats, TradeBook, type TradeRecord } from '../../engine/results.ts';
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
  let netCents = 0;
  for (const f of fills) netCents += f.realizedPnlCents - f.feeCents;
  const startingBalanceCents = finalBalanceCents - netCents;
  const book = new TradeBook();
  const dd = new DrawdownTracker(startingBalanceCents);
  // The start stands before the first fill, so the curve's times strictly increase.
  const equity: EquityPoint[] = [{ timeS: Math.min(startS, (fills[0]?.timeS ?? startS + 1) - 1), balanceCents: startingBalanceCents }];
  let balanceCents = startingBalanceCents;
  for (const f of fills) {
    book.add(f);
    balanceCents += f.realizedPnlCents - f.feeCents;
    dd.update(balanceCents);
    const last = equity[equity.length - 1];
    if (last.timeS === f.timeS) last.balanceCents = balanceCents;
    else equity.push({ timeS: f.timeS, balanceCents });
  }
  return { stats: runStats(book.closed, startingBalanceCents, finalBalanceCents, dd.maxDrawdownCents), trades: book.closed, equity };
}

/** `fills` oldest first; `finalBalanceCents` the account's balance after them. */
export function sessionResults(fills: readonly Fill[], finalBalanceCents: number): RunStats {
  return foldSession(fills, finalBalanceCents, fills[0]?.timeS ?? 0).stats;
}
