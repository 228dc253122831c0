// The risk/reward tool and the drawings as pure rules: the box's ticks, dollars and R:R, the order it
// places on either side of the market, a dragged point kept on its side of the entry; the
// Fibonacci levels on the tick grid; the drawings' wire form both ways, in the server's order.
import { describe, expect, it } from 'bun:test';
import { fibLevels, moved } from '../../src/console/pages/desk/drawings-rules.ts';
import { type Drawing, fromWire, toWire } from '../../src/console/pages/desk/drawings-wire.ts';
import { figuresOf, type RrBox, rrOrder, withPoint } from '../../src/console/pages/desk/risk-reward-rules.ts';

const NQ = { tickSize: 0.25, tickValue: 5 };
const LONG: RrBox = { side: 'long', t: 1_741_564_800, entry: 20_000, stop: 19_995, target: 20_012.5 };
const SHORT: RrBox = { side: 'short', t: 1_741_564_800, entry: 20_000, stop: 20_005.25, target: 19_990 };

describe('the risk/reward box', () => {
  it("counts ticks, dollars at the ticket's size and R:R", () => {
    expect(figuresOf(LONG, NQ, 3)).toEqual({ stopTicks: 20, targetTicks: 50, risk: 300, reward: 750, rr: 2.5, size: 3 });
    expect(figuresOf(SHORT, { tickSize: 0.01, tickValue: 10 }, 1)).toEqual({ stopTicks: 525, targetTicks: 1000, risk: 5250, reward: 10_000, rr: 1000 / 525, size: 1 });
    // A tick worth $12.50 (ES): cents stay exact.
    expect(figuresOf(LONG, { tickSize: 0.25, tickValue: 12.5 }, 7).risk).toBe(1750);
  });

  it.each([
    ['a long under the market: a buy limit', LONG, 20_001, { side: 0, type: 1, limitPrice: 20_000, stopPrice: null }],
    ['a long at the market: a buy limit', LONG, 20_000, { side: 0, type: 1, limitPrice: 20_000, stopPrice: null }],
    ['a long over the market: a buy stop', LONG, 19_999.75, { side: 0, type: 4, limitPrice: null, stopPrice: 20_000 }],
    ['a short over the market: a sell limit', SHORT, 19_999, { side: 1, type: 1, limitPrice: 20_000, stopPrice: null }],
    ['a short under the market: a sell stop', SHORT, 20_000.25, { side: 1, type: 4, limitPrice: null, stopPrice: 20_000 }],
  ])('places %s with its legs at the drawn distances', (_, box, last, want) => {
    const f = figuresOf(box, NQ, 2);
    expect(rrOrder(box, f, last)).toEqual({ ...want, size: 2, slTicks: f.stopTicks, tpTicks: f.targetTicks } as never);
  });

  it('keeps a dragged stop or target a tick past the entry at least; a dragged entry takes both along', () => {
    expect(withPoint(LONG, 'stop', 20_003, 0.25).stop).toBe(19_999.75);
    expect(withPoint(LONG, 'target', 19_990, 0.25).target).toBe(20_000.25);
    expect(withPoint(SHORT, 'stop', 19_000, 0.25).stop).toBe(20_000.25);
    expect(withPoint(SHORT, 'target', 20_001, 0.25).target).toBe(19_999.75);
    expect(withPoint(LONG, 'stop', 19_990.5, 0.25)).toEqual({ ...LONG, stop: 19_990.5 });
    expect(withPoint(LONG, 'entry', 20_010, 0.25)).toEqual({ ...LONG, entry: 20_010, stop: 20_005, target: 20_022.5 });
  });
});

describe('drawings', () => {
  it('puts the Fibonacci levels from the end (0 %) to the start (100 %) on the tick grid', () => {
    expect(fibLevels(20_000, 20_100, 0.25)).toEqual([
      { ratio: 0, price: 20_100 },
      { ratio: 0.236, price: 20_076.5 },
      { ratio: 0.382, price: 20_061.75 },
      { ratio: 0.5, price: 20_050 },
      { ratio: 0.618, price: 20_038.25 },
      { ratio: 0.786, price: 20_021.5 },
      { ratio: 1, price: 20_000 },
    ]);
  });

  it('moves a drawing by its first point, on the tick grid; a horizontal line keeps no time', () => {
    const rect: Drawing = { kind: 'rect', pts: [{ t: 600, p: 100.25 }, { t: 1200, p: 99.5 }], instrument: false };
    expect(moved(rect, { t: 900, p: 101 }, 0.25).pts).toEqual([{ t: 900, p: 101 }, { t: 1500, p: 100.25 }]);
    expect(moved({ kind: 'hline', pts: [{ t: 0, p: 10 }], instrument: true }, { t: 900, p: 11.1 }, 0.1).pts).toEqual([{ t: 0, p: 11.1 }]);
  });

  it("converts to and from the wire, each kind in its list, the session's before the instrument's", () => {
    const ds: Drawing[] = [
      { kind: 'text', pts: [{ t: 60, p: 5 }], text: 'A note', instrument: true },
      { kind: 'hline', pts: [{ t: 0, p: 7 }], instrument: true },
      { kind: 'fib', pts: [{ t: 0, p: 1 }, { t: 120, p: 2 }], instrument: false },
      { kind: 'hline', pts: [{ t: 0, p: 6 }], instrument: false },
      { kind: 'ray', pts: [{ t: 180, p: 3 }], instrument: false },
    ];
    const wire = toWire(ds);
    expect(wire).toEqual({
      horizontalLines: [{ price: 6 }, { price: 7, scope: 'instrument' }],
      trendLines: [],
      rectangles: [],
      rays: [{ time: '1970-01-01T00:03:00.000Z', price: 3 }],
      fibRetracements: [{ startTime: '1970-01-01T00:00:00.000Z', startPrice: 1, endTime: '1970-01-01T00:02:00.000Z', endPrice: 2 }],
      texts: [{ time: '1970-01-01T00:01:00.000Z', price: 5, text: 'A note', scope: 'instrument' }],
    });
    expect(fromWire(wire)).toEqual([ds[3], ds[1], ds[4], ds[2], ds[0]]);
  });
});
