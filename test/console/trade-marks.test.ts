// Trades as chart markers (src/console/pages/playground/trade-marks.ts): marks per entry and exit,
// and the grouping that keeps a side's markers at least a cell apart at any zoom.
import { describe, expect, it } from 'bun:test';
import { groupMarks, tradeMarks } from '../../src/console/pages/playground/trade-marks.ts';
import type { Trade } from '../../src/console/pages/playground/types.ts';

const T0 = Date.parse('2025-03-03T14:00:00Z') / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const bars = Array.from({ length: 100 }, (_, i) => T0 + 60 * i);

function trade(side: 'long' | 'short', entryBar: number, exitBar: number, pnl: number): Trade {
  return { side, size: 1, entryTime: iso(T0 + 60 * entryBar + 5), entryPrice: 100, exitTime: iso(T0 + 60 * exitBar + 5), exitPrice: 101, pnl, fees: 0 };
}

describe('trade marks', () => {
  it('an entry and an exit per trade, on the bar holding each time; a reversal shares one mark', () => {
    const trades = [trade('long', 1, 3, 20), trade('short', 3, 6, -5), trade('long', 9, 10, 7)];
    expect(tradeMarks(trades, bars).map((m) => [m.bar, m.side, m.trade, m.exit, m.text])).toEqual([
      [1, 'buy', 0, false, 'Long 1'],
      [3, 'sell', 0, false, '+20'], // the long's exit is the short's entry
      [6, 'buy', 1, true, '−5'],
      [9, 'buy', 2, false, 'Long 1'],
      [10, 'sell', 2, true, '+7'],
    ]);
  });

  it('groups marks of a side closer than the cell, keeps them apart by at least the cell, and draws the focused trade alone', () => {
    const trades = Array.from({ length: 20 }, (_, i) => trade('long', 2 * i, 2 * i + 1, 1));
    const marks = tradeMarks(trades, bars);
    expect(groupMarks(marks, 1, null, false).length).toBe(40); // one bar a cell: nothing shares
    const grouped = groupMarks(marks, 10, null, false);
    for (const side of ['buy', 'sell'] as const) {
      const at = grouped.filter((g) => g.side === side).map((g) => g.bar);
      expect(at).toEqual([0, 10, 20, 30].map((b) => b + (side === 'sell' ? 1 : 0)));
      expect(grouped.filter((g) => g.side === side).map((g) => [g.count, g.kind, g.text])).toEqual(Array(4).fill([5, 'group', '5']));
    }
    const focused = groupMarks(marks, 10, 7, true);
    expect(focused.filter((g) => g.kind === 'focused').map((g) => [g.bar, g.side, g.text])).toEqual([
      [14, 'buy', 'Long 1'],
      [15, 'sell', '+1'],
    ]);
    // Every mark is drawn once: in a group, alone, or as the focused trade's.
    expect(focused.reduce((n, g) => n + g.count, 0)).toBe(40);
  });
});
