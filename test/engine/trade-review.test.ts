// What the journal teaches about a round trip (src/engine/trade-review.ts) and over many
// (src/engine/session-review.ts): the initial stop among the account's orders, the path of one bar,
// a trade's excursions, R, and the buckets of the statistics. Prices in ticks.
import { describe, expect, it } from 'bun:test';
import { allocBars } from '../../src/data/bar-columns.ts';
import type { TradeRecord } from '../../src/engine/results.ts';
import { isoWeekday, reviewStats } from '../../src/engine/session-review.ts';
import { initialStopTicks, pathSpan, reviewTrade, tradeSpan } from '../../src/engine/trade-review.ts';
import { type Order, OrderSide, OrderStatus, OrderType } from '../../src/engine/types.ts';

/** A long (or short) of `qty` at `entry` ticks from time 100 to 400, exiting at `exit`. */
function trade(direction: 1 | -1, entry: number, exit: number, pnlCents: number, qty = 1): TradeRecord {
  return { direction, entryTimeS: 100, exitTimeS: 400, entryQty: qty, entryValueTicks: entry * qty, exitValueTicks: exit * qty, pnlCents, feesCents: 0 };
}

let nextId = 1;
function order(over: Partial<Order>): Order {
  return {
    id: nextId++, type: OrderType.Stop, side: OrderSide.Sell, size: 1, limitTicks: null, stopTicks: null, status: OrderStatus.Pending, fillVolume: 0,
    filledPriceTicks: null, createdS: 100, updatedS: null, slTicks: null, tpTicks: null, parentId: null, ocoId: null, triggered: false, prioritySeq: 0,
    trailTicks: null, trailExtremeTicks: null, slType: null, customTag: null, linkId: null, passive: false, legsAnchorTicks: null, ...over,
  };
}

const only = (...stops: Order[]) => ({ stops, parents: new Map<number, Order>() });

describe('initialStopTicks', () => {
  it.each([
    ['a sell stop working at the entry', [order({ stopTicks: 390 })], 390],
    ['the nearest of two, the one that would have taken the trade out first', [order({ stopTicks: 380 }), order({ stopTicks: 392 })], 392],
    ['none: a stop cancelled before the entry', [order({ stopTicks: 390, status: OrderStatus.Canceled, createdS: 50, updatedS: 90 })], null],
    ['one cancelled after the entry still counts (it was working then)', [order({ stopTicks: 390, status: OrderStatus.Canceled, updatedS: 200 })], 390],
    ['none: a stop placed after the entry', [order({ stopTicks: 390, createdS: 101 })], null],
    ['none: a buy stop (the entry side of a long)', [order({ stopTicks: 390, side: OrderSide.Buy })], null],
    ['none: a limit (a target, not a stop)', [order({ type: OrderType.Limit, limitTicks: 420 })], null],
  ])('long at 400: %s', (_, stops, want) => {
    expect(initialStopTicks(trade(1, 400, 410, 0), only(...stops))).toBe(want);
  });

  it('reads a trailing stop placed as the trade opened from the entry less its trail, not from where it ratcheted', () => {
    const trail = order({ type: OrderType.TrailingStop, trailTicks: 12, stopTicks: 430, trailExtremeTicks: 442 });
    expect(initialStopTicks(trade(1, 400, 430, 0), only(trail))).toBe(388);
    // Placed earlier, it reads at its kept price.
    expect(initialStopTicks(trade(1, 400, 430, 0), only({ ...trail, createdS: 90 }))).toBe(430);
  });

  it("reads a bracket leg's price from its entry (anchor − distance), not the leg's later price", () => {
    const entry = order({ type: OrderType.Market, side: OrderSide.Buy, status: OrderStatus.Filled, filledPriceTicks: 400, slTicks: 8, updatedS: 100 });
    const leg = order({ stopTicks: 400, parentId: entry.id }); // dragged to breakeven after the entry
    expect(initialStopTicks(trade(1, 400, 410, 0), { stops: [leg], parents: new Map([[entry.id, entry]]) })).toBe(392);
    // A short's leg sits above a limit entry's own price.
    const short = order({ type: OrderType.Limit, side: OrderSide.Sell, status: OrderStatus.Filled, limitTicks: 500, filledPriceTicks: 500, slTicks: 12, updatedS: 100 });
    const up = order({ stopTicks: 520, side: OrderSide.Buy, type: OrderType.TrailingStop, parentId: short.id });
    expect(initialStopTicks(trade(-1, 500, 490, 0), { stops: [up], parents: new Map([[short.id, short]]) })).toBe(512);
  });
});

describe('pathSpan: open, the nearer extreme, the other, close', () => {
  it.each([
    ['whole bar', 101, 102, 97, 98, true, null, null, { low: 97, high: 102 }],
    ['up to the first touch of 99 (high first: it is nearer)', 101, 102, 97, 98, true, null, 99, { low: 99, high: 102 }],
    ['from the first touch of 99 to the close', 101, 102, 97, 98, true, 99, null, { low: 97, high: 99 }],
    ['low first when nearer: 100 is touched before the high', 101, 110, 100, 105, true, null, 100, { low: 100, high: 101 }],
    ['a tie goes against a long first (low)', 100, 104, 96, 100, true, null, 98, { low: 98, high: 100 }],
    ['a tie goes against a short first (high)', 100, 104, 96, 100, false, null, 98, { low: 98, high: 104 }],
    ['a price never touched', 100, 101, 99, 100, true, 95, null, null],
  ])('%s', (_, o, h, l, c, long, from, to, want) => {
    expect(pathSpan(o, h, l, c, long, from, to)).toEqual(want);
  });
});

describe('tradeSpan and reviewTrade', () => {
  // Stored bars at 100, 200, 300, 400 (the trade's entry at 100, exit at 400).
  const bars = allocBars(4);
  bars.length = 4;
  for (const [i, [o, h, l, c]] of [[400, 405, 398, 402], [402, 412, 401, 410], [410, 411, 395, 396], [396, 420, 380, 400]].entries()) {
    bars.time[i] = 100 + i * 100;
    [bars.open[i], bars.high[i], bars.low[i], bars.close[i]] = [o, h, l, c];
  }

  it('counts the bars in [entry, exit) whole and leaves a market exit\'s bar out', () => {
    expect(tradeSpan(trade(1, 400, 396, 0), [bars], { entryWalked: false, exitWalked: false })).toEqual({ low: 395, high: 412 });
  });

  it("counts a working order's entry bar from the entry's first touch", () => {
    // A sell limit at 404 filled on the 100 bar: its path goes 400 → 398 (nearer) → 405 → 402, so the 398 came before the entry.
    const short = { ...trade(-1, 404, 402, 0), exitTimeS: 200 };
    expect(tradeSpan(short, [bars], { entryWalked: true, exitWalked: false })).toEqual({ low: 402, high: 405 });
    expect(tradeSpan(short, [bars], { entryWalked: false, exitWalked: false })).toEqual({ low: 398, high: 405 });
  });

  it("counts a working order's exit bar up to the exit's first touch", () => {
    // The 400 bar opens at 396; its low (16 away) is nearer than its high (24): 390 is touched on the way down, before 420.
    expect(tradeSpan(trade(1, 400, 390, 0), [bars], { entryWalked: false, exitWalked: true })).toEqual({ low: 390, high: 412 });
  });

  it('R from the stop, MAE/MFE in ticks and cents for the contracts; no stop, or one beyond the entry, no R', () => {
    const t = trade(1, 400, 396, -4 * 2 * 500 - 560, 2); // 4 ticks lost on 2 contracts at $5 a tick, $5.60 fees
    expect(reviewTrade(t, 392, [bars], { entryWalked: false, exitWalked: false }, 500)).toEqual({
      initialStopTicks: 392, riskCents: 8 * 2 * 500, rMultiple: -0.57, maeTicks: 5, mfeTicks: 12, maeCents: 5 * 2 * 500, mfeCents: 12 * 2 * 500, durationS: 300,
    });
    expect(reviewTrade(t, null, [], { entryWalked: false, exitWalked: false }, 500)).toMatchObject({ riskCents: null, rMultiple: null, maeTicks: 4, mfeTicks: 0 });
    expect(reviewTrade(t, 400, [], { entryWalked: false, exitWalked: false }, 500)).toMatchObject({ initialStopTicks: 400, riskCents: null, rMultiple: null });
  });
});

describe('reviewStats', () => {
  it('expectancy in dollars and R, and buckets by day, weekday and hour', () => {
    const clock = { tradingDay: (s: number) => Math.floor(s / 86_400), hour: (s: number) => Math.floor((s % 86_400) / 3600) };
    const monday = 20_150; // 2025-03-03
    const at = (day: number, hour: number) => day * 86_400 + hour * 3600;
    const s = reviewStats(
      [
        { entryTimeS: at(monday, 14), exitTimeS: at(monday, 15), pnlCents: 10_000, rMultiple: 2 },
        { entryTimeS: at(monday, 15), exitTimeS: at(monday, 15), pnlCents: -5_001, rMultiple: -1 },
        { entryTimeS: at(monday + 1, 14), exitTimeS: at(monday + 1, 16), pnlCents: 0, rMultiple: null },
      ],
      clock,
    );
    expect(s).toEqual({
      trades: 3, expectancyCents: 1666, expectancyR: 0.5, tradesWithR: 2,
      days: [{ day: monday, trades: 2, wins: 1, losses: 1, pnlCents: 4999 }, { day: monday + 1, trades: 1, wins: 0, losses: 0, pnlCents: 0 }],
      weekdays: [{ weekday: 1, trades: 2, wins: 1, losses: 1, pnlCents: 4999 }, { weekday: 2, trades: 1, wins: 0, losses: 0, pnlCents: 0 }],
      hours: [{ hour: 14, trades: 2, wins: 1, losses: 0, pnlCents: 10_000 }, { hour: 15, trades: 1, wins: 0, losses: 1, pnlCents: -5_001 }],
    });
    expect([isoWeekday(monday), isoWeekday(monday + 4), isoWeekday(monday + 6), isoWeekday(0)]).toEqual([1, 5, 7, 4]);
  });
});
