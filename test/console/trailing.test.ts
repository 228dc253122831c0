// What the desk remembers of its trailing stops and what a drag of a chip asks Order/modify for
// (src/console/pages/desk/trailing.ts): the price its chip sits on, or a known trailing stop's trail
// changed by the distance dragged; and which working orders trail, as the server lists them.
import { describe, expect, it } from 'bun:test';
import { dragChange, fromServer, NO_TRAILS, placedTrailing, retrailed, trailTicksOf } from '../../src/console/pages/desk/trailing.ts';
import type { Order } from '../../src/console/pages/desk/wire.ts';

const FILL_TIME = '2025-03-10T00:05:00Z';
const order = (id: number, type: Order['type'], side: Order['side'], limitPrice: number | null, stopPrice: number | null, creationTimestamp = FILL_TIME): Order => ({
  id, contractId: 'CON.F.US.ENQ.H25', creationTimestamp, updateTimestamp: null, status: 1, type, side, size: 1, limitPrice, stopPrice, fillVolume: 0, filledPrice: null,
});
const nq = { tickSize: 0.25, fmt: (p: number) => p.toFixed(2) };

describe('a dragged chip asks Order/modify for', () => {
  it('the limit of a limit or a stop-limit (its chip is on the limit), the stop of a stop', () => {
    expect(dragChange(order(7, 1, 0, 20_010, null), 20_020, undefined, nq)).toEqual({ limitPrice: 20_020 });
    expect(dragChange(order(7, 3, 1, 19_989, 19_990), 19_985, undefined, nq)).toEqual({ limitPrice: 19_985 });
    expect(dragChange(order(7, 4, 1, null, 19_990), 19_980.25, undefined, nq)).toEqual({ stopPrice: 19_980.25 });
  });

  it('a known trailing stop\'s trail, never its stop: shorter when the stop is dragged towards the price, longer away from it', () => {
    // A sell trailing 40 ticks (10 points) under a high of 20,000: its stop at 19,990.
    const sell = order(7, 4, 1, null, 19_990);
    expect(dragChange(sell, 19_995, 40, nq)).toEqual({ trailPrice: 5 });
    expect(dragChange(sell, 19_980.5, 40, nq)).toEqual({ trailPrice: 19.5 });
    // A buy trailing 8 ticks over a low of 20,000: its stop at 20,002.
    const buy = order(8, 4, 0, null, 20_002);
    expect(dragChange(buy, 20_001, 8, nq)).toEqual({ trailPrice: 1 });
    expect(dragChange(buy, 20_000.25, 8, nq)).toEqual({ trailPrice: 0.25 });
    expect(trailTicksOf({ trailPrice: 19.5 }, 0.25)).toBe(78);
    expect(trailTicksOf({ stopPrice: 19.5 }, 0.25)).toBeNull();
  });

  it('a trail in exact decimals on a tenth-of-a-dollar tick (gold)', () => {
    expect(dragChange(order(9, 4, 1, null, 2_070.1), 2_070.4, 6, { tickSize: 0.1, fmt: (p) => p.toFixed(1) })).toEqual({ trailPrice: 0.3 });
  });

  it('nothing when the stop would reach the extreme it trails: the desk says where it may go', () => {
    expect(dragChange(order(7, 4, 1, null, 19_990), 20_000, 40, nq)).toBe('this trailing stop trails the high of 20000.00 by 40 ticks: drag it below that price');
    expect(dragChange(order(8, 4, 0, null, 20_002), 19_999, 8, nq)).toBe('this trailing stop trails the low of 20000.00 by 8 ticks: drag it above that price');
  });
});

describe('the trailing stops the desk placed', () => {
  it('a Trailing stop by its id, an entry with a trailing stop-loss (its planned line trails); others not at all', () => {
    const stop = placedTrailing(NO_TRAILS, 5, { type: 5, trailTicks: 12, slTicks: null });
    expect(stop).toEqual({ orders: { 5: 12 }, entries: {} });
    expect(placedTrailing(stop, 6, { type: 2, slTicks: 40, slTrailing: true })).toEqual({ orders: { 5: 12 }, entries: { 6: 40 } });
    expect(placedTrailing(stop, 6, { type: 2, slTicks: 40 })).toBe(stop);
    expect(retrailed(stop, 5, 20)).toEqual({ orders: { 5: 20 }, entries: {} });
  });

  it('the server’s list is the whole truth about which working orders trail: a bot’s trailing stop joins, a gone one leaves', () => {
    const memory = { orders: { 12: 30 }, entries: { 10: 40 } };
    expect(fromServer(memory, [{ orderId: 13, trailTicks: 8 }, { orderId: 12, trailTicks: 30 }])).toEqual({ orders: { 12: 30, 13: 8 }, entries: { 10: 40 } });
    expect(fromServer(memory, [])).toEqual({ orders: {}, entries: { 10: 40 } });
    expect(fromServer(memory, [{ orderId: 12, trailTicks: 24 }])).toEqual({ orders: { 12: 24 }, entries: { 10: 40 } });
    expect(fromServer(memory, [{ orderId: 12, trailTicks: 30 }])).toBe(memory);
  });
});
