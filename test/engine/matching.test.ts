import { describe, expect, it } from 'bun:test';
import { firstAtOrAfter, scanQuiet } from '../../src/engine/matching.ts';
import { OrderStatus } from '../../src/engine/types.ts';
import { bars, fmtFill, runScenario, type Scenario } from './scenario.ts';

type Row = Scenario & { readonly name: string; readonly fills: readonly string[] };

// One row per scenario: orders placed at the last price, then bars; expected fills last.
const orderTypes: Row[] = [
  { name: 'buy limit fills on touch at the limit', last: 105, orders: ['buy limit 1 @100'],
    bars: ['o=104 h=105 l=100 c=101'], fills: ['#1 buy 1@100 b0'] },
  { name: 'buy limit one tick above the low does not fill', last: 105, orders: ['buy limit 1 @100'],
    bars: ['o=104 h=105 l=101 c=101'], fills: [] },
  { name: 'buy limit gapped through fills at the open (better)', last: 105, orders: ['buy limit 1 @100'],
    bars: ['o=104 h=105 l=102 c=103', 'o=98 h=99 l=97 c=99'], fills: ['#1 buy 1@98 b1'] },
  { name: 'sell limit fills on touch at the limit', last: 95, orders: ['sell limit 1 @100'],
    bars: ['o=96 h=100 l=95 c=99'], fills: ['#1 sell 1@100 b0'] },
  { name: 'sell limit gapped through fills at the open (better)', last: 95, orders: ['sell limit 1 @100'],
    bars: ['o=103 h=104 l=101 c=102'], fills: ['#1 sell 1@103 b0'] },
  { name: 'buy stop fills on touch at the stop', last: 95, orders: ['buy stop 1 @100'],
    bars: ['o=96 h=101 l=95 c=100'], fills: ['#1 buy 1@100 b0'] },
  { name: 'buy stop gapped through fills at the open (worse)', last: 95, orders: ['buy stop 1 @100'],
    bars: ['o=96 h=99 l=95 c=99', 'o=103 h=104 l=102 c=103'], fills: ['#1 buy 1@103 b1'] },
  { name: 'sell stop fills on touch at the stop', last: 105, orders: ['sell stop 1 @100'],
    bars: ['o=104 h=105 l=99 c=101'], fills: ['#1 sell 1@100 b0'] },
  { name: 'sell stop gapped through fills at the open (worse)', last: 105, orders: ['sell stop 1 @100'],
    bars: ['o=97 h=98 l=96 c=97'], fills: ['#1 sell 1@97 b0'] },
  { name: 'limit marketable at placement fills at the last price', last: 98, orders: ['buy limit 1 @100'],
    bars: [], fills: ['#1 buy 1@98 pre'] },
  { name: 'stop already through at placement fills at the last price', last: 103, orders: ['buy stop 1 @100'],
    bars: [], fills: ['#1 buy 1@103 pre'] },
  { name: 'market buy fills at the last price', last: 100, orders: ['buy market 2'], bars: [],
    fills: ['#1 buy 2@100 pre'] },
  { name: 'market buy pays slippage', last: 100, cfg: { slippageTicks: 2 }, orders: ['buy market 1'], bars: [],
    fills: ['#1 buy 1@102 pre'] },
  { name: 'market sell pays slippage', last: 100, cfg: { slippageTicks: 2 }, orders: ['sell market 1'], bars: [],
    fills: ['#1 sell 1@98 pre'] },
  { name: 'slippage does not touch stops', last: 95, cfg: { slippageTicks: 2 }, orders: ['buy stop 1 @100'],
    bars: ['o=96 h=101 l=95 c=100'], fills: ['#1 buy 1@100 b0'] },
];

const stopLimits: Row[] = [
  { name: 'buy stop-limit arms at the stop and fills there when the limit allows', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=101'], bars: ['o=96 h=103 l=95 c=102'], fills: ['#1 buy 1@100 b0'] },
  { name: 'buy stop-limit opening between stop and limit fills at the open', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=102'], bars: ['o=101 h=103 l=100 c=102'], fills: ['#1 buy 1@101 b0'] },
  { name: 'buy stop-limit gapping over its limit rests and fills at the limit on a later bar', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=101'], bars: ['o=103 h=104 l=102 c=103', 'o=102 h=103 l=101 c=102'],
    fills: ['#1 buy 1@101 b1'] },
  { name: 'buy stop-limit with limit below stop arms, then fills later in the same bar', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=98'], bars: ['o=96 h=104 l=95 c=97'], fills: ['#1 buy 1@98 b0'] },
  { name: 'buy stop-limit armed but limit never reached stays working', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=98'], bars: ['o=96 h=104 l=95 c=100'], fills: [] },
  { name: 'sell stop-limit arms at the stop and fills there', last: 105,
    orders: ['sell stoplimit 1 stop=100 limit=99'], bars: ['o=104 h=105 l=97 c=98'], fills: ['#1 sell 1@100 b0'] },
  { name: 'sell stop-limit with limit above stop fills when price comes back up on a later bar', last: 105,
    orders: ['sell stoplimit 1 stop=100 limit=101'], bars: ['o=104 h=104 l=99 c=99', 'o=99 h=101 l=98 c=100'],
    fills: ['#1 sell 1@101 b1'] },
];

const paths: Row[] = [
  { name: 'nearer extreme first: high nearer → sell limit before buy limit', last: 101,
    orders: ['buy limit 1 @98', 'sell limit 1 @104'], bars: ['o=102 h=104 l=98 c=100'],
    fills: ['#2 sell 1@104 b0', '#1 buy 1@98 b0'] },
  { name: 'nearer extreme first: low nearer → buy limit before sell limit', last: 101,
    orders: ['buy limit 1 @98', 'sell limit 1 @104'], bars: ['o=99 h=104 l=98 c=100'],
    fills: ['#1 buy 1@98 b0', '#2 sell 1@104 b0'] },
  { name: 'equal distances while flat → high first', last: 101,
    orders: ['buy limit 1 @98', 'sell limit 1 @104'], bars: ['o=101 h=104 l=98 c=100'],
    fills: ['#2 sell 1@104 b0', '#1 buy 1@98 b0'] },
  { name: 'several orders at one price fire oldest first', last: 105,
    orders: ['buy limit 1 @100', 'buy limit 2 @100'], bars: ['o=104 h=105 l=99 c=101'],
    fills: ['#1 buy 1@100 b0', '#2 buy 2@100 b0'] },
  { name: 'on the way down the higher buy limit fills first', last: 105,
    orders: ['buy limit 1 @98', 'buy limit 1 @100'], bars: ['o=104 h=105 l=97 c=101'],
    fills: ['#2 buy 1@100 b0', '#1 buy 1@98 b0'] },
];

const brackets: Row[] = [
  { name: 'market entry: take-profit at fill + tp, stop-loss canceled (OCO)', last: 100,
    orders: ['buy market 1 sl=4 tp=8'], bars: ['o=100 h=108 l=99 c=107'],
    fills: ['#1 buy 1@100 pre', '#3 sell 1@108 b0'] },
  { name: 'market short entry: stop-loss above at fill + sl', last: 100,
    orders: ['sell market 1 sl=4 tp=8'], bars: ['o=100 h=105 l=99 c=104'],
    fills: ['#1 sell 1@100 pre', '#2 buy 1@104 b0'] },
  { name: 'market entry with slippage anchors legs at the fill price', last: 100, cfg: { slippageTicks: 1 },
    orders: ['buy market 1 sl=4 tp=8'], bars: ['o=100 h=109 l=99 c=108'],
    fills: ['#1 buy 1@101 pre', '#3 sell 1@109 b0'] },
  { name: 'pending limit entry gapped at 99: legs anchored at the limit 100, stop at 96', last: 105,
    orders: ['buy limit 1 @100 sl=4 tp=8'], bars: ['o=99 h=100 l=97 c=98', 'o=98 h=99 l=96 c=97'],
    fills: ['#1 buy 1@99 b0', '#2 sell 1@96 b1'] },
  { name: 'both legs in one bar, high nearer → take-profit', last: 100,
    orders: ['buy market 1 sl=4 tp=4'], bars: ['o=101 h=104 l=96 c=100'],
    fills: ['#1 buy 1@100 pre', '#3 sell 1@104 b0'] },
  { name: 'both legs in one bar, low nearer → stop-loss', last: 100,
    orders: ['buy market 1 sl=4 tp=4'], bars: ['o=99 h=104 l=96 c=100'],
    fills: ['#1 buy 1@100 pre', '#2 sell 1@96 b0'] },
  { name: 'both legs in one bar, path cannot tell (long) → stop-loss first', last: 100,
    orders: ['buy market 1 sl=4 tp=4'], bars: ['o=100 h=104 l=96 c=100'],
    fills: ['#1 buy 1@100 pre', '#2 sell 1@96 b0'] },
  { name: 'both legs in one bar, path cannot tell (short) → stop-loss first', last: 100,
    orders: ['sell market 1 sl=4 tp=4'], bars: ['o=100 h=104 l=96 c=100'],
    fills: ['#1 sell 1@100 pre', '#2 buy 1@104 b0'] },
  { name: 'stop entry and its take-profit in the same bar when the path proves it', last: 100,
    orders: ['buy stop 1 @102 sl=4 tp=4'], bars: ['o=100 h=106 l=99 c=105'],
    fills: ['#1 buy 1@102 b0', '#3 sell 1@106 b0'] },
  { name: 'limit entry, then its stop-loss later on the same bar path', last: 103,
    orders: ['buy limit 1 @100 sl=3 tp=10'], bars: ['o=103 h=104 l=95 c=96'],
    fills: ['#1 buy 1@100 b0', '#2 sell 1@97 b0'] },
  { name: 'leg already beyond the price when the entry gaps in fills at once', last: 99,
    orders: ['buy stop 1 @100 sl=4 tp=2'], bars: ['o=103 h=104 l=102 c=103'],
    fills: ['#1 buy 1@103 b0', '#3 sell 1@103 b0'] },
  { name: 'stop-limit entry anchors legs at its limit price', last: 95,
    orders: ['buy stoplimit 1 stop=100 limit=101 sl=4 tp=4'], bars: ['o=96 h=105 l=95 c=104'],
    fills: ['#1 buy 1@100 b0', '#3 sell 1@105 b0'] },
  { name: 'entry that only reduces a short spawns no legs', last: 100,
    orders: ['sell market 2', 'buy limit 1 @98 sl=2 tp=2'], bars: ['o=99 h=101 l=95 c=96'],
    fills: ['#1 sell 2@100 pre', '#2 buy 1@98 b0'] },
  { name: 'entry that flips a short protects only the opened contracts', last: 100,
    orders: ['sell market 1', 'buy limit 3 @98 sl=2 tp=2'], bars: ['o=99 h=101 l=95 c=96'],
    fills: ['#1 sell 1@100 pre', '#2 buy 3@98 b0', '#3 sell 2@96 b0'] },
];

describe('matching', () => {
  for (const [group, rows] of [['order types', orderTypes], ['stop-limit', stopLimits], ['intrabar path', paths],
    ['brackets', brackets]] as const) {
    describe(group, () => {
      it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
        expect(runScenario(row).fills.map((f) => fmtFill(f))).toEqual([...row.fills]);
      });
    });
  }

  it('OCO: the take-profit fill cancels the stop-loss and nothing stays working', () => {
    const e = runScenario({ last: 100, orders: ['buy market 1 sl=4 tp=8'], bars: ['o=100 h=108 l=99 c=107'] });
    expect(e.orders.map((o) => [o.id, o.status, o.parentId, o.ocoId])).toEqual([
      [1, OrderStatus.Filled, null, null],
      [2, OrderStatus.Canceled, 1, 1],
      [3, OrderStatus.Filled, 1, 1],
    ]);
    expect(e.orders[1].stopTicks).toBe(96);
    expect(e.orders[2].limitTicks).toBe(108);
    expect(e.snapshot().pendingOrders).toBe(0);
    expect(e.positionQty).toBe(0);
  });

  it('leaves the last price at the close of the last bar and the time at its open time', () => {
    const e = runScenario({ orders: [], bars: ['o=100 c=101', 'o=101 c=97'] });
    expect([e.lastPriceTicks, e.lastTimeS]).toEqual([97, 1_700_000_001]);
  });

  it('processBars reports bars consumed and where its fills start', () => {
    const e = runScenario({ last: 105, orders: ['buy limit 1 @100'], bars: [] });
    const b = bars(['o=104 h=105 l=101 c=102', 'o=102 h=103 l=99 c=100', 'o=100 h=101 l=99 c=100']);
    expect(e.processBars(b, 0, 1)).toEqual({ processed: 1, halted: false, fillsFrom: 0 });
    expect(e.processBars(b, 1, 3)).toEqual({ processed: 2, halted: false, fillsFrom: 0 });
    expect(e.fills.length).toBe(1);
    expect(e.processBars(b, 3, 3)).toEqual({ processed: 0, halted: false, fillsFrom: 1 });
  });
});

describe('scan helpers', () => {
  const b = bars(['o=100 h=101 l=99 c=100', 'o=100 h=103 l=99 c=100', 'o=100 h=101 l=95 c=100']);
  it.each([
    [104, 90, 3],
    [103, 90, 1],
    [104, 95, 2],
    [101, 90, 0],
  ])('scanQuiet(up=%p, down=%p) → %p', (up, down, expected) => {
    expect(scanQuiet(b.high, b.low, 0, 3, up, down)).toBe(expected);
  });
  it.each([
    [1_700_000_000, 0],
    [1_700_000_001, 1],
    [1_700_000_002, 2],
    [1_700_000_003, 3],
  ])('firstAtOrAfter(%p) → %p', (t, expected) => {
    expect(firstAtOrAfter(b.time, 0, 3, t)).toBe(expected);
  });
});
