import { describe, expect, it } from 'bun:test';
import {
  account, at, type BarSpec, ES_CONTRACT, openOrders, orders, otherUserSession, placeOk, positions, snapshot, step,
  tradeObject, tradingApp, trades, type TradingApp,
} from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000]; // closes at 20000
const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

function positionObject(t: TradingApp, over: Record<string, unknown>) {
  return {
    id: 1,
    accountId: t.accountId,
    contractId: t.contractId,
    contractDisplayName: 'E-mini NASDAQ-100',
    creationTimestamp: at(1),
    type: 1,
    size: 1,
    averagePrice: 20000,
    ...over,
  };
}

const close = (t: TradingApp, body: Record<string, unknown> = {}) =>
  t.post('Position/closeContract', { accountId: t.accountId, contractId: t.contractId, ...body }, t.token);
const partial = (t: TradingApp, body: Record<string, unknown>) =>
  t.post('Position/partialCloseContract', { accountId: t.accountId, contractId: t.contractId, ...body }, t.token);

describe('Position/searchOpen', () => {
  it('is an empty array when flat', async () => {
    const t = await tradingApp([BAR0]);
    const r = await t.post('Position/searchOpen', { accountId: t.accountId }, t.token);
    expect(r.body).toEqual({ positions: [], ...ok });
  });

  it('a long over two fills: average of the fills in fractional ticks, exact fields', async () => {
    const t = await tradingApp([BAR0, 20000.25]);
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t);
    await placeOk(t, t, { type: 2, side: 0 });
    const r = await t.post('Position/searchOpen', { accountId: t.accountId }, t.token);
    // (80000 + 80001) / 2 ticks = 20000.125: half a tick.
    expect(r.body).toEqual({ positions: [positionObject(t, { size: 2, averagePrice: 20000.125, creationTimestamp: at(2) })], ...ok });
  });

  it('a short over two fills of different sizes', async () => {
    const t = await tradingApp([BAR0, 20001]);
    await placeOk(t, t, { type: 2, side: 1, size: 3 });
    await step(t, t);
    await placeOk(t, t, { type: 2, side: 1 });
    // (3 × 80000 + 80004) / 4 ticks = 20000.25.
    expect(await positions(t, t)).toEqual([positionObject(t, { type: 2, size: 4, averagePrice: 20000.25, creationTimestamp: at(2) })]);
  });

  it('nets fills: buy 1 then sell 3 → short 2 at the sell price', async () => {
    const t = await tradingApp([BAR0, 20002]);
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t);
    await placeOk(t, t, { type: 2, side: 1, size: 3 });
    expect(await positions(t, t)).toEqual([positionObject(t, { type: 2, size: 2, averagePrice: 20002, creationTimestamp: at(2) })]);
    // The long of 1 is closed at +2 points ($40); fees 4 × $1.40.
    expect(await snapshot(t, t)).toEqual(account(50034.4, { marginUsed: 2000, positions: 1 }));
  });

  it('creationTimestamp is the simulated time of the query', async () => {
    const t = await tradingApp([BAR0, 20000, 20000]);
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t, 2);
    expect((await positions(t, t))[0].creationTimestamp).toBe(at(3));
  });

  it('is empty after Replay/end (flattened)', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(await positions(t, t)).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
    ['a string', '1'],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    expect((await t.post('Position/searchOpen', { accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
  });

  it("another user's account → 1 Account not found", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    expect((await t.post('Position/searchOpen', { accountId: other.accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
  });
});

describe('Position/closeContract', () => {
  it('closes a long in full at the last price; fees charged; the closing fill is a trade', async () => {
    const t = await tradingApp([BAR0, [20000, 20006, 19999, 20005]]);
    await placeOk(t, t, { type: 2, side: 0, size: 2 });
    await step(t, t);
    const r = await close(t);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(ok);
    expect(await positions(t, t)).toEqual([]);
    expect(await trades(t, t)).toEqual([
      tradeObject(t, { id: 1, orderId: 2, side: 1, size: 2, price: 20005, fees: 2.8, creationTimestamp: at(2) }),
      tradeObject(t, { id: 2, orderId: 1, side: 0, size: 2, price: 20000, fees: 2.8 }),
    ]);
    const [closing] = await orders(t, t);
    expect(closing).toMatchObject({ id: 2, type: 2, side: 1, size: 2, status: 2, filledPrice: 20005, creationTimestamp: at(2) });
    // +5 points × 2 × $20 − 4 × $1.40.
    expect(await snapshot(t, t)).toEqual(account(50194.4));
  });

  it('closes a short with a buy', async () => {
    const t = await tradingApp([BAR0, 20005]);
    await placeOk(t, t, { type: 2, side: 1 });
    await step(t, t);
    expect((await close(t)).body).toEqual(ok);
    expect((await trades(t, t))[0]).toMatchObject({ side: 0, size: 1, price: 20005 });
    expect(await snapshot(t, t)).toEqual(account(49897.2));
  });

  it('cancels the bracket legs of the closed position', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 8 } });
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19000 }); // an unrelated entry stays
    expect((await close(t)).body).toEqual(ok);
    expect((await openOrders(t, t)).map((o) => o.id)).toEqual([4]);
    expect((await orders(t, t)).map((o) => [o.id, o.status])).toEqual([[5, 2], [4, 6], [3, 3], [2, 3], [1, 2]]);
  });

  it('matches the contract on its symbol: any month closes the NQ position', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    expect((await close(t, { contractId: 'CON.F.US.ENQ.Z25' })).body).toEqual(ok);
    expect(await positions(t, t)).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    expect((await close(t, { accountId })).body).toEqual(fail(1, 'Account not found'));
    expect((await positions(t, t)).length).toBe(1);
  });

  it("another user's account → 1 Account not found", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    expect((await close(t, { accountId: other.accountId })).body).toEqual(fail(1, 'Account not found'));
  });

  it.each([
    ['flat', null, {}],
    ['another contract', 'long', { contractId: ES_CONTRACT }],
    ['contractId missing', 'long', { contractId: undefined }],
    ['an unknown contract', 'long', { contractId: 'CON.F.US.ZZZ.H25' }],
  ])('%s → 2 Position not found, nothing changes', async (_n, hold, body) => {
    const t = await tradingApp([BAR0]);
    if (hold) await placeOk(t, t, { type: 2, side: 0 });
    const before = { positions: await positions(t, t), trades: await trades(t, t), account: await snapshot(t, t) };
    expect((await close(t, body)).body).toEqual(fail(2, 'Position not found'));
    expect({ positions: await positions(t, t), trades: await trades(t, t), account: await snapshot(t, t) }).toEqual(before);
  });

  it('after Replay/end → 2 Position not found', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect((await close(t)).body).toEqual(fail(2, 'Position not found'));
  });
});

describe('Position/partialCloseContract', () => {
  it('reduces a long by size at the last price', async () => {
    const t = await tradingApp([BAR0, 20005]);
    await placeOk(t, t, { type: 2, side: 0, size: 3 });
    await step(t, t);
    const r = await partial(t, { size: 1 });
    expect(r.body).toEqual(ok);
    expect(await positions(t, t)).toEqual([positionObject(t, { size: 2, creationTimestamp: at(2) })]);
    expect((await trades(t, t))[0]).toEqual(tradeObject(t, { orderId: 2, side: 1, price: 20005, creationTimestamp: at(2) }));
    // +5 points × $20 on the closed contract; fees 4 × $1.40; 2 contracts still open at +5 points.
    expect(await snapshot(t, t)).toEqual({
      balance: 50094.4, equity: 50294.4, unrealizedPnl: 200, marginUsed: 2000, positions: 1, pendingOrders: 0,
    });
  });

  it('closes the oldest lots first: the average of what remains', async () => {
    const t = await tradingApp([BAR0, 20001, 20005]);
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t);
    await placeOk(t, t, { type: 2, side: 0, size: 3 });
    await step(t, t);
    // (80000 + 3 × 80004) / 4 ticks = 20000.75.
    expect(await positions(t, t)).toEqual([positionObject(t, { size: 4, averagePrice: 20000.75, creationTimestamp: at(3) })]);
    expect((await partial(t, { size: 2 })).body).toEqual(ok);
    // Closed: 1 @ 20000 (+5 points) and 1 @ 20001 (+4 points); left: 2 @ 20001. Fees 6 × $1.40.
    expect(await positions(t, t)).toEqual([positionObject(t, { size: 2, averagePrice: 20001, creationTimestamp: at(3) })]);
    expect((await snapshot(t, t)).balance).toBe(50171.6);
  });

  it('reduces a short; a size equal to the position closes it', async () => {
    const t = await tradingApp([BAR0, 19990]);
    await placeOk(t, t, { type: 2, side: 1, size: 2 });
    await step(t, t);
    expect((await partial(t, { size: 1 })).body).toEqual(ok);
    expect(await positions(t, t)).toEqual([positionObject(t, { type: 2, size: 1, creationTimestamp: at(2) })]);
    expect((await partial(t, { size: 1 })).body).toEqual(ok);
    expect(await positions(t, t)).toEqual([]);
    expect((await trades(t, t)).map((f) => [f.orderId, f.side, f.size, f.price])).toEqual([
      [3, 0, 1, 19990],
      [2, 0, 1, 19990],
      [1, 1, 2, 20000],
    ]);
    // +10 points × 2 × $20 − 4 × $1.40.
    expect(await snapshot(t, t)).toEqual(account(50394.4));
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ['"1"', '1'],
    ['larger than the position', 4],
  ])('size %s → 5 Invalid close size, nothing changes', async (_n, size) => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0, size: 3 });
    const before = { positions: await positions(t, t), trades: await trades(t, t), account: await snapshot(t, t) };
    expect((await partial(t, { size })).body).toEqual(fail(5, 'Invalid close size'));
    expect({ positions: await positions(t, t), trades: await trades(t, t), account: await snapshot(t, t) }).toEqual(before);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    expect((await partial(t, { accountId, size: 1 })).body).toEqual(fail(1, 'Account not found'));
  });

  it("another user's account → 1 Account not found", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    expect((await partial(t, { accountId: other.accountId, size: 1 })).body).toEqual(fail(1, 'Account not found'));
  });

  it.each([
    ['flat', null, {}],
    ['flat, with a bad size too', null, { size: 0 }],
    ['another contract', 'long', { contractId: ES_CONTRACT }],
    ['contractId missing', 'long', { contractId: undefined }],
  ])('%s → 2 Position not found', async (_n, hold, body) => {
    const t = await tradingApp([BAR0]);
    if (hold) await placeOk(t, t, { type: 2, side: 0 });
    expect((await partial(t, { size: 1, ...body })).body).toEqual(fail(2, 'Position not found'));
    expect((await positions(t, t)).length).toBe(hold ? 1 : 0);
  });

  it('after Replay/end → 2 Position not found', async () => {
    const t = await tradingApp([BAR0]);
    await placeOk(t, t, { type: 2, side: 0 });
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect((await partial(t, { size: 1 })).body).toEqual(fail(2, 'Position not found'));
  });
});

describe('Balances in the account snapshot', () => {
  it('a winning long round trip: balance = start + P&L − fees; unrealized, equity and margin while open', async () => {
    const t = await tradingApp([BAR0, [20000, 20012, 19998, 20010], 20010]);
    await placeOk(t, t, { type: 2, side: 0 });
    const open = await step(t, t);
    expect(open.account).toEqual({
      balance: 49998.6, equity: 50198.6, unrealizedPnl: 200, marginUsed: 1000, positions: 1, pendingOrders: 0,
    });
    await placeOk(t, t, { type: 2, side: 1 });
    const flat = await step(t, t);
    // 50,000 + 10 points × $20 − 2 × $1.40.
    expect(flat.account).toEqual(account(50197.2));
    expect(flat.filledOrders).toEqual([]);
  });

  it('a losing short round trip of 3 contracts', async () => {
    const t = await tradingApp([BAR0, 20010, 20010]);
    await placeOk(t, t, { type: 2, side: 1, size: 3 });
    const open = await step(t, t);
    expect(open.account).toEqual({
      balance: 49995.8, equity: 49395.8, unrealizedPnl: -600, marginUsed: 3000, positions: 1, pendingOrders: 0,
    });
    await placeOk(t, t, { type: 2, side: 0, size: 3 });
    // 50,000 − 10 points × 3 × $20 − 6 × $1.40.
    expect((await step(t, t)).account).toEqual(account(49391.6));
  });

  it('Replay/end flattens at the last price and reports the final balance', async () => {
    const t = await tradingApp([BAR0, 20003]);
    await placeOk(t, t, { type: 2, side: 0, size: 2 });
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19000 });
    await step(t, t);
    const r = await t.post('Replay/end', { accountId: t.accountId }, t.token);
    // +3 points × 2 × $20 − 4 × $1.40; the working order is canceled.
    expect(r.body.account).toEqual({ ...account(50114.4), filledOrders: [{ orderId: 3, fillPrice: 20003, fillQty: 2 }] });
    const listed = await t.post('Account/search', {}, t.token);
    expect(listed.body.accounts.find((a: any) => a.id === t.accountId).balance).toBe(50114.4);
  });
});
