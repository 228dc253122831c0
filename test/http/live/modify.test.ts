// Order/modify under the live profile (docs/gateway-profile.md; engine.ts "Modify"): a working
// order's price, size and trail change in place (same id), bracket legs keep their link, suspended
// legs can be reached; every refusal row of the live table (live-codes.ts modifyOrder: 1
// AccountNotFound, 2 OrderNotFound, 3 Rejected, 6 AccountRejected) answers its exact message and
// changes nothing. Under the spec, Order/modify is unsupported (errorCode 3) and changes nothing.
// Bars as in orders.test.ts: one per minute from 14:30, each step plays one.
import { describe, expect, it } from 'bun:test';
import { challengeApp, createChallenge, startOn } from '../../support/challenge.ts';
import { brief, liveApp, liveOrder, specPost, userEvents } from '../../support/live.ts';
import { at, type BarSpec, openOrders, orders, otherUserSession, placeOk, snapshot, step } from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const DOWN: BarSpec = [20000, 20000, 19985, 19995]; // touches 19,990 and 19,988 on the way down
const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

type App = Awaited<ReturnType<typeof liveApp>>;

const modify = async (t: App, body: Record<string, unknown>, token = t.token) =>
  (await t.post('Order/modify', { accountId: t.accountId, ...body }, token)).body;

describe('Order/modify: changes in place', () => {
  it('a working limit\'s price: same id, the new price, the modify\'s time as updateTimestamp; it fills there', async () => {
    const t = await liveApp([BAR0, 20000, DOWN]);
    const id = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19980 });
    await step(t, t);
    expect(await modify(t, { orderId: id, limitPrice: 19990 })).toEqual(ok);
    // Placed at 14:31, modified at 14:32: the live gateway's updateTimestamp is the last change.
    const moved = liveOrder(t, { id, limitPrice: 19990, updateTimestamp: at(2) });
    expect(await orders(t, t)).toEqual([moved]);
    expect(await openOrders(t, t)).toEqual([moved]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: id, fillPrice: 19990, fillQty: 1 }]);
  });

  it('the modify reaches the user hub as an update of the same order at the modify\'s time', async () => {
    const t = await liveApp([BAR0, 20000]);
    const events = await userEvents(t, t);
    const id = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19980, size: 2 });
    await step(t, t);
    expect(await modify(t, { orderId: id, size: 1, limitPrice: 19985 })).toEqual(ok);
    expect(events.orders.map((o) => [o.id, o.size, o.limitPrice, o.updateTimestamp])).toEqual([[id, 2, 19980, at(1)], [id, 1, 19985, at(2)]]);
    expect(events.all.map(([target, action]) => [target, action])).toEqual([['GatewayUserOrder', 0], ['GatewayUserOrder', 1]]);
  });

  it('a working stop-loss leg moves while its take-profit stays linked: the moved stop fills and cancels the take-profit', async () => {
    // Long at 20,000 with a stop at 19,998 (8 ticks) and a take-profit at 20,003 (12 ticks); the stop
    // moves up to 19,999.75. Bar 1 dips to 19,999 (low nearer): the moved stop fills at 19,999.75.
    const t = await liveApp([BAR0, [20000, 20002, 19999, 20001]]);
    const entry = await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: -8 }, takeProfitBracket: { ticks: 12 } });
    expect(await modify(t, { orderId: entry + 1, stopPrice: 19999.75 })).toEqual(ok);
    expect(brief(await openOrders(t, t))).toEqual([[entry + 2, 1, 1, 20003, null, null], [entry + 1, 1, 4, null, 19999.75, null]]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: entry + 1, fillPrice: 19999.75, fillQty: 1 }]);
    expect(brief(await orders(t, t)).slice(0, 2)).toEqual([[entry + 2, 3, 1, 20003, null, null], [entry + 1, 2, 4, null, 19999.75, 19999.75]]);
  });

  it('a suspended leg keeps status 8 with its new price, and works there once its entry fills', async () => {
    // Buy limit 19,990 with a stop 8 ticks under (19,988), moved to 19,986 while suspended. DOWN
    // falls to 19,985: the entry fills at 19,990, the moved leg starts working and fills at 19,986
    // on the same fall (the unmoved leg would have filled at 19,988).
    const t = await liveApp([BAR0, DOWN]);
    const entry = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, stopLossBracket: { ticks: -8 } });
    expect(await modify(t, { orderId: entry + 1, stopPrice: 19986 })).toEqual(ok);
    expect(await openOrders(t, t)).toEqual([
      liveOrder(t, { id: entry + 1, type: 4, side: 1, stopPrice: 19986, status: 8 }),
      liveOrder(t, { id: entry, limitPrice: 19990 }),
    ]);
    // A suspended leg may not grow past its entry.
    expect(await modify(t, { orderId: entry + 1, size: 2 })).toEqual(fail(3, 'A bracket order cannot exceed its entry order: 2 contracts asked, 1 ordered'));
    expect((await step(t, t)).filledOrders).toEqual([
      { orderId: entry, fillPrice: 19990, fillQty: 1 },
      { orderId: entry + 1, fillPrice: 19986, fillQty: 1 },
    ]);
  });

  it('a trailing stop\'s trailPrice: the stop is recomputed from the extreme reached', async () => {
    // Sell trailing stop, trail 5 points, after a long entry at 20,000: bar 1 reaches 20,004 (stop
    // 19,999); the trail becomes 1 point: stop 20,003. Bar 2 opens at 20,003.5 and falls to 20,002:
    // filled at 20,003.
    const t = await liveApp([BAR0, [20000, 20004, 20000, 20004], [20003.5, 20003.5, 20002, 20002]]);
    await placeOk(t, t, { type: 2, side: 0 });
    const id = await placeOk(t, t, { type: 5, side: 1, trailPrice: 5 });
    await step(t, t);
    expect((await openOrders(t, t)).map((o) => o.stopPrice)).toEqual([19999]);
    expect(await modify(t, { orderId: id, trailPrice: 1 })).toEqual(ok);
    expect(await openOrders(t, t)).toEqual([liveOrder(t, { id, type: 5, side: 1, stopPrice: 20003, updateTimestamp: at(2) })]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: id, fillPrice: 20003, fillQty: 1 }]);
  });
});

/** A working buy limit 19,990 (order 1), a long of 1 at 20,000 (order 2) with a trailing stop (3, trail 2) and a stop-limit (4). */
async function modifyTable() {
  const t = await liveApp([BAR0, 20000]);
  await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
  await placeOk(t, t, { type: 2, side: 0 });
  await placeOk(t, t, { type: 5, side: 1, trailPrice: 2 });
  await placeOk(t, t, { type: 3, side: 1, stopPrice: 19980, limitPrice: 19979 });
  const filled = await placeOk(t, t, { type: 2, side: 1, size: 1 }); // order 5: flat again
  await placeOk(t, t, { type: 1, side: 1, limitPrice: 21000 }); // order 6, canceled
  await t.post('Order/cancel', { accountId: t.accountId, orderId: 6 }, t.token);
  expect(filled).toBe(5);
  return t;
}

describe('Order/modify: every refusal row of the live table', () => {
  const rows: [string, Record<string, unknown>, number, string][] = [
    ['an account that does not exist', { accountId: 99_999, orderId: 1, limitPrice: 19985 }, 1, 'Account not found'],
    ['an account id that is no number', { accountId: 'abc', orderId: 1, limitPrice: 19985 }, 1, 'Account not found'],
    ['an unknown order', { orderId: 99, limitPrice: 19985 }, 2, 'Order not found'],
    ['an order id that is no number', { orderId: 'x', limitPrice: 19985 }, 2, 'Order not found'],
    ['a filled order', { orderId: 5, size: 2 }, 2, 'Order not found'],
    ['a canceled order', { orderId: 6, limitPrice: 20990 }, 2, 'Order not found'],
    ['size 0', { orderId: 1, size: 0 }, 3, 'Invalid order size'],
    ['a size that is no number', { orderId: 1, size: 'two' }, 3, 'Invalid order size'],
    ['a size past the maximum', { orderId: 1, size: 1_000_000 }, 3, 'Invalid order size'],
    ['a limitPrice that is no number', { orderId: 1, limitPrice: 'cheap' }, 3, 'limitPrice must be a number'],
    ['a stopPrice that is no number', { orderId: 4, stopPrice: '19981' }, 3, 'stopPrice must be a number'],
    ['a stopPrice on a limit', { orderId: 1, stopPrice: 19985 }, 3, 'A Limit order has no stopPrice'],
    ['a limitPrice on a trailing stop', { orderId: 3, limitPrice: 19985 }, 3, 'A TrailingStop order has no limitPrice'],
    ['a stopPrice on a trailing stop', { orderId: 3, stopPrice: 19985 }, 3, 'A TrailingStop order has no stopPrice'],
    ['a limitPrice off the grid', { orderId: 1, limitPrice: 19990.1 }, 3, 'limitPrice 19990.1 is not a multiple of the tick size 0.25'],
    ['a limitPrice out of range', { orderId: 1, limitPrice: 1e12 }, 3, 'limitPrice 1000000000000 is out of range'],
    ['a trailPrice on a limit', { orderId: 1, trailPrice: 2 }, 3, 'trailPrice applies to TrailingStop orders only'],
    ['a trailPrice that is no number', { orderId: 3, trailPrice: 'wide' }, 3, 'trailPrice must be a number'],
    ['a trailPrice of 0', { orderId: 3, trailPrice: 0 }, 3, 'trailPrice must be greater than 0'],
    ['a trailPrice off the grid', { orderId: 3, trailPrice: 0.1 }, 3, 'trailPrice must be a multiple of the tick size'],
    ['a trailPrice past the maximum', { orderId: 3, trailPrice: 300_000 }, 3, 'trailPrice is out of range'],
    ['a limitPrice at 0 (the engine\'s refusal)', { orderId: 1, limitPrice: 0 }, 3, 'limitPrice must be greater than 0'],
    ['a size the margin cannot carry', { orderId: 1, size: 51 }, 3, 'Insufficient margin: 51 NQ contracts need $51,000.00 day-trade margin, $49,997.20 available'],
  ];

  it.each(rows.map(([name, body, code, message]) => [`${name}: errorCode ${code}`, body, code, message] as const))('%s', async (_n, body, errorCode, errorMessage) => {
    const t = await modifyTable();
    const before = [await orders(t, t), await openOrders(t, t), await snapshot(t, t)];
    expect(await modify(t, body)).toEqual(fail(errorCode, errorMessage));
    expect([await orders(t, t), await openOrders(t, t), await snapshot(t, t)]).toEqual(before);
  });

  it('another user\'s account: 1', async () => {
    const t = await modifyTable();
    const other = await otherUserSession(t);
    expect(await modify(t, { orderId: 1, limitPrice: 19985 }, other.token)).toEqual(fail(1, 'Account not found'));
  });

  it('an ended session: 2', async () => {
    const t = await modifyTable();
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(await modify(t, { orderId: 1, limitPrice: 19985 })).toEqual(fail(2, 'Order not found'));
  });

  it('a challenge account that failed: 6 (AccountRejected) with the spec\'s "Account violation"', async () => {
    // 50K challenge, maximum loss $2,000: long 2 at 20,000, then a bar at 19,900 (−$4,000) violates it.
    const t = await challengeApp([['2025-03-04T15:00:00Z', 20_000], ['2025-03-04T15:01:00Z', 19_900], ['2025-03-04T15:02:00Z', 19_900]]);
    await t.s.users.setKeyProfile(t.email, 'live');
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await step(t, x);
    await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: 0, size: 2 }, t.token);
    const limit = (await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 1, side: 0, size: 1, limitPrice: 19_000 }, t.token)).body.orderId;
    const violated = await t.post('Replay/step', { accountId: x.accountId }, t.token);
    expect(violated.body.propFirm.status).toBe('violated');
    for (const accountId of [x.accountId, c]) {
      const r = await t.post('Order/modify', { accountId, orderId: limit, limitPrice: 19_005 }, t.token);
      expect(r.body).toEqual(fail(6, 'Account violation'));
    }
  });
});

describe('Order/modify under the spec', () => {
  it('answers errorCode 3 and changes nothing, on the same session a live modify changes', async () => {
    const t = await liveApp([BAR0, 20000]);
    const id = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19980 });
    const before = await orders(t, t);
    const spec = await specPost(t, 'Order/modify', { accountId: t.accountId, orderId: id, limitPrice: 19990, size: 2 });
    expect(spec).toEqual(fail(3, 'Order modification not supported in simulator'));
    expect(await orders(t, t)).toEqual(before);
    // A key that chose the spec gets the same, whatever the server's default.
    await t.s.users.setKeyProfile(t.email, 'spec');
    expect(await modify(t, { orderId: id, limitPrice: 19990 })).toEqual(fail(3, 'Order modification not supported in simulator'));
    expect((await specPost(t, 'Order/search', { accountId: t.accountId })).orders[0].limitPrice).toBe(19980);
  });
});
