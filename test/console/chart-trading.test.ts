// Trading from the chart as pure rules: which order a modified click asks for, the order a drag
// sends, the widths a session can be viewed at, and what a position's line says.
import { describe, expect, it } from 'bun:test';
import { bucketOfWidth, clickOrder, movedOrder, orphans, positionTitle, protects, viewWidths } from '../../src/console/pages/desk/chart-rules.ts';
import type { Order, Position } from '../../src/console/pages/desk/wire.ts';

const click = (price: number, keys: { shift?: boolean; alt?: boolean }) => ({ price, time: 0, shift: !!keys.shift, alt: !!keys.alt, ctrl: false });
const ticket = { size: 2, slTicks: 40, tpTicks: null };

describe('a click on the chart', () => {
  it.each([
    ['Shift under the market: buy limit', 19_990.1, { shift: true }, { side: 0, type: 1, limitPrice: 19_990, stopPrice: null }],
    ['Shift over the market: sell limit', 20_010.4, { shift: true }, { side: 1, type: 1, limitPrice: 20_010.5, stopPrice: null }],
    ['Alt over the market: buy stop', 20_004.9, { alt: true }, { side: 0, type: 4, limitPrice: null, stopPrice: 20_005 }],
    ['Alt under the market: sell stop', 19_995.13, { alt: true }, { side: 1, type: 4, limitPrice: null, stopPrice: 19_995.25 }],
  ])('%s, at the nearest tick, with the ticket’s size and brackets', (_name, price, keys, expected) => {
    expect(clickOrder(click(price, keys), 20_000, 0.25, ticket)).toEqual({ ...expected, size: 2, slTicks: 40, tpTicks: null } as any);
  });

  it('places nothing without a modifier, and says why at the last price, below 0 or before any price', () => {
    expect(clickOrder(click(19_990, {}), 20_000, 0.25, ticket)).toBeNull();
    expect(clickOrder(click(20_000.1, { shift: true }), 20_000, 0.25, ticket)).toBe('That is the last price: use a market order');
    expect(clickOrder(click(-3, { shift: true }), 20_000, 0.25, ticket)).toBe('Prices must be greater than 0');
    expect(clickOrder(click(19_990, { alt: true }), null, 0.25, ticket)).toBe('No price yet: step a bar first');
  });

  it('prints gold’s tenth-of-a-dollar ticks exactly', () => {
    expect((clickOrder(click(2_070.1 + 1e-9, { shift: true }), 2_080, 0.1, ticket) as any).limitPrice).toBe(2_070.1);
  });
});

describe('a dragged order', () => {
  const order = (type: Order['type'], limitPrice: number | null, stopPrice: number | null): Order => ({
    id: 7, contractId: 'CON.F.US.ENQ.H25', creationTimestamp: '', updateTimestamp: null, status: 6, type, side: 1, size: 3, limitPrice, stopPrice, fillVolume: 0, filledPrice: null,
  });

  it('keeps side, type and size, moves the line its chip sits on, and carries planned brackets', () => {
    expect(movedOrder(order(1, 20_010, null), 20_020, { sl: 8, tp: null })).toEqual({ side: 1, type: 1, size: 3, limitPrice: 20_020, stopPrice: null, slTicks: 8, tpTicks: null });
    expect(movedOrder(order(4, null, 19_990), 19_980, undefined)).toEqual({ side: 1, type: 4, size: 3, limitPrice: null, stopPrice: 19_980, slTicks: null, tpTicks: null });
    // A stop-limit's chip is on its limit: the stop stays.
    expect(movedOrder(order(3, 19_989, 19_990), 19_985, undefined)).toMatchObject({ limitPrice: 19_985, stopPrice: 19_990 });
  });
});

describe('the widths a session can be seen at', () => {
  it('its own, then every wider preset it divides', () => {
    expect(viewWidths('1m')).toEqual(['1m', '5m', '15m', '30m', '1h', '4h', '1d']);
    expect(viewWidths('15s')).toEqual(['15s', '30s', '1m', '5m', '15m', '30m', '1h', '4h', '1d']);
    expect(viewWidths('4h')).toEqual(['4h', '1d']);
  });

  it('buckets from the epoch, as the server does', () => {
    const at = Date.parse('2025-03-03T00:19:00Z') / 1000;
    expect(bucketOfWidth('5m')!(at)).toBe(Date.parse('2025-03-03T00:15:00Z') / 1000);
    expect(bucketOfWidth('4h')!(at)).toBe(Date.parse('2025-03-03T00:00:00Z') / 1000);
  });
});

describe('a position’s line', () => {
  const fmt = { price: (p: number | null) => (p === null ? '—' : p.toFixed(2)) };
  const long: Position = { id: 1, contractId: 'x', contractDisplayName: 'NQH5', type: 1, size: 2, averagePrice: 20_000.25 };

  it('says side, size, average price and its open P&L at the last price', () => {
    expect(positionTitle(long, { tickSize: 0.25, tickValue: 5, lastPrice: 20_010.25, fmt })).toBe('LONG 2 @ 20000.25 · +$400.00');
    expect(positionTitle({ ...long, type: 2 }, { tickSize: 0.25, tickValue: 5, lastPrice: 20_010.25, fmt })).toBe('SHORT 2 @ 20000.25 · −$400.00');
    expect(positionTitle(long, { tickSize: 0.25, tickValue: 5, lastPrice: null, fmt })).toBe('LONG 2 @ 20000.25');
  });
});

describe('moved protective orders', () => {
  const o = (id: number, side: Order['side'], contractId = 'A'): Order => ({
    id, contractId, creationTimestamp: '', updateTimestamp: null, status: 6, type: 4, side, size: 1, limitPrice: null, stopPrice: 1, fillVolume: 0, filledPrice: null,
  });
  const long: Position = { id: 1, contractId: 'A', contractDisplayName: 'A', type: 1, size: 1, averagePrice: 10 };

  it('an order against a position protects it; one with it, or on another contract, does not', () => {
    expect(protects(o(5, 1), [long])).toBe(true);
    expect(protects(o(5, 0), [long])).toBe(false);
    expect(protects(o(5, 1, 'B'), [long])).toBe(false);
    expect(protects(o(5, 0), [{ ...long, type: 2 }])).toBe(true);
  });

  it('are cancelled once their contract is flat, and not before', () => {
    const orders = [o(5, 1), o(6, 1), o(7, 0, 'B')];
    expect(orphans([5, 7], orders, [long])).toEqual([o(7, 0, 'B')]);
    expect(orphans([5, 7], orders, []).map((x) => x.id)).toEqual([5, 7]);
    expect(orphans([], orders, [])).toEqual([]);
  });
});
