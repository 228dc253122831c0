import { describe, expect, it } from 'bun:test';
import {
  account, at, type BarSpec, ES_CONTRACT, openOrders, orderObject, orders, otherUserSession, place, placeOk, positions,
  replayApp, snapshot, startSession, step, tradeObject, tradingApp, trades,
} from '../../support/replay.ts';

// Bar 0 (14:30) closes at 20000 with a range around it, so a market order placed after the first
// step fills at the close and not at the open, high or low. Bar 1 (14:31) is flat at 20000 and
// reaches no pending order of the tests below.
const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const UP: BarSpec = [20000, 20015, 20000, 20005]; // touches 20010 and 20008 on the way up
const DOWN: BarSpec = [20000, 20000, 19985, 19995]; // touches 19990 and 19992 on the way down

const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

describe('Order/place: market orders', () => {
  it.each([
    ['buy', 0, 1],
    ['sell', 1, 2],
  ])('a market %s fills at once at the last close', async (_n, side, positionType) => {
    const t = await tradingApp([BAR0, 20000]);
    const r = await place(t, t, { type: 2, side });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ orderId: 1, ...ok });
    expect(await orders(t, t)).toEqual([
      orderObject(t, { type: 2, side, status: 2, updateTimestamp: at(1), fillVolume: 1, filledPrice: 20000 }),
    ]);
    expect(await openOrders(t, t)).toEqual([]);
    expect(await trades(t, t)).toEqual([tradeObject(t, { side })]);
    expect((await positions(t, t)).map((p) => [p.type, p.size, p.averagePrice])).toEqual([[positionType, 1, 20000]]);
    expect(await snapshot(t, t)).toEqual(account(49998.6, { marginUsed: 1000, positions: 1 }));
    // Filled on placement: the next step reports no fill of it.
    expect((await step(t, t)).filledOrders).toEqual([]);
  });

  it('before the first step a market order fills at the close of the last history bar, at the session start', async () => {
    const t = await tradingApp([BAR0], 0, { historyClose: 19950 });
    expect(await placeOk(t, t, { type: 2, side: 0, size: 2 })).toBe(1);
    expect(await trades(t, t)).toEqual([
      tradeObject(t, { price: 19950, size: 2, fees: 2.8, creationTimestamp: '2025-03-03T00:00:00Z' }),
    ]);
  });

  it('without any earlier price a market order is rejected', async () => {
    const t = await tradingApp([BAR0], 0);
    expect((await place(t, t, { type: 2, side: 0 })).body).toEqual(fail(2, 'No market price is available yet'));
    expect(await orders(t, t)).toEqual([]);
  });
});

describe('Order/place: pending orders', () => {
  // [name, request, reaching bar, fill price, position type, unrealized P&L at the bar's close]
  const cases: [string, Record<string, unknown>, BarSpec, number, number, number][] = [
    ['buy limit', { type: 1, side: 0, limitPrice: 19990 }, DOWN, 19990, 1, 100],
    ['sell limit', { type: 1, side: 1, limitPrice: 20010 }, UP, 20010, 2, 100],
    // Armed at 20010 on the way up, it rests as a buy limit at 20008 and fills on the way to the close.
    ['buy stop-limit', { type: 3, side: 0, stopPrice: 20010, limitPrice: 20008 }, UP, 20008, 1, -60],
    ['sell stop-limit', { type: 3, side: 1, stopPrice: 19990, limitPrice: 19992 }, DOWN, 19992, 2, -60],
    ['buy stop', { type: 4, side: 0, stopPrice: 20010 }, UP, 20010, 1, -100],
    ['sell stop', { type: 4, side: 1, stopPrice: 19990 }, DOWN, 19990, 2, -100],
  ];

  it.each(cases)('%s: pending until a step reaches it, then filled', async (_n, req, reaching, fillPrice, posType, upnl) => {
    const t = await tradingApp([BAR0, 20000, reaching]);
    expect(await placeOk(t, t, req)).toBe(1);
    const prices = { limitPrice: req.limitPrice ?? null, stopPrice: req.stopPrice ?? null };
    const pending = orderObject(t, { type: req.type, side: req.side, ...prices });
    expect(await orders(t, t)).toEqual([pending]);
    expect(await openOrders(t, t)).toEqual([{ ...pending, status: 1 }]);
    expect(await trades(t, t)).toEqual([]);
    expect(await positions(t, t)).toEqual([]);
    expect(await snapshot(t, t)).toEqual(account(50000, { pendingOrders: 1 }));

    const quiet = await step(t, t);
    expect(quiet.filledOrders).toEqual([]);
    expect(quiet.account).toEqual(account(50000, { pendingOrders: 1 }));
    expect(await openOrders(t, t)).toEqual([{ ...pending, status: 1 }]);

    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 1, fillPrice, fillQty: 1 }]);
    expect(hit.account).toEqual({
      balance: 49998.6, equity: 49998.6 + upnl, unrealizedPnl: upnl, marginUsed: 1000, positions: 1, pendingOrders: 0,
    });
    expect(await orders(t, t)).toEqual([{ ...pending, status: 2, updateTimestamp: at(2), fillVolume: 1, filledPrice: fillPrice }]);
    expect(await openOrders(t, t)).toEqual([]);
    expect(await trades(t, t)).toEqual([tradeObject(t, { price: fillPrice, side: req.side, creationTimestamp: at(2) })]);
    expect((await positions(t, t)).map((p) => [p.type, p.size, p.averagePrice])).toEqual([[posType, 1, fillPrice]]);
  });

  it.each([
    ['buy limit above the market', { type: 1, side: 0, limitPrice: 20005 }],
    ['sell limit below the market', { type: 1, side: 1, limitPrice: 19995 }],
    ['buy stop below the market', { type: 4, side: 0, stopPrice: 19995 }],
    ['sell stop above the market', { type: 4, side: 1, stopPrice: 20005 }],
  ])('a %s is marketable on placement and fills at once at the last price', async (_n, req) => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, req);
    const [o] = await orders(t, t);
    expect([o.status, o.fillVolume, o.filledPrice, o.updateTimestamp]).toEqual([2, 1, 20000, at(1)]);
    expect(await trades(t, t)).toEqual([tradeObject(t, { side: req.side })]);
  });

  it('prices the type does not use are ignored and reported null', async () => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 2, side: 0, limitPrice: 19000, stopPrice: 21000 });
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19000, stopPrice: 21000 });
    await placeOk(t, t, { type: 4, side: 0, limitPrice: 19000, stopPrice: 21000 });
    expect((await orders(t, t)).map((o) => [o.id, o.limitPrice, o.stopPrice])).toEqual([
      [3, null, 21000],
      [2, 19000, null],
      [1, null, null],
    ]);
  });

  it('unknown request fields are ignored', async () => {
    const t = await tradingApp([BAR0, 20000]);
    const r = await place(t, t, {
      type: 1, side: 0, limitPrice: 19990, customTag: 'my-tag', linkedOrderId: 77, isAutomated: true, trailPrice: 5, live: false,
    });
    expect(r.body).toEqual({ orderId: 1, ...ok });
    expect(await orders(t, t)).toEqual([orderObject(t, { limitPrice: 19990 })]);
  });
});

describe('Order/place: brackets', () => {
  it('{ticks: N} on a market buy spawns a sell stop and a sell limit N ticks from the fill; take-profit cancels stop-loss', async () => {
    const t = await tradingApp([BAR0, [20000, 20004, 20000, 20002]]);
    await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 } });
    const sl = orderObject(t, { id: 2, type: 4, side: 1, stopPrice: 19998 });
    const tp = orderObject(t, { id: 3, type: 1, side: 1, limitPrice: 20003 });
    expect(await openOrders(t, t)).toEqual([{ ...tp, status: 1 }, { ...sl, status: 1 }]);
    expect(await snapshot(t, t)).toEqual(account(49998.6, { marginUsed: 1000, positions: 1, pendingOrders: 2 }));

    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 3, fillPrice: 20003, fillQty: 1 }]);
    // 3 points × $20 − 2 × $1.40.
    expect(hit.account).toEqual(account(50057.2));
    expect((await orders(t, t)).map((o) => [o.id, o.status, o.filledPrice, o.updateTimestamp])).toEqual([
      [3, 2, 20003, at(1)],
      [2, 3, null, null],
      [1, 2, 20000, at(1)],
    ]);
    expect(await positions(t, t)).toEqual([]);
    expect((await trades(t, t)).map((f) => [f.orderId, f.side, f.price])).toEqual([[3, 1, 20003], [1, 0, 20000]]);
  });

  it('the gateway form {ticks: -N, type} is accepted: the sign is ignored and the direction comes from the side', async () => {
    const t = await tradingApp([BAR0, [20000, 20003, 20000, 20001]]);
    await placeOk(t, t, { type: 2, side: 1, stopLossBracket: { ticks: -8, type: 4 }, takeProfitBracket: { ticks: -12, type: 1 } });
    expect(await openOrders(t, t)).toEqual([
      orderObject(t, { id: 3, type: 1, side: 0, limitPrice: 19997, status: 1 }),
      orderObject(t, { id: 2, type: 4, side: 0, stopPrice: 20002, status: 1 }),
    ]);
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 2, fillPrice: 20002, fillQty: 1 }]);
    // Short from 20000 stopped at 20002: −2 points × $20 − 2 × $1.40.
    expect(hit.account).toEqual(account(49957.2));
    expect((await orders(t, t)).map((o) => o.status)).toEqual([3, 2, 2]);
  });

  it('a pending limit entry anchors its brackets at the limit price, not at the (better) fill price', async () => {
    // Bar 1 opens at 19985, below the 19990 limit: the entry fills at 19985.
    const t = await tradingApp([BAR0, [19985, 19987, 19984, 19986]]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990, stopLossBracket: { ticks: 80 }, takeProfitBracket: { ticks: 40 } });
    expect(await openOrders(t, t)).toEqual([orderObject(t, { limitPrice: 19990, status: 1 })]);
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 1, fillPrice: 19985, fillQty: 1 }]);
    expect(await openOrders(t, t)).toEqual([
      orderObject(t, { id: 3, type: 1, side: 1, limitPrice: 20000, status: 1 }),
      orderObject(t, { id: 2, type: 4, side: 1, stopPrice: 19970, status: 1 }),
    ]);
    expect((await positions(t, t)).map((p) => [p.type, p.size, p.averagePrice])).toEqual([[1, 1, 19985]]);
  });

  it('a pending stop entry anchors its brackets at the stop price', async () => {
    // Bar 1 gaps up through the 20010 stop and opens at 20012: the entry fills at 20012.
    const t = await tradingApp([BAR0, [20012, 20013, 20011, 20012]]);
    await placeOk(t, t, { type: 4, side: 0, stopPrice: 20010, stopLossBracket: { ticks: 20 } });
    const hit = await step(t, t);
    expect(hit.filledOrders).toEqual([{ orderId: 1, fillPrice: 20012, fillQty: 1 }]);
    expect(await openOrders(t, t)).toEqual([orderObject(t, { id: 2, type: 4, side: 1, stopPrice: 20005, status: 1 })]);
  });

  it('a stop-limit entry anchors its brackets at the limit price', async () => {
    const t = await tradingApp([BAR0, 20000, UP]);
    await placeOk(t, t, {
      type: 3, side: 0, stopPrice: 20010, limitPrice: 20008, stopLossBracket: { ticks: 40 }, takeProfitBracket: { ticks: 8 },
    });
    await step(t, t);
    expect(await openOrders(t, t)).toEqual([orderObject(t, { type: 3, stopPrice: 20010, limitPrice: 20008, status: 1 })]);
    expect((await step(t, t)).filledOrders).toEqual([{ orderId: 1, fillPrice: 20008, fillQty: 1 }]);
    expect((await openOrders(t, t)).map((o) => [o.id, o.type, o.side, o.limitPrice, o.stopPrice, o.creationTimestamp])).toEqual([
      [3, 1, 1, 20010, null, at(2)],
      [2, 4, 1, null, 19998, at(2)],
    ]);
  });

  it('an entry that only reduces the position gets no brackets; one that flips it gets legs for the new side', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0, size: 2 });
    await placeOk(t, t, { type: 2, side: 1, stopLossBracket: { ticks: 8 } });
    expect(await openOrders(t, t)).toEqual([]);
    await placeOk(t, t, { type: 2, side: 1, size: 3, stopLossBracket: { ticks: 8 } });
    expect((await positions(t, t)).map((p) => [p.type, p.size])).toEqual([[2, 2]]);
    expect(await openOrders(t, t)).toEqual([orderObject(t, { id: 4, type: 4, side: 0, size: 2, stopPrice: 20002, status: 1 })]);
  });

  it.each([
    ['stopLossBracket', { ticks: 0 }],
    ['stopLossBracket', { ticks: 1.5 }],
    ['takeProfitBracket', { ticks: '8' }],
    ['takeProfitBracket', 8],
    ['takeProfitBracket', {}],
  ])('a bad %s %j is rejected with errorCode 2', async (name, value) => {
    const t = await tradingApp([BAR0]);
    const r = await place(t, t, { type: 2, side: 0, [name]: value });
    expect(r.body).toEqual(fail(2, `${name}.ticks must be a non-zero whole number of ticks`));
    expect(await orders(t, t)).toEqual([]);
  });

  it('null brackets are the same as none', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0, stopLossBracket: null, takeProfitBracket: null });
    expect(await openOrders(t, t)).toEqual([]);
  });
});

describe('Order/place: error rows', () => {
  const SIZE = 'Invalid order size';
  const TYPE = 'Invalid order type or side';
  // The table's account holds a long of 1 and a working sell of 1 when the row is tried.
  const MARGIN = 'Insufficient margin: 1001 NQ contracts need $1,001,000.00 day-trade margin, $49,998.60 available';
  const base = { type: 1, side: 0, size: 1, limitPrice: 19000 };
  const rows: [string, Record<string, unknown>, number, string][] = [
    ['size missing', { size: undefined }, 7, SIZE],
    ['size null', { size: null }, 7, SIZE],
    ['size 0', { size: 0 }, 7, SIZE],
    ['size -1', { size: -1 }, 7, SIZE],
    ['size 1.5', { size: 1.5 }, 7, SIZE],
    ['size 1001', { size: 1001 }, 7, SIZE],
    ['size "3"', { size: '3' }, 7, SIZE],
    ['type missing', { type: undefined }, 7, TYPE],
    ['type 0', { type: 0 }, 7, TYPE],
    ['type 5', { type: 5 }, 7, TYPE],
    ['type "1"', { type: '1' }, 7, TYPE],
    ['type 1.5', { type: 1.5 }, 7, TYPE],
    ['side missing', { side: undefined }, 7, TYPE],
    ['side 2', { side: 2 }, 7, TYPE],
    ['side -1', { side: -1 }, 7, TYPE],
    ['side "0"', { side: '0' }, 7, TYPE],
    ['accountId missing', { accountId: undefined }, 1, 'Account not found'],
    ['accountId unknown', { accountId: 999 }, 1, 'Account not found'],
    ['accountId as a string', { accountId: '1' }, 1, 'Account not found'],
    ['size 1000 (margin)', { type: 2, size: 1000 }, 2, MARGIN],
    ['size 1000 limit (margin counts working orders)', { size: 1000 }, 2, MARGIN],
    ['limit without limitPrice', { limitPrice: undefined }, 2, 'limitPrice is required for this order type'],
    ['limit with a string limitPrice', { limitPrice: '19000' }, 2, 'limitPrice is required for this order type'],
    ['stop-limit without limitPrice', { type: 3, stopPrice: 21000, limitPrice: null }, 2, 'limitPrice is required for this order type'],
    ['stop-limit without stopPrice', { type: 3 }, 2, 'stopPrice is required for this order type'],
    ['stop without stopPrice', { type: 4 }, 2, 'stopPrice is required for this order type'],
    ['limitPrice off the tick grid', { limitPrice: 19000.1 }, 2, 'limitPrice 19000.1 is not a multiple of the tick size 0.25'],
    ['stopPrice off the tick grid', { type: 4, stopPrice: 21000.3 }, 2, 'stopPrice 21000.3 is not a multiple of the tick size 0.25'],
    ['limitPrice out of range', { limitPrice: 1e12 }, 2, 'limitPrice 1000000000000 is out of range'],
    ['limitPrice 0', { limitPrice: 0 }, 2, 'limitPrice must be greater than 0'],
    ['limitPrice negative', { limitPrice: -100 }, 2, 'limitPrice must be greater than 0'],
    ['limitPrice 1e-9 (off the grid, not rounded to 0)', { limitPrice: 1e-9 }, 2, 'limitPrice 1e-9 is not a multiple of the tick size 0.25'],
    ['stopPrice negative', { type: 4, stopPrice: -20000 }, 2, 'stopPrice must be greater than 0'],
    ['stop-limit with a negative limitPrice', { type: 3, stopPrice: 21000, limitPrice: -0.25 }, 2, 'limitPrice must be greater than 0'],
    ['stop-limit with stopPrice 0', { type: 3, stopPrice: 0, limitPrice: 21000 }, 2, 'stopPrice must be greater than 0'],
    // Bracket legs are measured from the entry's price (its limit here, 4 ticks): the stop-loss would rest at 0.
    ['a buy limit whose stop-loss would land at 0', { limitPrice: 1, stopLossBracket: { ticks: 4 } }, 2, 'stopLossBracket would place the stop-loss at or below 0'],
    ['a market buy whose stop-loss would land below 0', { type: 2, stopLossBracket: { ticks: 100_000 } }, 2, 'stopLossBracket would place the stop-loss at or below 0'],
    ['a market sell whose take-profit would land below 0', { type: 2, side: 1, takeProfitBracket: { ticks: 100_000 } }, 2, 'takeProfitBracket would place the take-profit at or below 0'],
    ['another instrument', { contractId: ES_CONTRACT }, 2, 'This session trades NQ; ES cannot be traded in it'],
    ['unknown contract', { contractId: 'CON.F.US.ZZZ.H25' }, 2, 'Contract not found'],
    ['contractId missing', { contractId: undefined }, 2, 'Contract not found'],
  ];

  it.each(rows)('%s → %i %s, and nothing changes', async (_n, over, code, message) => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 1, side: 1, limitPrice: 21000 }); // one working order to compare against
    await placeOk(t, t, { type: 2, side: 0 }); // and a position
    const before = { orders: await orders(t, t), trades: await trades(t, t), account: await snapshot(t, t) };
    const r = await place(t, t, { ...base, ...over });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(fail(code, message));
    expect({ orders: await orders(t, t), trades: await trades(t, t), account: await snapshot(t, t) }).toEqual(before);
    expect(before.account).toEqual(account(49998.6, { marginUsed: 1000, positions: 1, pendingOrders: 1 }));
  });

  it('size 1000 fails the margin check, not the size check', async () => {
    const t = await tradingApp([BAR0]);
    const r = await place(t, t, { type: 2, side: 1, size: 1000 });
    expect(r.body).toEqual(fail(2, 'Insufficient margin: 1000 NQ contracts need $1,000,000.00 day-trade margin, $50,000.00 available'));
  });

  it('the size row is checked before the type row, and both before the account', async () => {
    const t = await tradingApp([BAR0]);
    expect((await place(t, t, { accountId: 999, type: 9, side: 9, size: 0 })).body).toEqual(fail(7, 'Invalid order size'));
    expect((await place(t, t, { accountId: 999, type: 9, side: 0 })).body).toEqual(fail(7, 'Invalid order type or side'));
  });

  it("another user's account → 1 Account not found, and that account is untouched", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    const r = await place(t, t, { accountId: other.accountId, type: 2, side: 0 });
    expect(r.body).toEqual(fail(1, 'Account not found'));
    const theirs = await t.post('Order/search', { accountId: other.accountId }, other.token);
    expect(theirs.body.orders).toEqual([]);
  });

  it('after Replay/end the account answers errorCode 2', async () => {
    const t = await tradingApp([BAR0, 20000]);
    expect((await t.post('Replay/end', { accountId: t.accountId }, t.token)).body.success).toBe(true);
    const r = await place(t, t, { type: 2, side: 0 });
    expect(r.body).toEqual(fail(2, 'The replay session of this account has ended'));
    expect(await orders(t, t)).toEqual([]);
  });
});

describe('Order/search', () => {
  it('lists every status, newest first', async () => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 2, side: 0 });
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await placeOk(t, t, { type: 4, side: 1, stopPrice: 19800, size: 2 });
    expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: 3 }, t.token)).body).toEqual(ok);
    const r = await t.post('Order/search', { accountId: t.accountId }, t.token);
    expect(r.body).toEqual({
      orders: [
        orderObject(t, { id: 3, type: 4, side: 1, size: 2, stopPrice: 19800, status: 3 }),
        orderObject(t, { id: 2, limitPrice: 19900 }),
        orderObject(t, { id: 1, type: 2, status: 2, updateTimestamp: at(1), fillVolume: 1, filledPrice: 20000 }),
      ],
      ...ok,
    });
  });

  it('orders of later steps carry later simulated times and come first', async () => {
    const t = await tradingApp([BAR0, 20000, 20000, 20000]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await step(t, t);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await step(t, t);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    expect((await orders(t, t)).map((o) => [o.id, o.creationTimestamp])).toEqual([
      [3, at(3)],
      [2, at(2)],
      [1, at(1)],
    ]);
  });

  it.each([
    ['no bounds', {}, [3, 2, 1]],
    ['null bounds', { startTimestamp: null, endTimestamp: null }, [3, 2, 1]],
    ['start inclusive', { startTimestamp: at(2) }, [3, 2]],
    ['end inclusive', { endTimestamp: at(2) }, [2, 1]],
    ['start = end', { startTimestamp: at(2), endTimestamp: at(2) }, [2]],
    ['start just after a submission', { startTimestamp: '2025-03-03T14:32:00.001Z' }, [3]],
    ['end just before a submission', { endTimestamp: '2025-03-03T14:31:59.999Z' }, [1]],
    ['start with a UTC offset', { startTimestamp: '2025-03-03T09:32:00-05:00' }, [3, 2]],
    ['empty range', { startTimestamp: at(3), endTimestamp: at(2) }, []],
  ])('bounds on submission time: %s', async (_n, bounds, ids) => {
    const t = await tradingApp([BAR0, 20000, 20000, 20000]);
    for (let i = 0; i < 3; i++) {
      await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
      await step(t, t);
    }
    expect((await orders(t, t, bounds)).map((o) => o.id)).toEqual(ids);
  });

  it('bounds apply to the submission time, not the fill time', async () => {
    const t = await tradingApp([BAR0, 20000, DOWN]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990 }); // submitted 14:31, filled 14:32 by bar 2
    await step(t, t, 2);
    expect(await orders(t, t, { startTimestamp: at(2) })).toEqual([]);
    expect((await orders(t, t, { endTimestamp: at(1) })).map((o) => [o.status, o.updateTimestamp])).toEqual([[2, at(2)]]);
  });

  it.each([
    ['unparseable startTimestamp', { startTimestamp: 'yesterday' }],
    ['unparseable endTimestamp', { endTimestamp: '2025-13-01T00:00:00Z' }],
    ['numeric startTimestamp', { startTimestamp: 1741012200 }],
  ])('%s → errorCode 2', async (_n, bounds) => {
    const t = await tradingApp([BAR0]);
    const r = await t.post('Order/search', { accountId: t.accountId, ...bounds }, t.token);
    expect(r.body).toEqual(fail(2, 'startTimestamp and endTimestamp must be ISO 8601 times'));
  });

  it('returns at most 200 orders, the newest', async () => {
    // A $50,000 account can hold at most 50 working NQ contracts per side, so each order is canceled
    // after it is placed; canceled orders are listed like any other.
    const t = await tradingApp([BAR0]);
    for (let i = 1; i <= 205; i++) {
      expect(await placeOk(t, t, { type: 1, side: i % 2, limitPrice: i % 2 ? 21000 : 19000 })).toBe(i);
      expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: i }, t.token)).body.success).toBe(true);
    }
    const list = await orders(t, t);
    expect(list.length).toBe(200);
    expect(list.map((o) => o.id)).toEqual(Array.from({ length: 200 }, (_, k) => 205 - k));
    expect(list.every((o) => o.status === 3)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
    ['a string', '1'],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    for (const path of ['Order/search', 'Order/searchOpen']) {
      expect((await t.post(path, { accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
    }
  });

  it("another user's account → 1 Account not found", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    for (const path of ['Order/search', 'Order/searchOpen']) {
      expect((await t.post(path, { accountId: other.accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
    }
  });

  it('after Replay/end the history stays searchable and searchOpen is empty', async () => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(await orders(t, t)).toEqual([orderObject(t, { limitPrice: 19900, status: 3 })]);
    expect(await openOrders(t, t)).toEqual([]);
  });

  it('a new session starts with no orders', async () => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 2, side: 0 });
    const next = await startSession(t);
    expect(next.accountId).not.toBe(t.accountId);
    expect(await orders(t, next)).toEqual([]);
    expect(await openOrders(t, next)).toEqual([]);
  });
});

describe('Order/cancel', () => {
  it('cancels a pending order: Canceled (3), no longer open, never filled', async () => {
    const t = await tradingApp([BAR0, DOWN]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    const r = await t.post('Order/cancel', { accountId: t.accountId, orderId: 1 }, t.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(ok);
    expect(await orders(t, t)).toEqual([orderObject(t, { limitPrice: 19990, status: 3 })]);
    expect(await openOrders(t, t)).toEqual([]);
    expect(await snapshot(t, t)).toEqual(account(50000));
    // The bar reaches 19990, but the order is gone.
    expect((await step(t, t)).filledOrders).toEqual([]);
    expect(await trades(t, t)).toEqual([]);
  });

  it.each([
    ['already canceled', 1],
    ['filled', 2],
    ['unknown', 999],
    ['missing', undefined],
    ['a string', '1'],
  ])('an order that is %s → 2 Order not found', async (_n, orderId) => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await t.post('Order/cancel', { accountId: t.accountId, orderId: 1 }, t.token);
    await placeOk(t, t, { type: 2, side: 0 });
    const before = await orders(t, t);
    const r = await t.post('Order/cancel', { accountId: t.accountId, orderId }, t.token);
    expect(r.body).toEqual(fail(2, 'Order not found'));
    expect(await orders(t, t)).toEqual(before);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    expect((await t.post('Order/cancel', { accountId, orderId: 1 }, t.token)).body).toEqual(fail(1, 'Account not found'));
    expect((await openOrders(t, t)).length).toBe(1);
  });

  it("another user's order cannot be canceled", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    await t.post('Order/place', { accountId: other.accountId, contractId: other.contractId, type: 1, side: 0, size: 1, limitPrice: 19900 }, other.token);
    const r = await t.post('Order/cancel', { accountId: other.accountId, orderId: 1 }, t.token);
    expect(r.body).toEqual(fail(1, 'Account not found'));
    const theirs = await t.post('Order/searchOpen', { accountId: other.accountId }, other.token);
    expect(theirs.body.orders.length).toBe(1);
  });

  it('after Replay/end → 2 Order not found', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: 1 }, t.token)).body).toEqual(fail(2, 'Order not found'));
  });

  it('canceling one bracket leg leaves the other working', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 } });
    expect((await t.post('Order/cancel', { accountId: t.accountId, orderId: 3 }, t.token)).body).toEqual(ok);
    expect((await openOrders(t, t)).map((o) => o.id)).toEqual([2]);
  });
});

describe('Order/modify', () => {
  it.each([
    ['an empty body', {}],
    ['a working order', { accountId: 1, orderId: 1, size: 2, limitPrice: 19950 }],
    ['an unknown account', { accountId: 999, orderId: 1 }],
  ])('%s → 3 Order modification not supported in simulator, order unchanged', async (_n, body) => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    const r = await t.post('Order/modify', body, t.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(fail(3, 'Order modification not supported in simulator'));
    expect(await orders(t, t)).toEqual([orderObject(t, { limitPrice: 19900 })]);
  });

  it('still needs a token', async () => {
    const t = await replayApp([BAR0]);
    const r = await t.post('Order/modify', {});
    expect(r.status).toBe(401);
  });
});
