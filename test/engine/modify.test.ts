// SessionEngine.modifyOrder: the rules in engine.ts's header ("Modify"). Prices are integer ticks;
// the last price is 100 unless a test moves it; bars come from scenario.ts's DSL.

import { describe, expect, it } from 'bun:test';
import { type EngineState, type EngineStateV1, type ModifyOrderPatch, SessionEngine } from '../../src/engine/engine.ts';
import { type Order, OrderStatus } from '../../src/engine/types.ts';
import { bars, fmtFill, NQ, NQ_NO_FEES, order, T0 } from './scenario.ts';

function engine(balanceCents = 5_000_000, inst = NQ_NO_FEES) {
  const e = new SessionEngine(inst, { startingBalanceCents: balanceCents });
  e.setLastPrice(100, T0 - 1);
  return e;
}

function place(e: SessionEngine, spec: string): Order {
  const r = e.placeOrder(order(spec), T0 - 1);
  if (!r.ok) throw new Error(r.error.reason);
  return r.order;
}

function modify(e: SessionEngine, id: number, patch: ModifyOrderPatch): Order {
  const r = e.modifyOrder(id, patch, T0 - 1);
  if (!r.ok) throw new Error(r.error.kind === 'rejected' ? r.error.reason : r.error.kind);
  return r.order;
}

function run(e: SessionEngine, specs: readonly string[]): string[] {
  const b = bars(specs);
  const from = e.fillCount;
  e.processBars(b, 0, b.length);
  return e.fills.slice(from).map((f) => fmtFill(f));
}

/** One bar that dips to 94: buy limits at 95 fill on it, in time priority. */
const DIP = ['o=100 h=100 l=94 c=96'];

/** What a refusal must leave alone: the order, the book's order and triggers, the counters. */
function state(e: SessionEngine) {
  return { engine: e.serialize(), up: e.book.upTriggerTicks, down: e.book.downTriggerTicks };
}

describe('modify: prices and sizes', () => {
  it('a new limit price is where the order rests and fills', () => {
    const e = engine();
    place(e, 'buy limit 1 @90');
    const o = modify(e, 1, { limitTicks: 95 });
    expect([o.id, o.limitTicks, o.stopTicks, o.size, o.status]).toEqual([1, 95, null, 1, OrderStatus.Pending]);
    expect(e.book.downTriggerTicks).toBe(95);
    expect(run(e, ['o=100 h=100 l=94 c=99'])).toEqual(['#1 buy 1@95 b0']);
  });

  it('a new stop price moves a stop; null and absent fields keep their values', () => {
    const e = engine();
    place(e, 'sell stop 2 @90');
    modify(e, 1, { size: null, limitTicks: null, stopTicks: 97 });
    expect(run(e, ['o=100 h=100 l=96 c=98'])).toEqual(['#1 sell 2@97 b0']);
  });

  it('a new size is what fills', () => {
    const e = engine();
    place(e, 'buy limit 1 @90');
    modify(e, 1, { size: 3 });
    expect(run(e, ['o=100 h=100 l=90 c=95'])).toEqual(['#1 buy 3@90 b0']);
  });

  it('a stop-limit not yet armed may change both prices', () => {
    const e = engine();
    place(e, 'buy stoplimit 1 stop=110 limit=111');
    modify(e, 1, { stopTicks: 104, limitTicks: 103 });
    // Arms at 104, rests at 103, fills when the path comes back down to it.
    expect(run(e, ['o=100 h=105 l=100 c=105', 'o=105 h=105 l=102 c=102'])).toEqual(['#1 buy 1@103 b1']);
  });

  it('an entry with brackets anchors its legs at its modified price', () => {
    const e = engine();
    place(e, 'buy limit 1 @90 sl=4 tp=8');
    modify(e, 1, { limitTicks: 94 });
    run(e, ['o=100 h=100 l=94 c=95']);
    expect(e.book.working.map((o) => [o.id, o.stopTicks, o.limitTicks])).toEqual([[2, 90, null], [3, null, 102]]);
  });
});

describe('modify: a marketable modify fills at once, as a placement would', () => {
  it.each([
    ['buy limit raised through the market', 'buy limit 1 @90', { limitTicks: 102 }, 'buy limit 1 @102'],
    ['sell limit lowered through the market', 'sell limit 1 @110', { limitTicks: 97 }, 'sell limit 1 @97'],
    ['sell stop raised through the market', 'sell stop 1 @90', { stopTicks: 101 }, 'sell stop 1 @101'],
    ['buy stop lowered through the market', 'buy stop 1 @110', { stopTicks: 99 }, 'buy stop 1 @99'],
  ] as const)('%s', (_name, spec, patch, placed) => {
    const e = engine();
    place(e, spec);
    const o = modify(e, 1, patch);
    const twin = engine();
    place(twin, placed);
    expect(o.status).toBe(OrderStatus.Filled);
    expect(e.fills.map((f) => fmtFill(f))).toEqual(twin.fills.map((f) => fmtFill(f)));
    expect(e.fills.map((f) => f.priceTicks)).toEqual([100]);
    expect(e.book.size).toBe(0);
  });
});

describe('modify: refusals leave the order exactly as it was', () => {
  it.each([
    ['limitPrice on a Stop', 'sell stop 1 @90', { limitTicks: 91 }, 'A Stop order has no limitPrice'],
    ['stopPrice on a Limit', 'buy limit 1 @90', { stopTicks: 91 }, 'A Limit order has no stopPrice'],
    ['zero size', 'buy limit 1 @90', { size: 0 }, 'Invalid order size'],
    ['fractional size', 'buy limit 1 @90', { size: 1.5 }, 'Invalid order size'],
    ['a price out of range', 'buy limit 1 @90', { limitTicks: 2_000_000_000 }, 'limitPrice is out of range'],
    ['a fractional tick', 'buy stoplimit 1 stop=110 limit=111', { stopTicks: 104.5 }, 'stopPrice is out of range'],
    ['a limit price of 0', 'buy limit 1 @90', { limitTicks: 0 }, 'limitPrice must be greater than 0'],
    ['a negative stop price', 'sell stop 1 @90', { stopTicks: -5 }, 'stopPrice must be greater than 0'],
    ['an entry moved so low its stop-loss would rest at 0', 'buy limit 1 @90 sl=4', { limitTicks: 4 }, 'stopLossBracket would place the stop-loss at or below 0'],
    ['a sell entry moved so low its take-profit would rest below 0', 'sell stop 1 @90 tp=8', { stopTicks: 7 }, 'takeProfitBracket would place the take-profit at or below 0'],
    ['more than the margin covers', 'buy limit 2 @90', { size: 3 },
      'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $2,400.00 available'],
  ] as const)('%s → rejected', (_name, spec, patch, reason) => {
    const e = engine(240_000);
    place(e, spec);
    const before = state(e);
    expect(e.modifyOrder(1, patch, T0)).toEqual({ ok: false, error: { kind: 'rejected', reason } });
    expect(state(e)).toEqual(before);
  });

  it('a margin refusal counts the other working entries but not the order being modified', () => {
    const e = engine(240_000);
    place(e, 'buy limit 1 @90');
    place(e, 'buy limit 1 @80');
    // 1 + 2 = 3 contracts: refused; 1 + 1 (the same size) is the worst case already held.
    expect(e.modifyOrder(2, { size: 2 }, T0)).toEqual({ ok: false, error: { kind: 'rejected',
      reason: 'Insufficient margin: 3 NQ contracts need $3,000.00 day-trade margin, $2,400.00 available' } });
    expect(e.modifyOrder(2, { size: 1, limitTicks: 85 }, T0).ok).toBe(true);
  });

  it('a modify that does not raise the size is never refused for risk, even below margin', () => {
    const e = engine(240_000);
    place(e, 'buy market 1');
    place(e, 'buy limit 1 @50');
    e.setLastPrice(-200, T0); // −300 ticks × $5 = −$1,500: equity $900, less than one contract's margin
    expect(modify(e, 2, { limitTicks: 40 }).limitTicks).toBe(40);
    expect(e.modifyOrder(2, { size: 2 }, T0).ok).toBe(false);
  });

  it.each([
    ['unknown', (_e: SessionEngine): number => 99],
    ['filled', (e: SessionEngine): number => place(e, 'buy market 1').id],
    ['canceled', (e: SessionEngine): number => {
      const id = place(e, 'buy limit 1 @90').id;
      e.cancelOrder(id, T0);
      return id;
    }],
  ] as const)('an order that is not working (%s) → order_not_found', (_name, make) => {
    const e = engine();
    const id = make(e);
    const before = state(e);
    expect(e.modifyOrder(id, { size: 2 }, T0)).toEqual({ ok: false, error: { kind: 'order_not_found' } });
    expect(state(e)).toEqual(before);
  });
});

describe('modify: armed stop-limit', () => {
  function armed() {
    const e = engine();
    place(e, 'buy stoplimit 1 stop=102 limit=101');
    // Arms at 102 on the way up; the limit at 101 is not reached again.
    run(e, ['o=100 h=103 l=100 c=103']);
    expect(e.book.working[0].triggered).toBe(true);
    return e;
  }

  it('its stop price can no longer change; resending it unchanged is accepted', () => {
    const e = armed();
    const before = state(e);
    expect(e.modifyOrder(1, { stopTicks: 105 }, T0)).toEqual({ ok: false, error: { kind: 'rejected',
      reason: 'stopPrice cannot change: the stop-limit order has already triggered' } });
    expect(state(e)).toEqual(before);
    expect(modify(e, 1, { stopTicks: 102, size: 2 }).size).toBe(2);
  });

  it('its limit price can change, and a marketable one fills at once at the last price', () => {
    const e = armed();
    const o = modify(e, 1, { limitTicks: 104 });
    expect([o.status, o.filledPriceTicks]).toEqual([OrderStatus.Filled, 103]);
  });
});

describe('modify: bracket legs', () => {
  function bracketed() {
    const e = engine();
    place(e, 'buy market 2 sl=4 tp=8');
    expect(e.book.working.map((o) => [o.id, o.stopTicks ?? o.limitTicks, o.ocoId])).toEqual([[2, 96, 1], [3, 108, 1]]);
    return e;
  }

  it('a leg moves and keeps its OCO link: its fill cancels the other leg', () => {
    const e = bracketed();
    const leg = modify(e, 2, { stopTicks: 98 });
    expect([leg.parentId, leg.ocoId]).toEqual([1, 1]);
    expect(run(e, ['o=100 h=100 l=97 c=97'])).toEqual(['#2 sell 2@98 b0']);
    expect(e.orders[2].status).toBe(OrderStatus.Canceled);
    expect(e.positionQty).toBe(0);
  });

  it('a leg may shrink below the position but never exceed it', () => {
    const e = bracketed();
    const before = state(e);
    expect(e.modifyOrder(3, { size: 3 }, T0)).toEqual({ ok: false, error: { kind: 'rejected',
      reason: 'A bracket order cannot exceed the position it protects: 3 contracts asked, 2 held' } });
    expect(state(e)).toEqual(before);
    modify(e, 3, { size: 1 });
    expect(run(e, ['o=100 h=108 l=100 c=104'])).toEqual(['#3 sell 1@108 b0']);
    // The take-profit's fill canceled its sibling; one contract is left unprotected.
    expect([e.positionQty, e.book.size]).toEqual([1, 0]);
  });

  it('a leg moved through the market fills at once, as a placed stop would', () => {
    const e = bracketed();
    modify(e, 2, { stopTicks: 101 });
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 2@100 pre', '#2 sell 2@100 pre']);
    expect(e.book.size).toBe(0);
  });
});

describe('modify: time priority', () => {
  // Two buy limits that fill together: the fill log shows which fired first.
  function pair() {
    const e = engine();
    place(e, 'buy limit 2 @95');
    place(e, 'buy limit 2 @95');
    return e;
  }

  it.each([
    ['a price change loses it', { limitTicks: 94 }, { limitTicks: 95 }, ['#2 buy 2@95 b0', '#1 buy 2@95 b0']],
    ['a size increase loses it', { size: 3 }, null, ['#2 buy 2@95 b0', '#1 buy 3@95 b0']],
    ['a size decrease keeps it', { size: 1 }, null, ['#1 buy 1@95 b0', '#2 buy 2@95 b0']],
    ['resending the same values keeps it', { size: 2, limitTicks: 95 }, null, ['#1 buy 2@95 b0', '#2 buy 2@95 b0']],
  ] as const)('%s', (_name, first, second, fills) => {
    const e = pair();
    modify(e, 1, first);
    if (second) modify(e, 1, second);
    expect(run(e, DIP)).toEqual([...fills]);
  });

  it('the queue is kept by prioritySeq; ids never change', () => {
    const e = pair();
    place(e, 'buy limit 1 @90');
    modify(e, 1, { limitTicks: 96 });
    expect(e.book.working.map((o) => [o.id, o.prioritySeq])).toEqual([[2, 2], [3, 3], [1, 4]]);
    place(e, 'buy limit 1 @80');
    expect(e.book.working.map((o) => [o.id, o.prioritySeq])).toEqual([[2, 2], [3, 3], [1, 4], [4, 5]]);
  });
});

describe('modify: serialize / restore', () => {
  it('a round trip through JSON keeps the modified prices, sizes and the queue', () => {
    const e = engine(5_000_000, NQ);
    place(e, 'buy limit 2 @95');
    place(e, 'buy limit 2 @95');
    modify(e, 1, { size: 3 });
    const core = JSON.parse(JSON.stringify(e.coreState())) as EngineState;
    const full = JSON.parse(JSON.stringify(e.serialize())) as EngineState;
    for (const state of [core, full]) {
      const r = SessionEngine.restore(NQ, { startingBalanceCents: 5_000_000 }, state);
      expect(r.coreState()).toEqual(e.coreState());
      // The sequence goes on where it stopped: a new order is behind the requeued one.
      expect(place(r, 'buy limit 1 @95').prioritySeq).toBe(4);
      expect(run(r, DIP)).toEqual(['#2 buy 2@95 b0', '#1 buy 3@95 b0', '#3 buy 1@95 b0']);
    }
  });

  it('a version 1 state (written before modify) restores with id order as time priority', () => {
    const e = engine(5_000_000, NQ);
    place(e, 'buy limit 2 @95');
    place(e, 'buy limit 2 @95');
    place(e, 'buy market 1');
    const v2 = e.serialize();
    const v1: EngineStateV1 = {
      ...v2,
      version: 1,
      orders: v2.orders.map(({ prioritySeq: _, ...o }) => o),
    };
    delete (v1 as { nextPrioritySeq?: number }).nextPrioritySeq;
    const r = SessionEngine.restore(NQ, { startingBalanceCents: 5_000_000 }, JSON.parse(JSON.stringify(v1)));
    expect(r.book.working.map((o) => [o.id, o.prioritySeq])).toEqual([[1, 1], [2, 2]]);
    expect(r.orders.map((o) => o.prioritySeq)).toEqual([1, 2, 3]);
    // New sequence numbers start above every id the version 1 state used.
    modify(r, 1, { limitTicks: 94 });
    expect(r.book.working.map((o) => [o.id, o.prioritySeq])).toEqual([[2, 2], [1, 4]]);
    expect(r.coreState().version).toBe(3);
  });

  it('an unknown version is refused', () => {
    const state = { ...engine().coreState(), version: 4 } as unknown as EngineState;
    expect(() => SessionEngine.restore(NQ, { startingBalanceCents: 1 }, state)).toThrow('unknown engine state version 4');
  });
});
