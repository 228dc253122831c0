// The journal's pure parts: a session's fold (statistics, trades and the balance curve from its
// fills) and the thinning of a long curve.
import { describe, expect, it } from 'bun:test';
import { OrderSide, type Fill } from '../../src/engine/types.ts';
import { thinned } from '../../src/service/journal.ts';
import { foldSession, sessionResults } from '../../src/service/replay/results.ts';

const fill = (id: number, side: OrderSide, timeS: number, realizedPnlCents: number, feeCents = 140): Fill =>
  ({ id, orderId: id, side, size: 1, priceTicks: 400, timeS, feeCents, realizedPnlCents }) as Fill;

describe('foldSession', () => {
  it('starts the curve before the first fill and merges fills of one second into one point', () => {
    const fills = [fill(1, OrderSide.Buy, 100, 0), fill(2, OrderSide.Sell, 160, 4000), fill(3, OrderSide.Buy, 160, 0), fill(4, OrderSide.Sell, 220, -8000)];
    const final = 5_000_000 + 4000 - 8000 - 4 * 140;
    const f = foldSession(fills, final, 100);
    expect(f.equity).toEqual([
      { timeS: 99, balanceCents: 5_000_000 },
      { timeS: 100, balanceCents: 5_000_000 - 140 },
      { timeS: 160, balanceCents: 5_000_000 - 140 + 4000 - 280 },
      { timeS: 220, balanceCents: final },
    ]);
    expect(f.trades.map((t) => t.pnlCents)).toEqual([4000 - 280, -8000 - 280]);
    expect(f.stats).toEqual(sessionResults(fills, final));
  });

  it('has only the start without fills', () => {
    expect(foldSession([], 5_000_000, 500).equity).toEqual([{ timeS: 500, balanceCents: 5_000_000 }]);
  });
});

describe('thinned', () => {
  const curve = (n: number) => Array.from({ length: n }, (_, i) => ({ timeS: i, balanceCents: i }));
  it('keeps a short curve whole', () => expect(thinned(curve(5), 5)).toEqual(curve(5)));
  it('keeps the first and the last point, evenly spaced, at most max', () => {
    expect(thinned(curve(101), 11).map((p) => p.timeS)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });
});
