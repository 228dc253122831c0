import { describe, expect, it } from 'bun:test';
import { formatUsd } from '../../src/engine/account.ts';
import { type EngineState, SessionEngine } from '../../src/engine/engine.ts';
import {
  type EngineStateView, equityAtCents, type RuleThresholds, type RuleVerdict, type StopRule,
} from '../../src/engine/stop-rule.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, OrderStatus } from '../../src/engine/types.ts';
import { bars, fmtFill, NQ, NQ_NO_FEES, order, T0 } from './scenario.ts';

function engine(balanceCents = 5_000_000, extra: { maxPositionQty?: number; slippageTicks?: number } = {}, inst = NQ) {
  const e = new SessionEngine(inst, { startingBalanceCents: balanceCents, ...extra });
  e.setLastPrice(100, T0 - 1);
  return e;
}

function place(e: SessionEngine, spec: string) {
  const r = e.placeOrder(order(spec), e.lastTimeS);
  if (!r.ok) throw new Error(r.error.reason);
  return r.order;
}

describe('account: fees, realized P&L, netting', () => {
  it('charges fees per contract per side on every fill and adds realized P&L on the reduction', () => {
    const e = engine();
    place(e, 'buy market 2');
    e.setLastPrice(104, T0);
    place(e, 'sell market 2');
    // 4 ticks × 2 contracts × $5 = $40 realized; fees 2 × $1.40 on each side.
    expect(e.fills.map((f) => [f.feeCents, f.realizedPnlCents])).toEqual([[280, 0], [280, 4000]]);
    expect(e.balanceCents).toBe(5_000_000 - 280 - 280 + 4000);
  });

  it('sell 3 against long 1 leaves short 2 at the fill price with P&L realized on the 1', () => {
    const e = engine();
    place(e, 'buy market 1');
    e.setLastPrice(104, T0);
    place(e, 'sell market 3');
    const s = e.snapshot();
    expect([s.positionQty, s.avgPriceTicks, s.marginUsedCents]).toEqual([-2, 104, 200_000]);
    expect(e.fills[1].realizedPnlCents).toBe(2000);
    expect(e.balanceCents).toBe(5_000_000 - 140 - 420 + 2000);
  });

  it('snapshot marks the open position at the last price', () => {
    const e = engine();
    place(e, 'buy market 1');
    place(e, 'buy market 1');
    e.setLastPrice(101, T0);
    place(e, 'buy limit 1 @90');
    expect(e.snapshot()).toEqual({
      balanceCents: 5_000_000 - 280, equityCents: 5_000_000 - 280 + 1000, unrealizedPnlCents: 1000,
      marginUsedCents: 200_000, positionQty: 2, avgPriceTicks: 100, openPositions: 1, pendingOrders: 1,
    });
  });
});

describe('closing positions', () => {
  it('partially closes with a market order in the opposite direction', () => {
    const e = engine();
    place(e, 'buy market 3');
    e.setLastPrice(102, T0);
    const r = e.closePosition(1, T0);
    expect(r.ok).toBe(true);
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 3@100 pre', '#2 sell 1@102 b0']);
    expect(e.positionQty).toBe(2);
    expect(e.closePosition(null, T0).ok).toBe(true);
    expect(e.positionQty).toBe(0);
  });

  it.each([
    ['no position', 0, 1, 'position_not_found'],
    ['size above the position', 2, 3, 'invalid_close_size'],
    ['zero size', 2, 0, 'invalid_close_size'],
    ['fractional size', 2, 1.5, 'invalid_close_size'],
  ] as const)('%s → %s', (_name, held, size, kind) => {
    const e = engine();
    if (held > 0) place(e, `buy market ${held}`);
    const r = e.closePosition(size, T0);
    expect(r).toEqual({ ok: false, error: { kind } });
  });

  it('bracket legs go when the position is closed by other means, and shrink on a partial close', () => {
    const e = engine();
    place(e, 'buy market 2 sl=4 tp=8');
    expect(e.closePosition(1, T0).ok).toBe(true);
    expect(e.book.working.map((o) => [o.id, o.size])).toEqual([[2, 1], [3, 1]]);
    expect(e.closePosition(null, T0).ok).toBe(true);
    expect(e.orders.filter((o) => o.parentId !== null).map((o) => o.status)).toEqual([
      OrderStatus.Canceled, OrderStatus.Canceled,
    ]);
    expect(e.snapshot().pendingOrders).toBe(0);
  });

  it('flatten cancels working orders and closes at the last price, or at a price it is given', () => {
    const e = engine(5_000_000, { slippageTicks: 1 });
    place(e, 'buy market 2 sl=4 tp=8');
    place(e, 'buy limit 1 @90');
    const fill = e.flatten(T0);
    expect(fill === null ? null : fmtFill(fill)).toBe('#5 sell 2@99 b0');
    expect(e.snapshot().pendingOrders).toBe(0);
    expect(e.orders.map((o) => o.status)).toEqual([
      OrderStatus.Filled, OrderStatus.Canceled, OrderStatus.Canceled, OrderStatus.Canceled, OrderStatus.Filled,
    ]);
    const f = engine();
    place(f, 'sell market 1');
    expect(fmtFill(f.flatten(T0, 120) as never)).toBe('#2 buy 1@120 b0');
    expect(f.flatten(T0)).toBeNull();
  });
});

describe('pre-trade checks', () => {
  it.each([
    ['3 NQ with $2,400 equity', 240_000, ['buy market 3'],
      'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $2,400.00 available'],
    ['working entries count toward the worst case', 240_000, ['buy limit 2 @90', 'buy market 1'],
      'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $2,400.00 available'],
    ['a sell side worst case counts too', 240_000, ['buy market 1', 'sell limit 4 @120'],
      'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $2,400.00 available'],
  ])('margin: %s', (_name, balance, specs, reason) => {
    const e = engine(balance, {}, NQ_NO_FEES);
    for (const spec of specs.slice(0, -1)) place(e, spec);
    const r = e.placeOrder(order(specs[specs.length - 1]), T0);
    expect(r).toEqual({ ok: false, error: { kind: 'rejected', reason } });
    expect(e.orders.length).toBe(specs.length - 1);
  });

  it('margin: 2 NQ fit in $2,400', () => {
    expect(engine(240_000).placeOrder(order('buy market 2'), T0).ok).toBe(true);
  });

  it('closing is accepted even when equity no longer covers the margin', () => {
    const e = engine(240_000, {}, NQ_NO_FEES);
    place(e, 'buy market 2');
    e.setLastPrice(-200, T0); // −300 ticks × 2 × $5 = −$3,000: equity −$600
    expect(e.placeOrder(order('buy market 1'), T0)).toEqual({ ok: false, error: { kind: 'rejected',
      reason: 'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $0.00 available' } });
    expect(e.closePosition(1, T0).ok).toBe(true);
    expect(e.placeOrder(order('sell market 1'), T0).ok).toBe(true);
  });

  it.each([
    ['6 contracts from flat', [], 'buy market 6',
      'Maximum position size exceeded: 6 NQ contracts would be open, limit 5'],
    ['long 5, sell 11 flips to short 6', ['buy market 5'], 'sell market 11',
      'Maximum position size exceeded: 6 NQ contracts would be open, limit 5'],
    ['long 5, sell 10 flips to short 5', ['buy market 5'], 'sell market 10', null],
    ['working stop entries count', ['buy stop 3 @110'], 'buy limit 3 @90',
      'Maximum position size exceeded: 6 NQ contracts would be open, limit 5'],
    ['bracket legs do not count', ['buy market 5 sl=4 tp=4'], 'sell limit 10 @130', null],
  ] as const)('max position: %s', (_name, before, spec, reason) => {
    const e = engine(50_000_000, { maxPositionQty: 5 });
    for (const s of before) place(e, s);
    const r = e.placeOrder(order(spec), T0);
    expect(r.ok ? null : r.error.reason).toBe(reason);
  });

  it.each([
    ['limit without a price', { type: 1, side: 0, size: 1 }, 'limitPrice is required for Limit and StopLimit orders'],
    ['stop without a price', { type: 4, side: 1, size: 1 }, 'stopPrice is required for Stop and StopLimit orders'],
    ['stop-limit without a limit', { type: 3, side: 0, size: 1, stopTicks: 100 },
      'limitPrice is required for Limit and StopLimit orders'],
    ['size 0', { type: 2, side: 0, size: 0 }, 'Invalid order size'],
    ['type 5', { type: 5, side: 0, size: 1 }, 'Invalid order type or side'],
    ['bracket of 0 ticks', { type: 2, side: 0, size: 1, slTicks: 0 },
      'Bracket ticks must be whole numbers from 1 to 1000000'],
  ] as const)('rejects %s', (_name, req, reason) => {
    expect(engine().placeOrder(req as never, T0)).toEqual({ ok: false, error: { kind: 'rejected', reason } });
  });

  it('rejects a market order before any price is known', () => {
    const e = new SessionEngine(NQ, { startingBalanceCents: 5_000_000 });
    expect(e.placeOrder(order('buy market 1'), T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'No market price is available yet' },
    });
    expect(e.placeOrder(order('buy limit 1 @100'), T0).ok).toBe(true);
  });

  it.each([[300_000, '$3,000.00'], [5, '$0.05'], [-1250, '-$12.50'], [123_456_789, '$1,234,567.89']])(
    'formatUsd(%p) → %p', (cents, text) => expect(formatUsd(cents)).toBe(text),
  );
});

describe('cancel', () => {
  it('cancels a working order once; filled, canceled and unknown orders are not found', () => {
    const e = engine();
    const limit = place(e, 'buy limit 1 @90');
    const market = place(e, 'buy market 1');
    expect(e.cancelOrder(limit.id, T0)).toEqual({ ok: true, order: limit });
    expect([limit.status, limit.updatedS]).toEqual([OrderStatus.Canceled, T0]);
    for (const id of [limit.id, market.id, 99]) {
      expect(e.cancelOrder(id, T0)).toEqual({ ok: false, error: { kind: 'order_not_found' } });
    }
  });

  it('canceling one bracket leg keeps the other', () => {
    const e = engine();
    place(e, 'buy market 1 sl=4 tp=8');
    expect(e.cancelOrder(3, T0).ok).toBe(true);
    e.processBars(bars(['o=100 h=108 l=95 c=96']), 0, 1);
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 1@100 pre', '#2 sell 1@96 b0']);
  });
});

// ---- serialize / restore ----

const walk = [
  'o=100 h=101 l=99 c=100', 'o=100 h=103 l=100 c=103', 'o=103 h=104 l=98 c=98', 'o=98 h=99 l=94 c=95',
  'o=95 h=97 l=95 c=97', 'o=97 h=106 l=96 c=105', 'o=105 h=110 l=104 c=109', 'o=109 h=109 l=100 c=101',
  'o=101 h=102 l=97 c=99', 'o=99 h=112 l=99 c=111', 'o=111 h=112 l=108 c=108', 'o=108 h=109 l=90 c=91',
];

function driveHalf(e: SessionEngine, half: 0 | 1): void {
  const b = bars(walk);
  if (half === 0) {
    place(e, 'buy stop 2 @103 sl=6 tp=7');
    place(e, 'sell stoplimit 1 stop=97 limit=96');
    e.processBars(b, 0, 6);
  } else {
    place(e, 'sell limit 1 @110 sl=5 tp=12');
    place(e, 'buy limit 1 @92');
    e.processBars(b, 6, walk.length);
  }
}

describe('serialize / restore', () => {
  it('a round trip through JSON mid-scenario gives identical results', () => {
    const straight = engine();
    driveHalf(straight, 0);
    driveHalf(straight, 1);

    const first = engine();
    driveHalf(first, 0);
    const state = JSON.parse(JSON.stringify(first.serialize())) as EngineState;
    const restored = SessionEngine.restore(NQ, { startingBalanceCents: 5_000_000 }, state);
    expect(restored.serialize()).toEqual(first.serialize());
    driveHalf(restored, 1);

    expect(restored.serialize()).toEqual(straight.serialize());
    expect(restored.snapshot()).toEqual(straight.snapshot());
    expect(straight.fills.length).toBeGreaterThan(3);
  });
});

// ---- StopRule ----

/** Test rule: halts when equity at the adverse extreme reaches a floor; optional event times. */
class FloorRule implements StopRule {
  priceCalls = 0;
  timeCalls: number[] = [];
  private nextEvent = 0;

  constructor(
    private readonly floorCents: number,
    private readonly eventTimes: readonly number[] = [],
    private readonly onEvent: RuleVerdict = 'continue',
  ) {}

  thresholds(s: EngineStateView, out: RuleThresholds): void {
    out.upTicks = NO_UP_TRIGGER_TICKS;
    out.downTicks = NO_DOWN_TRIGGER_TICKS;
    out.eventS = this.eventTimes[this.nextEvent] ?? NO_EVENT_S;
    const q = s.positionQty;
    if (q === 0) return;
    // equity(p) ≤ floor  ⇔  p·q·tv ≤ floor − balance + cost·tv
    const x = this.floorCents - s.balanceCents + s.positionCostTicks * s.tickValueCents;
    if (q > 0) out.downTicks = Math.floor(x / (q * s.tickValueCents));
    else out.upTicks = Math.ceil(x / (q * s.tickValueCents));
  }

  onTime(_i: number, timeS: number): RuleVerdict {
    this.timeCalls.push(timeS - T0);
    this.nextEvent++;
    return this.onEvent;
  }

  onPrice(_i: number, _t: number, s: EngineStateView, low: number, high: number, price: number): RuleVerdict {
    this.priceCalls++;
    const adverse = s.positionQty > 0 ? low : s.positionQty < 0 ? high : price;
    return equityAtCents(s, adverse) <= this.floorCents ? 'halt' : 'continue';
  }
}

const falling = [
  'o=1000 h=1002 l=990 c=995', 'o=995 h=996 l=980 c=985', 'o=985 h=990 l=970 c=975', 'o=975 h=980 l=960 c=965',
  'o=965 h=970 l=955 c=960', 'o=955 h=956 l=940 c=950', 'o=950 h=960 l=930 c=935', 'o=935 h=940 l=900 c=905',
];

describe('StopRule', () => {
  // Long 2 NQ at 1000 without fees, balance $10,000, floor $9,500: equity reaches the floor at 950.
  function longTwo(): SessionEngine {
    const e = new SessionEngine(NQ_NO_FEES, { startingBalanceCents: 1_000_000 });
    e.setLastPrice(1000, T0 - 1);
    place(e, 'buy market 2');
    return e;
  }

  it('halts at the bar whose adverse extreme reaches the floor, consulted only on that bar', () => {
    const e = longTwo();
    const rule = new FloorRule(950_000);
    const r = e.processBars(bars(falling), 0, falling.length, rule);
    expect(r).toEqual({ processed: 6, halted: true, fillsFrom: 1 });
    expect(rule.priceCalls).toBe(1);
    expect([e.lastPriceTicks, e.lastTimeS]).toEqual([950, T0 + 5]);
  });

  it('halts before a later fill on the same bar path could hide the breach', () => {
    const e = longTwo();
    place(e, 'sell limit 2 @1100');
    const working = place(e, 'buy limit 1 @945');
    const rule = new FloorRule(950_000);
    const r = e.processBars(bars(falling), 0, falling.length, rule);
    expect(r).toEqual({ processed: 6, halted: true, fillsFrom: 1 });
    expect(working.status).toBe(OrderStatus.Pending);
    expect(e.lastPriceTicks).toBe(945);
    expect(e.flatten(T0 + 5, 950)?.realizedPnlCents).toBe(-50_000);
    expect(e.balanceCents).toBe(950_000);
  });

  it('re-reads thresholds after a fill: a reduced position moves the floor price', () => {
    const e = longTwo();
    place(e, 'sell limit 1 @1002'); // fills on bar 0: long 1 at 1000 with $10 realized
    const rule = new FloorRule(950_000);
    const r = e.processBars(bars(falling), 0, falling.length, rule);
    // Long 1: equity = 1,001,000 + (p − 1000) × 500 ≤ 950,000 ⇔ p ≤ 898; never reached.
    expect(r).toEqual({ processed: falling.length, halted: false, fillsFrom: 1 });
    expect(rule.priceCalls).toBe(2);
  });

  it('calls onTime once per bar at or after each event time, and halts before that bar when told to', () => {
    const e = longTwo();
    const rolling = new FloorRule(0, [T0 + 2, T0 + 2, T0 + 4]);
    expect(e.processBars(bars(falling), 0, falling.length, rolling).halted).toBe(false);
    expect(rolling.timeCalls).toEqual([2, 3, 4]);

    const ending = new FloorRule(0, [T0 + 3], 'halt');
    const f = longTwo();
    const r = f.processBars(bars(falling), 0, falling.length, ending);
    expect(r).toEqual({ processed: 3, halted: true, fillsFrom: 1 });
    expect([f.lastPriceTicks, f.lastTimeS]).toEqual([975, T0 + 2]);
  });
});
