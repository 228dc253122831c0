// The live gateway's order model over REST (docs/gateway-profile.md, engine.ts "Model", matching.ts
// rules 9 and 10), under API_PROFILE=live, per order type, against fills worked out by hand on
// recorded bars: one imported 1 s bar a minute from 14:30 on 2025-03-03 (test/support/replay.ts), so
// each Replay/step plays one bar and every fill price follows from the intrabar path (matching.ts
// rule 2: open, the nearer of high and low, the other, close). NQ: $5 a tick, $20 a point, $1.40 a
// side; the account starts at $50,000.
import { describe, expect, it } from 'bun:test';
import { brief, compact, liveApp, liveOrder, specPost, userEvents } from '../../support/live.ts';
import { at, type BarSpec, openOrders, orders, place, placeOk, snapshot, step, trades } from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000]; // closes at 20,000: the last price after the first step
const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

describe('TrailingStop (type 5) with trailPrice', () => {
  it('follows the price between steps, and a fast bar that ratchets it, then crosses it, fills it at the raised stop', async () => {
    // Bar 1 rises to 20,004 (the stop follows to 19,999); bar 2 dips to 20,003 first (low nearer),
    // then reaches 20,006 (stop 20,001). Bar 3 dips to 20,004, rises to 20,015 (stop 20,010), then
    // falls to its close 20,006 through the raised stop: filled at the stop, 20,010 (rule 10).
    const t = await liveApp([BAR0, [20000, 20004, 20000, 20004], [20004, 20006, 20003, 20005], [20005, 20015, 20004, 20006], 20006]);
    await placeOk(t, t, { type: 2, side: 0 }); // long 1 at 20,000
    expect((await place(t, t, { type: 5, side: 1, trailPrice: 5 })).body).toEqual({ orderId: 2, ...ok });
    const trailing = liveOrder(t, { id: 2, type: 5, side: 1, stopPrice: 19995 });
    expect(await openOrders(t, t)).toEqual([trailing]);
    await step(t, t);
    expect(await openOrders(t, t)).toEqual([{ ...trailing, stopPrice: 19999 }]);
    await step(t, t);
    expect(await openOrders(t, t)).toEqual([{ ...trailing, stopPrice: 20001 }]);

    const fast = await step(t, t);
    expect(fast.filledOrders).toEqual([{ orderId: 2, fillPrice: 20010, fillQty: 1 }]);
    // +10 points × $20 − 2 × $1.40.
    expect(fast.account).toMatchObject({ balance: 50197.2, positions: 0, pendingOrders: 0 });
    expect(await openOrders(t, t)).toEqual([]);
    expect((await orders(t, t))[0]).toEqual({ ...trailing, stopPrice: 20010, status: 2, updateTimestamp: at(3), fillVolume: 1, filledPrice: 20010 });
  });

  it('a bar opening beyond the stop fills it at the open, worse than the stop (rule 3)', async () => {
    const t = await liveApp([BAR0, [20003, 20003, 20001, 20002], [19990, 19992, 19988, 19989]]);
    await placeOk(t, t, { type: 2, side: 0 });
    await placeOk(t, t, { type: 5, side: 1, trailPrice: 2.5 }); // stop 19,997.50
    await step(t, t); // extreme 20,003: stop 20,000.50
    expect((await openOrders(t, t)).map((o) => o.stopPrice)).toEqual([20000.5]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: 2, fillPrice: 19990, fillQty: 1 }]);
  });

  it('a buy trailing stop entry from flat follows the price down and buys on the rise', async () => {
    // Stop 20,002 (last 20,000 + 2); bar 1 falls to 19,994 (stop 19,996), closes at 19,995; bar 2
    // rises from 19,995 to 19,998: through 19,996, filled there.
    const t = await liveApp([BAR0, [20000, 20000, 19994, 19995], [19995, 19998, 19995, 19998]]);
    await placeOk(t, t, { type: 5, side: 0, trailPrice: 2 });
    await step(t, t);
    expect((await openOrders(t, t)).map((o) => [o.type, o.side, o.stopPrice])).toEqual([[5, 0, 19996]]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: 1, fillPrice: 19996, fillQty: 1 }]);
  });
});

describe('a market entry with a trailing stop-loss {ticks: -20, type: 5} and a take-profit {ticks: 40, type: 1}', () => {
  it('spawns a sell trailing stop 5 points under the fill and a sell limit 10 over it; the trailing leg fills as it ratchets, the take-profit is canceled', async () => {
    // Fill 20,000: stop 19,995 (trail 20 ticks), take-profit 20,010. Bar 1 rises to 20,008 (stop
    // 20,003); bar 2 reaches 20,009 first (high nearer: stop 20,004), then falls to 20,002: filled at 20,004.
    const t = await liveApp([BAR0, [20000, 20008, 20000, 20008], [20008, 20009, 20002, 20002]]);
    const r = await place(t, t, { type: 2, side: 0, stopLossBracket: { ticks: -20, type: 5 }, takeProfitBracket: { ticks: 40, type: 1 } });
    expect(r.body).toEqual({ orderId: 1, ...ok });
    const sl = liveOrder(t, { id: 2, type: 5, side: 1, stopPrice: 19995 });
    const tp = liveOrder(t, { id: 3, type: 1, side: 1, limitPrice: 20010 });
    expect(await openOrders(t, t)).toEqual([tp, sl]);
    await step(t, t);
    expect(await openOrders(t, t)).toEqual([tp, { ...sl, stopPrice: 20003 }]);
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 2, fillPrice: 20004, fillQty: 1 }]);
    // +4 points × $20 − 2 × $1.40.
    expect(hit.account).toMatchObject({ balance: 50077.2, positions: 0, pendingOrders: 0 });
    expect(brief(await orders(t, t))).toEqual([
      [3, 3, 1, 20010, null, null],
      [2, 2, 5, null, 20004, 20004],
      [1, 2, 2, null, null, 20000],
    ]);
  });

  it('short: {ticks: 20, type: 5} and {ticks: -40, type: 1}; the take-profit fills and cancels the trailing leg', async () => {
    // Fill 20,000 short: stop 20,005, take-profit 19,990. Bar 1 falls to 19,990: the stop follows
    // to 19,995 on the way, the take-profit fills at 19,990.
    const t = await liveApp([BAR0, [20000, 20000, 19990, 19992]]);
    await placeOk(t, t, { type: 2, side: 1, stopLossBracket: { ticks: 20, type: 5 }, takeProfitBracket: { ticks: -40, type: 1 } });
    expect(brief(await openOrders(t, t))).toEqual([[3, 1, 1, 19990, null, null], [2, 1, 5, null, 20005, null]]);
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 3, fillPrice: 19990, fillQty: 1 }]);
    expect(brief(await orders(t, t))).toEqual([
      [3, 2, 1, 19990, null, 19990],
      [2, 3, 5, null, 19995, null],
      [1, 2, 2, null, null, 20000],
    ]);
    expect(hit.account.balance).toBe(50197.2);
  });
});

describe('JoinBid (6) / JoinAsk (7)', () => {
  // [name, side, type, price joined, the next bar, fill price]: placed at the synthetic bid (the last
  // price, 20,000) or ask (one tick above), never filled at placement, filled by a later price.
  const cases: [string, number, number, number, BarSpec, number][] = [
    // 20,001 → 20,000 (low nearer): touches the bid joined.
    ['a buy JoinBid', 0, 6, 20000, [20001, 20003, 20000, 20002], 20000],
    // 19,999 → 19,998 → 20,001: the rise touches the ask joined.
    ['a sell JoinAsk', 1, 7, 20000.25, [19999, 20001, 19998, 20000], 20000.25],
    // A sell limit at the last price would fill at once; a JoinBid waits for the next trade there.
    ['a sell JoinBid, marketable as a limit', 1, 6, 20000, 20000, 20000],
    // A buy limit above the last price would fill at once; the next bar opens below it: filled at its open.
    ['a buy JoinAsk, marketable as a limit', 0, 7, 20000.25, 20000, 20000],
  ];

  it.each(cases)('%s rests at the price it joined, passive on the placing bar, then fills on the next', async (_n, side, type, joined, next, fillPrice) => {
    const t = await liveApp([BAR0, next]);
    // A limit or stop price sent with them is ignored.
    expect((await place(t, t, { type, side, limitPrice: 19000, stopPrice: 21000 })).body).toEqual({ orderId: 1, ...ok });
    const working = liveOrder(t, { type, side, limitPrice: joined });
    expect(await openOrders(t, t)).toEqual([working]);
    expect(await trades(t, t)).toEqual([]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: 1, fillPrice, fillQty: 1 }]);
    expect(await orders(t, t)).toEqual([{ ...working, status: 2, updateTimestamp: at(1), fillVolume: 1, filledPrice: fillPrice }]);
  });

  it('a plain limit at the same prices fills at once (the difference JoinBid / JoinAsk make)', async () => {
    const t = await liveApp([BAR0, 20000]);
    await placeOk(t, t, { type: 1, side: 1, limitPrice: 20000 });
    expect(brief(await orders(t, t))).toEqual([[1, 2, 1, 20000, null, 20000]]);
  });
});

describe('one-cancels-other through linkedOrderId', () => {
  it('the fill of one cancels the other; a cancel of one leaves the other', async () => {
    // Bar 1 falls to 19,985: the buy limit at 19,990 fills; the linked sell limit at 20,010 is canceled.
    const t = await liveApp([BAR0, [20000, 20000, 19985, 19995]]);
    const buy = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    const sell = await placeOk(t, t, { type: 1, side: 1, limitPrice: 20010, linkedOrderId: buy });
    const other = await placeOk(t, t, { type: 1, side: 1, limitPrice: 20020 });
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: buy, fillPrice: 19990, fillQty: 1 }]);
    expect(brief(await orders(t, t))).toEqual([
      [other, 1, 1, 20020, null, null],
      [sell, 3, 1, 20010, null, null],
      [buy, 2, 1, 19990, null, 19990],
    ]);
    expect((await orders(t, t)).find((o) => o.id === sell).updateTimestamp).toBe(at(1));
  });

  it('canceling a linked order does not cancel its partner', async () => {
    const t = await liveApp([BAR0]);
    const a = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    const b = await placeOk(t, t, { type: 1, side: 1, limitPrice: 20010, linkedOrderId: a });
    expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: a }, t.token)).body).toEqual(ok);
    expect(brief(await openOrders(t, t))).toEqual([[b, 1, 1, 20010, null, null]]);
  });

  it.each([
    ['an unknown order', 99],
    ['a filled order', 1],
  ])('a link to %s is refused and nothing is placed', async (_n, linkedOrderId) => {
    const t = await liveApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 }); // order 1, filled
    const before = await orders(t, t);
    const r = await place(t, t, { type: 1, side: 1, limitPrice: 20010, linkedOrderId });
    expect(r.body).toEqual(fail(2, 'linkedOrderId names no working order of this account'));
    expect(await orders(t, t)).toEqual(before);
  });
});

describe('customTag', () => {
  it('is echoed in Order/search, Order/searchOpen and the user hub\'s order events; a second order with the same tag is refused', async () => {
    const t = await liveApp([BAR0, 20000]);
    const events = await userEvents(t, t);
    const id = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, customTag: 'signal-7:entry' });
    const tagged = liveOrder(t, { id, limitPrice: 19990, customTag: 'signal-7:entry' });
    expect(await orders(t, t)).toEqual([tagged]);
    expect(await openOrders(t, t)).toEqual([tagged]);
    // The hub's event: the same order, null fields left out (docs/realtime.md).
    expect(events.orders).toEqual([compact(tagged)]);

    const again = await place(t, t, { type: 2, side: 1, customTag: 'signal-7:entry' });
    expect(again.body).toEqual(fail(2, 'An order with customTag "signal-7:entry" already exists on this account'));
    expect(await orders(t, t)).toEqual([tagged]);
    // Canceled, the tag is still taken: it names that order in the account's history.
    await t.post('Order/cancel', { accountId: t.accountId, orderId: id }, t.token);
    expect((await place(t, t, { type: 2, side: 1, customTag: 'signal-7:entry' })).body.errorCode).toBe(2);
    // Another tag is fine, and a filled order's event echoes it.
    const filled = await placeOk(t, t, { type: 2, side: 1, customTag: 'signal-8:entry' });
    expect(events.orders.filter((o) => o.id === filled).map((o) => [o.status, o.customTag])).toEqual([[1, 'signal-8:entry'], [2, 'signal-8:entry']]);
  });

  it('the spec never echoes it', async () => {
    const t = await liveApp([BAR0]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, customTag: 'mine' });
    expect((await specPost(t, 'Order/search', { accountId: t.accountId })).orders[0].customTag).toBeNull();
  });
});

describe('suspended bracket legs (status 8)', () => {
  it('a limit entry lists its legs as 8 before the fill, in Order/search and searchOpen; 1 once it fills', async () => {
    // Entry: buy limit 19,990 with a stop-loss 8 ticks under (19,988) and a take-profit 12 over
    // (19,993). Bar 1 falls from 20,000 to 19,990 exactly and closes at 19,991: the entry fills, the
    // legs start working and the close reaches neither.
    const t = await liveApp([BAR0, [20000, 20000, 19990, 19991], 19991]);
    const id = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, stopLossBracket: { ticks: -8 }, takeProfitBracket: { ticks: 12 } });
    const entry = liveOrder(t, { id, limitPrice: 19990 });
    const sl = liveOrder(t, { id: id + 1, type: 4, side: 1, stopPrice: 19988, status: 8 });
    const tp = liveOrder(t, { id: id + 2, type: 1, side: 1, limitPrice: 19993, status: 8 });
    expect(await orders(t, t)).toEqual([tp, sl, entry]);
    expect(await openOrders(t, t)).toEqual([tp, sl, entry]);
    // Suspended legs are not working orders: the snapshot counts the entry only.
    expect((await snapshot(t, t)).pendingOrders).toBe(1);

    expect((await step(t, t)).filledOrders).toEqual([{ orderId: id, fillPrice: 19990, fillQty: 1 }]);
    expect(await openOrders(t, t)).toEqual([{ ...tp, status: 1 }, { ...sl, status: 1 }]);
    expect((await orders(t, t))[2]).toEqual({ ...entry, status: 2, updateTimestamp: at(1), fillVolume: 1, filledPrice: 19990 });
  });

  it('canceling the entry cancels its legs', async () => {
    const t = await liveApp([BAR0]);
    const id = await placeOk(t, t, { type: 4, side: 0, stopPrice: 20010, stopLossBracket: { ticks: -8 }, takeProfitBracket: { ticks: 12 } });
    expect(brief(await openOrders(t, t))).toEqual([[id + 2, 8, 1, 20013, null, null], [id + 1, 8, 4, null, 20008, null], [id, 1, 4, null, 20010, null]]);
    expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: id }, t.token)).body).toEqual(ok);
    expect(await openOrders(t, t)).toEqual([]);
    expect((await orders(t, t)).map((o) => [o.id, o.status])).toEqual([[id + 2, 3], [id + 1, 3], [id, 3]]);
  });
});

describe('rejected records (status 5)', () => {
  it('an order refused for margin answers 3 (InsufficientFunds) with the reason and is listed as 5', async () => {
    const t = await liveApp([BAR0]);
    const r = await place(t, t, { type: 2, side: 0, size: 51, customTag: 'too-big' });
    expect(r.body).toEqual(fail(3, 'Insufficient margin: 51 NQ contracts need $51,000.00 day-trade margin, $50,000.00 available'));
    expect(await orders(t, t)).toEqual([liveOrder(t, { type: 2, size: 51, status: 5, customTag: 'too-big' })]);
    expect(await openOrders(t, t)).toEqual([]);
    expect(await trades(t, t)).toEqual([]);
    expect((await snapshot(t, t)).balance).toBe(50000);
  });

  it('a refusal for another reason answers 2 and is listed as 5 too', async () => {
    // No bar played and no history: a market order has no price to fill at.
    const t = await liveApp([BAR0], 0);
    const r = await place(t, t, { type: 2, side: 1 });
    expect(r.body).toEqual(fail(2, 'No market price is available yet'));
    expect(brief(await orders(t, t))).toEqual([[1, 5, 2, null, null, null]]);
    // Placed at the session's start, before any bar.
    expect((await orders(t, t))[0].creationTimestamp).toBe('2025-03-03T00:00:00Z');
  });

  it('a malformed request is refused with nothing recorded', async () => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 1, side: 0 })).body).toEqual(fail(2, 'limitPrice is required for this order type'));
    expect(await orders(t, t)).toEqual([]);
  });
});

describe('expired (status 4)', () => {
  it('orders working at Replay/end, suspended legs too, are listed as 4 under live and 3 under the spec', async () => {
    const t = await liveApp([BAR0, 20000]);
    const limit = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, stopLossBracket: { ticks: -8 } });
    const stop = await placeOk(t, t, { type: 4, side: 1, stopPrice: 19980 });
    const canceled = await placeOk(t, t, { type: 1, side: 0, limitPrice: 19000 });
    await t.post('Order/cancel', { accountId: t.accountId, orderId: canceled }, t.token);
    await step(t, t);
    expect((await t.post('Replay/end', { accountId: t.accountId }, t.token)).body.success).toBe(true);
    const ended = [[canceled, 3], [stop, 4], [limit + 1, 4], [limit, 4]];
    expect((await orders(t, t)).map((o) => [o.id, o.status])).toEqual(ended);
    expect((await orders(t, t)).map((o) => o.updateTimestamp)).toEqual([at(1), at(2), at(2), at(2)]);
    const spec = await specPost(t, 'Order/search', { accountId: t.accountId });
    // The spec's view: no status 4 (or 8: the leg reads as a pending stop that never worked).
    expect(spec.orders.map((o: any) => [o.id, o.status])).toEqual([[canceled, 3], [stop, 3], [limit + 1, 3], [limit, 3]]);
  });
});
