// The journal chart's trade marks (session-chart.tsx), pure: an entry and an exit per round trip,
// merged by the bar and side they land on so a scalper's trades never stack into a tower.

import { toSeconds } from '../../chart-rows.ts';

/** A mark as the chart takes it (chart-overlays.ts MarkerSpec; kept apart from the DOM-bound chart for the tests). */
export interface MarkerSpec {
  time: string | number;
  side: 'buy' | 'sell';
  text?: string;
}

/** What a mark reads of a trade (model.ts JournalTrade and ReviewTrade have it). */
interface Trade {
  tradeNumber: number;
  side: 'long' | 'short';
  size: number;
  entryTime: string;
  exitTime: string;
  pnl: number;
  symbol?: string;
}

/**
 * The symbol of the session's (first) instrument, from its contract's name (`NQZ6` → `NQ`: the symbol,
 * the month's letter, the year's last digit). Trades of a session over several instruments name their own.
 */
export function sessionSymbol(d: { contract: { name: string } }): string {
  return d.contract.name.slice(0, -2);
}

/**
 * Entry and exit of every trade: an entry on the trade's side, its exit on the other. `symbol`: the
 * charted instrument; a trade of another contract of the session (it names its own) is not its to mark.
 */
export function tradeMarkers(trades: readonly Trade[], symbol?: string): MarkerSpec[] {
  const out: MarkerSpec[] = [];
  for (const t of trades) {
    if (symbol !== undefined && t.symbol !== undefined && t.symbol !== symbol) continue;
    const entry = t.side === 'long' ? 'buy' : 'sell';
    const exit = t.side === 'long' ? 'sell' : 'buy';
    out.push({ time: t.entryTime, side: entry, text: `#${t.tradeNumber} ${t.side === 'long' ? 'L' : 'S'}${t.size}` });
    out.push({ time: t.exitTime, side: exit, text: `#${t.tradeNumber} ${t.pnl >= 0 ? '+' : ''}${t.pnl.toFixed(0)}` });
  }
  return out.sort((a, b) => toSeconds(a.time) - toSeconds(b.time));
}

/**
 * The marks merged by the bar they land on (`barOf`) and their side: one mark per bar and side,
 * its text the first mark's and the last's (`#1 L2 … #4 +30 (5)` for five).
 */
export function mergedMarkers(marks: readonly MarkerSpec[], barOf: (s: number) => number): MarkerSpec[] {
  const groups = new Map<string, MarkerSpec[]>();
  for (const m of marks) {
    const key = `${barOf(toSeconds(m.time))}:${m.side}`;
    const g = groups.get(key);
    if (g) g.push(m);
    else groups.set(key, [m]);
  }
  return [...groups.values()].map((g) => {
    if (g.length === 1) return g[0];
    const text = g.length === 2 ? `${g[0].text} · ${g[1].text}` : `${g[0].text} … ${g[g.length - 1].text} (${g.length})`;
    return { ...g[0], text };
  });
}

