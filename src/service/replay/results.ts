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

import { limits } from '../../config.ts';
import { DrawdownTracker, runStats, type RunStats, TradeBook } from '../../engine/results.ts';
import type { Fill } from '../../engine/types.ts';

/** `fills` oldest first; `finalBalanceCents` the account's balance after them. */
export function sessionResults(fills: readonly Fill[], finalBalanceCents: number): RunStats {
  let netCents = 0;
  for (const f of fills) netCents += f.realizedPnlCents - f.feeCents;
  const startingBalanceCents = finalBalanceCents - netCents;
  const book = new TradeBook();
  const dd = new DrawdownTracker(startingBalanceCents);
  let balanceCents = startingBalanceCents;
  for (const f of fills) {
    book.add(f);
    balanceCents += f.realizedPnlCents - f.feeCents;
    dd.update(balanceCents);
  }
  return runStats(book.closed, startingBalanceCents, finalBalanceCents, dd.maxDrawdownCents);
}
