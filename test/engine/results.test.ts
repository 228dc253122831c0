// Round-trip trades and run statistics from fills (src/engine/results.ts).
import { describe, expect, it } from 'bun:test';
import { DrawdownTracker, runStats, TradeBook, TradeTally } from '../../src/engine/results.ts';
import { type Fill, OrderSide } from '../../src/engine/types.ts';

let nextId = 1;
function fill(side: 'buy' | 'sell', size: number, priceTicks: number, timeS: number, realizedPnlCents = 0, feePerContract = 140): Fill {
  return { id: nextId++, orderId: nextId, side: side === 'buy' ? OrderSide.Buy : OrderSide.Sell, size, priceTicks, timeS, feeCents: feePerContract * size, realizedPnlCents };
}

describe('TradeBook', () => {
  it('a round trip from flat to flat is one trade, net of the fees of both sides', () => {
    const b = new TradeBook();
    b.add(fill('buy', 2, 80_000, 100));
    b.add(fill('sell', 2, 80_010, 200, 2 * 10 * 500));
    expect(b.closed).toEqual([{ direction: 1, entryTimeS: 100, exitTimeS: 200, entryQty: 2, entryValueTicks: 160_000, exitValueTicks: 160_020, pnlCents: 10_000 - 560, feesCents: 560 }]);
    expect(b.position).toBe(0);
  });

  it('adding and partial exits extend one trade; a reversal closes it and opens the next with the rest', () => {
    const b = new TradeBook();
    b.add(fill('sell', 1, 100, 1));
    b.add(fill('sell', 1, 104, 2));
    b.add(fill('buy', 1, 98, 3, 200));
    // Reverses: 1 contract closes the short, 2 open a long.
    b.add(fill('buy', 3, 96, 4, 800));
    expect(b.closed).toHaveLength(1);
    expect(b.closed[0]).toMatchObject({ direction: -1, entryQty: 2, entryValueTicks: 204, exitValueTicks: 194, feesCents: 4 * 140, pnlCents: 1000 - 560 });
    b.add(fill('sell', 2, 99, 5, 600));
    expect(b.closed[1]).toMatchObject({ direction: 1, entryTimeS: 4, exitTimeS: 5, entryQty: 2, entryValueTicks: 192, exitValueTicks: 198, feesCents: 4 * 140, pnlCents: 600 - 560 });
  });
});

describe('runStats', () => {
  it('counts wins and losses, averages, extremes, profit factor and win rate', () => {
    const t = (pnlCents: number) => ({ direction: 1 as const, entryTimeS: 0, exitTimeS: 1, entryQty: 1, entryValueTicks: 1, exitValueTicks: 1, pnlCents, feesCents: 0 });
    expect(runStats([t(300), t(-100), t(100), t(-200)], 5_000_000, 5_000_100, -250)).toEqual({
      totalPnlCents: 100, totalTrades: 4, winningTrades: 2, losingTrades: 2, winRate: 50, averageWinCents: 200, averageLossCents: -150,
      largestWinCents: 300, largestLossCents: -200, profitFactor: 1.33, maxDrawdownCents: -250, finalBalanceCents: 5_000_100,
    });
  });

  it('without trades: zeros, and no profit factor without a losing trade', () => {
    expect(runStats([], 5_000_000, 5_000_000, 0)).toMatchObject({ totalTrades: 0, winRate: 0, profitFactor: null, averageWinCents: 0 });
  });
});

describe('TradeTally', () => {
  it('folded a trade at a time in any grouping, gives runStats\' answer over the whole list', () => {
    const t = (pnlCents: number) => ({ direction: 1 as const, entryTimeS: 0, exitTimeS: 1, entryQty: 1, entryValueTicks: 1, exitValueTicks: 1, pnlCents, feesCents: 0 });
    const trades = Array.from({ length: 2500 }, (_, i) => t(((i * 7919) % 1001) - 480));
    const tally = new TradeTally();
    // In pages of 1,000, as a walk-forward's stitched results read them.
    for (let from = 0; from < trades.length; from += 1000) for (const x of trades.slice(from, from + 1000)) tally.add(x);
    expect(tally.count).toBe(2500);
    expect(tally.stats(5_000_000, 5_123_456, -7_000)).toEqual(runStats(trades, 5_000_000, 5_123_456, -7_000));
  });
});

describe('DrawdownTracker', () => {
  it('measures the deepest fall below the running peak', () => {
    const d = new DrawdownTracker(1000);
    for (const e of [1100, 900, 1200, 1150, 700, 1300]) d.update(e);
    expect(d.maxDrawdownCents).toBe(-500);
  });
});
