// The journal's chart marks over a session of several instruments (src/console/pages/journal/marks.ts,
// drawn by session-chart.tsx): the chart shows the session's first instrument, so only its trades are marked
// there; a trade naming another contract is left to the table. One-instrument trades name none.
import { describe, expect, it } from 'bun:test';
import { sessionSymbol, tradeMarkers } from '../../src/console/pages/journal/marks.ts';

const trade = (tradeNumber: number, symbol: string | undefined, entryTime: string, exitTime: string) => ({
  tradeNumber, side: 'long' as const, size: 1, entryTime, entryPrice: 1, exitTime, exitPrice: 2, pnl: 10, fees: 0, note: '', ...(symbol ? { symbol } : {}),
});

describe('journal chart marks', () => {
  it('marks the charted contract\'s trades only; trades naming no contract are the session\'s own', () => {
    const trades = [
      trade(1, 'NQ', '2025-03-04T15:01:00Z', '2025-03-04T15:03:00Z'),
      trade(2, 'GC', '2025-03-04T15:02:00Z', '2025-03-04T15:04:00Z'),
      trade(3, undefined, '2025-03-04T15:05:00Z', '2025-03-04T15:06:00Z'),
    ];
    expect(tradeMarkers(trades, 'NQ').map((m) => m.text)).toEqual(['#1 L1', '#1 +10', '#3 L1', '#3 +10']);
    expect(tradeMarkers(trades).length).toBe(6);
  });

  it('reads the session\'s symbol from its contract\'s name', () => {
    expect(sessionSymbol({ contract: { name: 'MNQZ6' } })).toBe('MNQ');
    expect(sessionSymbol({ contract: { name: 'GCJ5' } })).toBe('GC');
  });
});
