// The gateway's order model in the engine (engine.ts header; matching.ts rules 9 and 10): trailing
// stops, JoinBid / JoinAsk, typed brackets, suspended legs, linked orders, tags, rejected records,
// expiry, and restoring it all. Prices are integer ticks; orders are placed at T0 − 1 with the last
// price at 100 unless a row says otherwise; each expectation is computed by hand in the row's comment.

import { describe, expect, it } from 'bun:test';
import { type EngineState, SessionEngine } from '../../src/engine/engine.ts';
import { type Order, OrderStatus, OrderType } from '../../src/engine/types.ts';
import { bars, fmtFill, NQ, NQ_NO_FEES, order, runScenario, type Scenario, T0 } from './scenario.ts';

type Row = Scenario & { readonly name: string; readonly fills: readonly string[] };

function engine(balanceCents = 5_000_000, last = 100) {
  const e = new SessionEngine(NQ_NO_FEES, { startingBalanceCents: balanceCents });
  e.setLastPrice(last, T0 - 1);
  return e;
}

function place(e: SessionEngine, spec: string, nowS = T0 - 1): Order {
  const r = e.placeOrder(order(spec), nowS);
  if (!r.ok) throw new Error(r.error.reason);
  return r.order;
}

/** Runs bars from `start` (bar i at T0 + start + i, so fills print as b<start + i>). */
function run(e: SessionEngine, specs: readonly string[], start = 0): string[] {
  const b = bars(specs, T0 + start);
  const from = e.fillCount;
  e.processBars(b, 0, b.length);
  return e.fills.slice(from).map((f) => fmtFill(f));
}

const byId = (e: SessionEngine, id: number) => e.orders.find((o) => o.id === id) as Order;

describe('trailing stop (type 5)', () => {
  const rows: Row[] = [
    // Extreme 100, stop 95. b0 rises to 104: extreme 104, stop 99. b1 opens 102 (high first, it is
    // the high) and falls to 98 through the stop: filled at 99.
    { name: 'follows the high and fills when the price comes back to it', orders: ['sell trail 1 trail=5'],
      bars: ['o=100 h=104 l=100 c=103', 'o=102 h=102 l=98 c=99'], fills: ['#1 sell 1@99 b1'] },
    // One fast bar, high first (3 up, 11 down): the open 101 ratchets to 101, the high to 104 (stop
    // 99); the fall to 90 then meets the raised stop at 99 (a plain stop would have filled at 95).
    { name: 'a fast bar ratchets on its way up, then its fall crosses the raised stop', orders: ['sell trail 1 trail=5'],
      bars: ['o=101 h=104 l=90 c=95'], fills: ['#1 sell 1@99 b0'] },
    // The same kind of bar low first (5 down, 9 up): the open ratchets to 101 (stop 96), the fall to
    // 96 fills it before the high is reached.
    { name: 'a bar whose low comes first meets the stop as it stood before the high', orders: ['sell trail 1 trail=5'],
      bars: ['o=101 h=110 l=96 c=108'], fills: ['#1 sell 1@96 b0'] },
    // Extreme 104 after b0 (stop 99); b1 opens at 97, beyond the stop: filled at the open.
    { name: 'a gap through the stop fills at the open', orders: ['sell trail 1 trail=5'],
      bars: ['o=100 h=104 l=100 c=104', 'o=97 h=98 l=96 c=97'], fills: ['#1 sell 1@97 b1'] },
    // Buy side, extreme 100, stop 104. High first (1 up, 4 down): the open 99 ratchets down (stop
    // 103), the low 95 to 95 (stop 99); the close 99 rises to the stop: filled at 99.
    { name: 'a buy trailing stop follows the low and fills on the way back up', orders: ['buy trail 1 trail=4'],
      bars: ['o=99 h=100 l=95 c=99'], fills: ['#1 buy 1@99 b0'] },
    // Never moves back: extreme 104 (stop 99) after b0; b1 falls to 100 and closes 101, above it.
    { name: 'the stop never moves back when the price falls short of it', orders: ['sell trail 1 trail=5'],
      bars: ['o=100 h=104 l=100 c=104', 'o=104 h=104 l=100 c=101'], fills: [] },
  ];
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const e = runScenario(row);
    expect(e.fills.map((f) => fmtFill(f))).toEqual([...row.fills]);
  });

  it('starts from the last price: stop and extreme, its trail, type 5', () => {
    const o = place(engine(), 'sell trail 2 trail=5');
    expect([o.type, o.stopTicks, o.trailTicks, o.trailExtremeTicks, o.limitTicks, o.status]).toEqual([OrderType.TrailingStop, 95, 5, 100, null, OrderStatus.Pending]);
    const b = place(engine(), 'buy trail 1 trail=5');
    expect([b.stopTicks, b.trailExtremeTicks]).toEqual([105, 100]);
  });

  it('quiet bars stay quiet: the book triggers on the extreme + 1 and the stop only', () => {
    const e = engine();
    place(e, 'sell trail 1 trail=5');
    run(e, ['o=100 h=104 l=100 c=102']);
    expect([byId(e, 1).trailExtremeTicks, byId(e, 1).stopTicks, e.book.upTriggerTicks, e.book.downTriggerTicks]).toEqual([104, 99, 105, 99]);
    // A bar inside (99, 105) changes nothing.
    expect(run(e, ['o=102 h=104 l=100 c=103'], 1)).toEqual([]);
    expect([byId(e, 1).trailExtremeTicks, byId(e, 1).stopTicks]).toEqual([104, 99]);
  });

  it('a long rise journals one change of the order, in its last state', () => {
    const e = engine();
    place(e, 'sell trail 1 trail=5');
    e.beginChanges();
    run(e, ['o=100 h=101 l=100 c=101', 'o=101 h=103 l=101 c=103', 'o=103 h=108 l=103 c=107']);
    const changes = e.takeChanges();
    expect(changes.map((c) => (c.kind === 'order' ? [c.order.id, c.order.stopTicks, c.order.trailExtremeTicks, c.timeS - T0, c.trailed] : c.kind)))
      .toEqual([[1, 103, 108, 2, true]]);
  });

  it('needs a last price and a positive stop; without the opt-in it is an unknown type', () => {
    const cold = new SessionEngine(NQ, { startingBalanceCents: 5_000_000 });
    expect(cold.placeOrder(order('sell trail 1 trail=5'), T0)).toEqual({ ok: false, error: { kind: 'rejected', reason: 'No market price is available yet' } });
    expect(engine(5_000_000, 5).placeOrder(order('sell trail 1 trail=5'), T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'trailPrice would place the stop at or below 0' },
    });
    expect(engine().placeOrder(order('sell trail 1 trail=0'), T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'trailPrice must be a whole number of ticks from 1 to 1000000' },
    });
    expect(engine().placeOrder({ type: OrderType.TrailingStop, side: 1, size: 1, trailTicks: 5 }, T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'Invalid order type or side' },
    });
  });
});

describe('trailing stop-loss bracket', () => {
  it('the leg trails from the entry and fills on the way back; the take-profit is canceled', () => {
    // Market entry at 100: legs #2 trailing sell stop (extreme 100, stop 95), #3 sell limit 110.
    // b0 rises to 106 (stop 101); b1 falls to 100 through it: filled at 101.
    const e = runScenario({ orders: ['buy market 1 sltrail=5 tp=10'], bars: ['o=100 h=106 l=100 c=105', 'o=105 h=105 l=100 c=101'] });
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 1@100 pre', '#2 sell 1@101 b1']);
    expect([byId(e, 2).type, byId(e, 2).trailTicks, byId(e, 3).status]).toEqual([OrderType.TrailingStop, 5, OrderStatus.Canceled]);
    expect(byId(e, 1).slType).toBe(OrderType.TrailingStop);
  });

  it('a ratchet stops at the next price where an order fires: the take-profit at 103 fills with the trail at 103', () => {
    // Legs: trailing stop (extreme 100, stop 95), limit 103. The rise to 106 ratchets to 103 only,
    // where the take-profit fills and cancels the trailing leg: its extreme is 103, stop 98.
    const e = runScenario({ orders: ['buy market 1 sltrail=5 tp=3'], bars: ['o=100 h=106 l=100 c=104'] });
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 1@100 pre', '#3 sell 1@103 b0']);
    const leg = byId(e, 2);
    expect([leg.status, leg.trailExtremeTicks, leg.stopTicks]).toEqual([OrderStatus.Canceled, 103, 98]);
  });

  it('a pending entry anchors the trailing leg at its price; a short entry gets a buy trailing stop', () => {
    // Sell limit 104: filled at 104 on b0's way up (high first: 2 up, 3 down); the leg is a buy
    // trailing stop, extreme 104, stop 108; the fall to 99 ratchets it to 99 (stop 103); the close
    // 103 fills it at 103.
    const e = runScenario({ orders: ['sell limit 1 @104 sltrail=4'], bars: ['o=102 h=104 l=99 c=103'] });
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 sell 1@104 b0', '#2 buy 1@103 b0']);
  });

  it.each([
    ['a limit stop-loss', { slType: OrderType.Limit }, 'Invalid stop loss type (Limit)'],
    ['a trailing stop-loss without the opt-in', { slType: OrderType.TrailingStop }, 'Invalid stop loss type (TrailingStop)'],
    ['a stop take-profit', { tpType: OrderType.Stop }, 'Invalid take profit type (Stop)'],
  ] as const)('refuses %s', (_name, over, reason) => {
    const r = engine().placeOrder({ ...order('buy market 1 sl=4 tp=4'), ...over }, T0);
    expect(r).toEqual({ ok: false, error: { kind: 'rejected', reason } });
  });
});

describe('JoinBid / JoinAsk (types 6, 7)', () => {
  const rows: Row[] = [
    // Joins the bid 100: a buy limit there would fill at once; passive, it waits. b0 never trades
    // at 100; b1 does: filled at 100.
    { name: 'a buy JoinBid waits for a later trade at the bid', orders: ['buy joinbid 1'],
      bars: ['o=101 h=102 l=101 c=101', 'o=101 h=101 l=100 c=100'], fills: ['#1 buy 1@100 b1'] },
    // A later bar opening at the bid is a trade at its price.
    { name: 'a bar opening at the joined price fills it', orders: ['buy joinbid 1'],
      bars: ['o=100 h=101 l=100 c=101'], fills: ['#1 buy 1@100 b0'] },
    // Joins the ask 101; the next price, the open 100, is through it: filled there (better).
    { name: 'a buy JoinAsk fills at the next price at or below the ask', orders: ['buy joinask 1'],
      bars: ['o=100 h=100 l=99 c=99'], fills: ['#1 buy 1@100 b0'] },
    { name: 'a sell JoinAsk rests at the ask and fills when the price rises to it', orders: ['sell joinask 1'],
      bars: ['o=100 h=101 l=100 c=100'], fills: ['#1 sell 1@101 b0'] },
    // Sell at the bid 100: not at placement; b0 stays below; b1 trades up to it.
    { name: 'a sell JoinBid waits too', orders: ['sell joinbid 1'],
      bars: ['o=99 h=99 l=98 c=99', 'o=99 h=100 l=99 c=100'], fills: ['#1 sell 1@100 b1'] },
  ];
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const e = runScenario(row);
    expect(e.fills.map((f) => fmtFill(f))).toEqual([...row.fills]);
  });

  it('is reported with its own type and the touch as limit price, and does not fill at placement, also when other orders settle', () => {
    const e = engine();
    const bid = place(e, 'buy joinbid 1');
    const ask = place(e, 'buy joinask 2');
    place(e, 'sell limit 1 @130');
    expect([bid.type, bid.limitTicks, bid.status, ask.type, ask.limitTicks, ask.status]).toEqual([OrderType.JoinBid, 100, OrderStatus.Pending, OrderType.JoinAsk, 101, OrderStatus.Pending]);
    expect(e.fills).toEqual([]);
  });

  it('a repriced join is a limit like any other: marketable at once, it fills at once', () => {
    const e = engine();
    place(e, 'buy joinbid 1');
    expect(e.modifyOrder(1, { size: 2 }, T0).ok).toBe(true);
    expect(e.fills).toEqual([]);
    expect(e.modifyOrder(1, { limitTicks: 101 }, T0).ok).toBe(true);
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 2@100 b0']);
  });
});

describe('linkedOrderId: one-cancels-other', () => {
  it('the fill of one cancels the other; a cancel does not', () => {
    // Buy limit 95 and buy stop 105 linked: b0 rises through 105, the stop fills, the limit goes.
    const e = engine();
    place(e, 'buy limit 1 @95');
    place(e, 'buy stop 1 @105 link=1');
    expect([byId(e, 1).linkId, byId(e, 2).linkId]).toEqual([1, 1]);
    expect(run(e, ['o=100 h=106 l=100 c=105'])).toEqual(['#2 buy 1@105 b0']);
    expect(byId(e, 1).status).toBe(OrderStatus.Canceled);
    const f = engine();
    place(f, 'buy limit 1 @95');
    place(f, 'buy stop 1 @105 link=1');
    f.cancelOrder(2, T0);
    expect(run(f, ['o=100 h=100 l=94 c=96'])).toEqual(['#1 buy 1@95 b0']);
  });

  it('a third order joins the group; a market order linked fills at once and cancels the rest', () => {
    const e = engine();
    place(e, 'buy limit 1 @95');
    place(e, 'sell limit 1 @105 link=1');
    place(e, 'buy market 1 link=2');
    expect(e.orders.map((o) => [o.id, o.status, o.linkId])).toEqual([[1, OrderStatus.Canceled, 1], [2, OrderStatus.Canceled, 1], [3, OrderStatus.Filled, 1]]);
  });

  it('a link to an unknown or finished order is refused', () => {
    const e = engine();
    place(e, 'buy market 1');
    expect(e.placeOrder(order('buy limit 1 @95 link=9'), T0)).toEqual({ ok: false, error: { kind: 'rejected', reason: 'linkedOrderId 9 names no working order' } });
    expect(e.placeOrder(order('buy limit 1 @95 link=1'), T0)).toEqual({ ok: false, error: { kind: 'rejected', reason: 'linkedOrderId 1 names no working order' } });
  });
});

describe('suspended legs', () => {
  it('are created with the entry, not working, and become working on its fill; its take-profit later fills', () => {
    const e = engine();
    place(e, 'buy limit 1 @95 sl=5 tp=10 suspend');
    place(e, 'sell limit 1 @130');
    expect(e.orders.map((o) => [o.id, o.type, o.status, o.limitTicks ?? o.stopTicks, o.parentId])).toEqual([
      [1, OrderType.Limit, OrderStatus.Pending, 95, null],
      [2, OrderType.Stop, OrderStatus.Suspended, 90, 1],
      [3, OrderType.Limit, OrderStatus.Suspended, 105, 1],
      [4, OrderType.Limit, OrderStatus.Pending, 130, null],
    ]);
    expect([e.book.working.map((o) => o.id), e.snapshot().pendingOrders, e.workingOrderCount]).toEqual([[1, 4], 2, 2]);
    expect(run(e, ['o=100 h=100 l=94 c=96'])).toEqual(['#1 buy 1@95 b0']);
    expect(e.book.working.map((o) => [o.id, o.status])).toEqual([[4, 6], [2, 6], [3, 6]]);
    expect(run(e, ['o=96 h=106 l=96 c=105'], 1)).toEqual(['#3 sell 1@105 b1']);
    expect(byId(e, 2).status).toBe(OrderStatus.Canceled);
  });

  it('without the flag, legs spawn on the fill with the ids of that moment, as before', () => {
    const e = engine();
    place(e, 'buy limit 1 @95 sl=5 tp=10');
    place(e, 'sell limit 1 @130');
    run(e, ['o=100 h=100 l=94 c=96']);
    expect(e.book.working.map((o) => [o.id, o.parentId])).toEqual([[2, null], [3, 1], [4, 1]]);
  });

  it('go with the entry: a cancel cancels them, an expiry expires them', () => {
    const e = engine();
    place(e, 'buy limit 1 @95 sl=5 tp=10 suspend');
    e.cancelOrder(1, T0);
    expect(e.orders.map((o) => o.status)).toEqual([OrderStatus.Canceled, OrderStatus.Canceled, OrderStatus.Canceled]);
    expect(e.suspended).toEqual([]);
    const f = engine();
    place(f, 'buy limit 1 @95 sl=5 tp=10 suspend');
    f.expireWorking(T0 + 9);
    expect(f.orders.map((o) => [o.status, o.updatedS])).toEqual([[OrderStatus.Expired, T0 + 9], [OrderStatus.Expired, T0 + 9], [OrderStatus.Expired, T0 + 9]]);
  });

  it('cover only what the entry opened: none after a pure reduction, the rest after a flip', () => {
    const e = engine();
    place(e, 'sell market 1');
    place(e, 'buy limit 1 @95 sl=5 suspend');
    run(e, ['o=100 h=100 l=94 c=96']);
    expect(byId(e, 3).status).toBe(OrderStatus.Canceled);
    const f = engine();
    place(f, 'sell market 1');
    place(f, 'buy limit 3 @95 sl=5 suspend');
    run(f, ['o=100 h=100 l=94 c=96']);
    expect([byId(f, 3).status, byId(f, 3).size]).toEqual([OrderStatus.Pending, 2]);
  });

  it('can be modified and canceled while suspended; the entry\'s price modify moves them by the same ticks', () => {
    const e = engine();
    place(e, 'buy limit 2 @95 sl=5 tp=10 suspend');
    expect(e.modifyOrder(2, { stopTicks: 88, size: 1 }, T0).ok).toBe(true);
    expect(e.modifyOrder(3, { size: 3 }, T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'A bracket order cannot exceed its entry order: 3 contracts asked, 2 ordered' },
    });
    expect(e.modifyOrder(1, { limitTicks: 96, size: 3 }, T0).ok).toBe(true);
    // Stop 88 → 89 (kept its size 1), take-profit 105 → 106 (it had the entry's full size: now 3).
    expect([byId(e, 2).stopTicks, byId(e, 2).size, byId(e, 3).limitTicks, byId(e, 3).size, byId(e, 2).status]).toEqual([89, 1, 106, 3, OrderStatus.Suspended]);
    expect(e.cancelOrder(3, T0).ok).toBe(true);
    expect(run(e, ['o=100 h=100 l=95 c=96'])).toEqual(['#1 buy 3@96 b0']);
    expect(e.book.working.map((o) => [o.id, o.stopTicks, o.size])).toEqual([[2, 89, 1]]);
  });

  it('a suspended trailing leg takes a new trail; it trails from the entry\'s anchor once working', () => {
    const e = engine();
    place(e, 'buy limit 1 @95 sltrail=5 suspend');
    expect([byId(e, 2).stopTicks, byId(e, 2).trailExtremeTicks]).toEqual([90, 95]);
    expect(e.modifyOrder(2, { trailTicks: 3 }, T0).ok).toBe(true);
    expect([byId(e, 2).stopTicks, byId(e, 2).status]).toEqual([92, OrderStatus.Suspended]);
    // Filled at 95 on the way down to 94, the leg (stop 92) waits; the close 99 ratchets it to 99 (stop 96).
    expect(run(e, ['o=100 h=100 l=94 c=99'])).toEqual(['#1 buy 1@95 b0']);
    expect([byId(e, 2).status, byId(e, 2).trailExtremeTicks, byId(e, 2).stopTicks]).toEqual([OrderStatus.Pending, 99, 96]);
  });
});

describe('modify of trailing stops and legs', () => {
  it('a new trail recomputes the stop from the extreme reached, and loses time priority', () => {
    const e = engine();
    place(e, 'sell trail 1 trail=5');
    place(e, 'sell stop 1 @97');
    run(e, ['o=100 h=104 l=100 c=104']); // extreme 104, stop 99
    expect(e.modifyOrder(1, { trailTicks: 7 }, T0).ok).toBe(true);
    expect([byId(e, 1).stopTicks, byId(e, 1).trailTicks, byId(e, 1).trailExtremeTicks]).toEqual([97, 7, 104]);
    // Both stops at 97 now: the one placed second is first in the queue.
    expect(run(e, ['o=104 h=104 l=96 c=96'], 1)).toEqual(['#2 sell 1@97 b1', '#1 sell 1@97 b1']);
  });

  it('a trail moving the stop to the last price fills it at once there', () => {
    const e = engine();
    place(e, 'sell trail 1 trail=5');
    run(e, ['o=100 h=104 l=100 c=102']); // extreme 104, stop 99, last 102
    expect(e.modifyOrder(1, { trailTicks: 2 }, T0).ok).toBe(true);
    expect(e.fills.map((f) => fmtFill(f))).toEqual(['#1 sell 1@102 b0']);
  });

  it('a working trailing leg takes a new trail and stays linked to its sibling', () => {
    const e = engine();
    place(e, 'buy market 1 sltrail=5 tp=20');
    expect(e.modifyOrder(2, { trailTicks: 2 }, T0).ok).toBe(true);
    expect(byId(e, 2).stopTicks).toBe(98);
    expect(run(e, ['o=100 h=100 l=97 c=97'])).toEqual(['#2 sell 1@98 b0']);
    expect(byId(e, 3).status).toBe(OrderStatus.Canceled);
  });

  it.each([
    ['a trail on a limit', 'buy limit 1 @95', { trailTicks: 3 }, 'A Limit order has no trailPrice'],
    ['a stop price on a trailing stop', 'sell trail 1 trail=5', { stopTicks: 96 }, 'A TrailingStop order\'s stopPrice follows the price: change its trailPrice'],
    ['a trail of 0', 'sell trail 1 trail=5', { trailTicks: 0 }, 'trailPrice must be a whole number of ticks from 1 to 1000000'],
    ['a trail putting the stop below 1', 'sell trail 1 trail=5', { trailTicks: 100 }, 'trailPrice would place the stop at or below 0'],
  ] as const)('refuses %s, changing nothing', (_name, spec, patch, reason) => {
    const e = engine();
    place(e, spec);
    const before = e.serialize();
    expect(e.modifyOrder(1, patch, T0)).toEqual({ ok: false, error: { kind: 'rejected', reason } });
    expect(e.serialize()).toEqual(before);
  });
});

describe('rejected records, tags, expiry', () => {
  it('a refusal asked to be recorded is an order with status 5, an id and its update time; without the flag nothing changes', () => {
    const e = engine(100_000);
    const r = e.placeOrder(order('buy limit 5 @95 record tag=sig-1'), T0 + 3);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.reason).toBe('Insufficient margin: 5 NQ contracts need $5,000.00 day-trade margin, $1,000.00 available');
    expect(r.error.order).toMatchObject({ id: 1, status: OrderStatus.Rejected, type: OrderType.Limit, size: 5, limitTicks: 95, customTag: 'sig-1', createdS: T0 + 3, updatedS: T0 + 3 });
    expect([e.orders.length, e.book.size]).toEqual([1, 0]);
    const before = e.serialize();
    expect(e.placeOrder(order('buy limit 5 @95'), T0)).toEqual({ ok: false, error: { kind: 'rejected', reason: expect.any(String) } });
    expect(e.serialize()).toEqual(before);
    // A malformed request has nothing to record.
    expect(e.placeOrder({ ...order('buy limit 1 @95 record'), size: 0 }, T0)).toEqual({ ok: false, error: { kind: 'rejected', reason: 'Invalid order size' } });
    expect(place(e, 'buy limit 1 @95').id).toBe(2);
  });

  it('a tag is kept; one too long is refused', () => {
    expect(place(engine(), 'buy limit 1 @95 tag=entry-7').customTag).toBe('entry-7');
    expect(engine().placeOrder(order(`buy limit 1 @95 tag=${'x'.repeat(129)}`), T0)).toEqual({
      ok: false, error: { kind: 'rejected', reason: 'customTag must be a text of at most 128 characters' },
    });
  });

  it('expiry ends every working order as 4; a later flatten closes the position', () => {
    const e = engine();
    place(e, 'buy market 1 sl=5');
    place(e, 'buy limit 1 @90');
    e.expireWorking(T0 + 5);
    expect(e.flatten(T0 + 5)?.priceTicks).toBe(100);
    expect(e.orders.map((o) => [o.id, o.status])).toEqual([[1, 2], [2, 4], [3, 4], [4, 2]]);
  });
});

describe('serialize / restore (state version 3)', () => {
  /** Half the bars, a JSON round trip of the core state, the other half: as one straight run. */
  function restoredRun(setup: (e: SessionEngine) => void, specs: readonly string[], cut: number) {
    const straight = engine(5_000_000);
    setup(straight);
    const b = bars(specs);
    straight.processBars(b, 0, b.length);
    const first = engine(5_000_000);
    setup(first);
    first.processBars(b, 0, cut);
    const state = JSON.parse(JSON.stringify(first.coreState())) as EngineState;
    expect(state.version).toBe(3);
    const restored = SessionEngine.restore(NQ_NO_FEES, { startingBalanceCents: 1 }, state);
    expect(restored.coreState()).toEqual(first.coreState());
    restored.processBars(b, cut, b.length);
    return { straight, restored };
  }

  it('mid-trail: the restored engine ratchets and fills as the straight run', () => {
    const specs = ['o=100 h=103 l=100 c=103', 'o=103 h=106 l=102 c=105', 'o=105 h=109 l=104 c=108', 'o=108 h=108 l=100 c=101'];
    const { straight, restored } = restoredRun((e) => place(e, 'buy market 1 sltrail=4 tp=30'), specs, 2);
    expect(straight.fills.map((f) => fmtFill(f))).toEqual(['#1 buy 1@100 pre', '#2 sell 1@105 b3']);
    expect(restored.fills.map((f) => fmtFill(f))).toEqual(['#2 sell 1@105 b3']);
    expect(restored.coreState()).toEqual(straight.coreState());
    expect(restored.snapshot()).toEqual(straight.snapshot());
  });

  it('suspended legs, a passive join, a link and a tag survive the round trip', () => {
    const setup = (e: SessionEngine) => {
      place(e, 'buy limit 1 @95 sl=5 tp=10 suspend tag=a');
      place(e, 'buy joinbid 1 link=1');
    };
    const { straight, restored } = restoredRun(setup, ['o=101 h=101 l=101 c=101', 'o=101 h=101 l=94 c=96'], 1);
    expect(straight.fills.map((f) => fmtFill(f))).toEqual(['#4 buy 1@100 b1']);
    expect(restored.fills.map((f) => fmtFill(f))).toEqual(['#4 buy 1@100 b1']);
    expect(restored.coreState()).toEqual(straight.coreState());
  });

  it('a version 2 state restores: its stop-loss legs are stops, nothing trails or joins', () => {
    const e = engine();
    place(e, 'buy limit 1 @95 sl=5');
    const v3 = e.coreState();
    const v2 = {
      ...v3,
      version: 2,
      orders: v3.orders.map(({ trailTicks: _a, trailExtremeTicks: _b, slType: _c, customTag: _d, linkId: _e, passive: _f, legsAnchorTicks: _g, ...o }) => o),
    };
    const r = SessionEngine.restore(NQ_NO_FEES, { startingBalanceCents: 1 }, JSON.parse(JSON.stringify(v2)));
    expect(r.coreState()).toEqual(v3);
    expect(run(r, ['o=100 h=100 l=89 c=90'])).toEqual(['#1 buy 1@95 b0', '#2 sell 1@90 b0']);
  });
});
