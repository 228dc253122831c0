// Trading from the chart as pure rules: which order a modified click asks for, the widths a session
// can be viewed at, and what a position's line says (what a drag sends: trailing.test.ts).
import { describe, expect, it } from 'bun:test';
import { bucketOfWidth, clickOrder, dragHazard, fillMarkers, positionTitle, viewWidths } from '../../src/console/pages/desk/chart-rules.ts';
import type { Position } from '../../src/console/pages/desk/wire.ts';

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

  it('carries a trailing stop-loss from the ticket', () => {
    expect(clickOrder(click(19_990, { shift: true }), 20_000, 0.25, { ...ticket, slTrailing: true })).toMatchObject({ type: 1, slTicks: 40, slTrailing: true });
  });

  it('prints gold’s tenth-of-a-dollar ticks exactly', () => {
    expect((clickOrder(click(2_070.1 + 1e-9, { shift: true }), 2_080, 0.1, ticket) as any).limitPrice).toBe(2_070.1);
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

describe('a chip dragged through the market (NinjaTrader’s chart trader)', () => {
  const fmt = (p: number) => p.toFixed(2);
  it.each([
    ['a sell stop (a long’s stop-loss) at or over the last price: refused', { side: 1, type: 4 }, 20_000, { refuse: 'a sell stop must be below the last price (20000.00): at 20000.00 it would trigger at once' }],
    ['a buy stop under it: refused', { side: 0, type: 4 }, 19_999.75, { refuse: 'a buy stop must be above the last price (20000.00): at 19999.75 it would trigger at once' }],
    ['a trailing stop too', { side: 1, type: 5 }, 20_001, { refuse: 'a sell stop must be below the last price (20000.00): at 20001.00 it would trigger at once' }],
    ['a buy limit at or over it: asked', { side: 0, type: 1 }, 20_000, { ask: 'A buy limit at 20000.00 is at or above the last price (20000.00): it fills at once, as a market order would.' }],
    ['a sell limit under it: asked', { side: 1, type: 1 }, 19_990, { ask: 'A sell limit at 19990.00 is at or below the last price (20000.00): it fills at once, as a market order would.' }],
    ['a sell stop under it: sent', { side: 1, type: 4 }, 19_999.75, null],
    ['a buy limit under it: sent', { side: 0, type: 1 }, 19_999.75, null],
    ['a stop-limit: sent (its limit is what moves)', { side: 0, type: 3 }, 19_000, null],
  ])('%s', (_name, order, price, expected) => {
    expect(dragHazard(order, price, 20_000, fmt)).toEqual(expected as any);
  });

  it('sends any move before there is a price', () => {
    expect(dragHazard({ side: 1, type: 4 }, 20_000, null, fmt)).toBeNull();
  });
});

describe('fill markers', () => {
  it('are one a bar and side, sizes joined; a fill off the drawn bars keeps its own', () => {
    const at = (hhmmss: string) => `2025-03-03T${hhmmss}Z`;
    const fills = [
      { creationTimestamp: at('14:30:10'), side: 0, size: 1 },
      { creationTimestamp: at('14:30:40'), side: 0, size: 2 },
      { creationTimestamp: at('14:30:50'), side: 1, size: 3 },
      { creationTimestamp: at('14:31:05'), side: 0, size: 1 },
      { creationTimestamp: '2025-03-02T10:00:00Z', side: 1, size: 1 },
    ];
    const first = Date.parse(at('14:30:00')) / 1000;
    const barOf = (s: number) => (s < first ? -1 : s - (s % 60));
    expect(fillMarkers(fills, barOf)).toEqual([
      { time: at('14:30:10'), side: 'buy', text: 'B 1+2' },
      { time: at('14:30:50'), side: 'sell', text: 'S 3' },
      { time: at('14:31:05'), side: 'buy', text: 'B 1' },
      { time: '2025-03-02T10:00:00Z', side: 'sell', text: 'S 1' },
    ]);
  });
});
