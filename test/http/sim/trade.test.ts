import { describe, expect, it } from 'bun:test';
import {
  at, type BarSpec, orders, otherUserSession, placeOk, startSession, step, tradeObject, tradingApp, trades,
} from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000]; // closes at 20000
const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

/**
 * Fills at three simulated times: a market buy of 2 at 14:31 (20000), a sell limit of 1 at 20010
 * submitted at 14:31 and filled by bar 2 at 14:32, a market sell of 1 at 14:33 (20004).
 */
async function threeFills() {
  const t = await tradingApp([BAR0, 20000, [20000, 20012, 20000, 20008], 20004]);
  await placeOk(t, t, { type: 2, side: 0, size: 2 });
  await placeOk(t, t, { type: 1, side: 1, limitPrice: 20010 });
  await step(t, t, 3);
  await placeOk(t, t, { type: 2, side: 1 });
  return t;
}

describe('Trade/search', () => {
  it('one trade per fill, newest first, exact fields', async () => {
    const t = await threeFills();
    const r = await t.post('Trade/search', { accountId: t.accountId }, t.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      trades: [
        tradeObject(t, { id: 1, orderId: 3, side: 1, price: 20004, creationTimestamp: at(4) }),
        tradeObject(t, { id: 2, orderId: 2, side: 1, price: 20010, creationTimestamp: at(2) }),
        tradeObject(t, { id: 3, orderId: 1, side: 0, size: 2, price: 20000, fees: 2.8, creationTimestamp: at(1) }),
      ],
      ...ok,
    });
  });

  it('pending and canceled orders make no trades', async () => {
    const t = await tradingApp([BAR0, 20000]);
    await placeOk(t, t, { type: 1, side: 0, limitPrice: 19900 });
    await placeOk(t, t, { type: 4, side: 0, stopPrice: 20100 });
    await t.post('Order/cancel', { accountId: t.accountId, orderId: 2 }, t.token);
    await step(t, t);
    expect(await trades(t, t)).toEqual([]);
  });

  it.each([
    ['no bounds', {}, [3, 2, 1]],
    ['null bounds', { startTimestamp: null, endTimestamp: null }, [3, 2, 1]],
    ['start inclusive', { startTimestamp: at(2) }, [3, 2]],
    ['end inclusive', { endTimestamp: at(2) }, [2, 1]],
    ['start = end', { startTimestamp: at(2), endTimestamp: at(2) }, [2]],
    ['start just after a fill', { startTimestamp: '2025-03-03T14:32:00.001Z' }, [3]],
    ['end just before a fill', { endTimestamp: '2025-03-03T14:31:59.999Z' }, [1]],
    ['start with a UTC offset', { startTimestamp: '2025-03-03T09:32:00-05:00' }, [3, 2]],
    ['empty range', { startTimestamp: at(4), endTimestamp: at(1) }, []],
  ])('bounds on fill time: %s', async (_n, bounds, orderIds) => {
    const t = await threeFills();
    expect((await trades(t, t, bounds)).map((f) => f.orderId)).toEqual(orderIds);
  });

  it('bounds apply to the fill time, not the submission time', async () => {
    const t = await threeFills();
    // Order 2 was submitted at 14:31 and filled at 14:32.
    expect((await orders(t, t, { startTimestamp: at(2) })).map((o) => o.id)).toEqual([3]);
    expect((await trades(t, t, { startTimestamp: at(2) })).map((f) => f.orderId)).toEqual([3, 2]);
  });

  it.each([
    ['unparseable startTimestamp', { startTimestamp: 'now' }],
    ['unparseable endTimestamp', { endTimestamp: '2025-02-30T00:00:00Z' }],
  ])('%s → errorCode 2', async (_n, bounds) => {
    const t = await tradingApp([BAR0]);
    const r = await t.post('Trade/search', { accountId: t.accountId, ...bounds }, t.token);
    expect(r.body).toEqual(fail(2, 'startTimestamp and endTimestamp must be ISO 8601 times'));
  });

  it('returns at most 500 trades, the newest; Order/search at most 200', async () => {
    const t = await tradingApp([BAR0]);
    for (let i = 1; i <= 505; i++) await placeOk(t, t, { type: 2, side: (i + 1) % 2 });
    const list = await trades(t, t);
    expect(list.length).toBe(500);
    expect(list.map((f) => f.orderId)).toEqual(Array.from({ length: 500 }, (_, k) => 505 - k));
    expect(list.map((f) => f.id)).toEqual(Array.from({ length: 500 }, (_, k) => k + 1));
    expect((await orders(t, t)).length).toBe(200);
    // 505 fills at one price: no P&L, 505 × $1.40 in fees; the last buy is still open.
    const r = await t.post('Replay/pause', { accountId: t.accountId }, t.token);
    expect(r.body.account).toMatchObject({ balance: 49293, positions: 1 });
  });

  it('is scoped to the session: a new session has none, the ended one keeps its own', async () => {
    const t = await tradingApp([BAR0, 20002]);
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t);
    const end = await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(end.body.account.filledOrders).toEqual([{ orderId: 2, fillPrice: 20002, fillQty: 1 }]);
    // The flattening fill of Replay/end is a trade of the ended session.
    expect((await trades(t, t)).map((f) => [f.orderId, f.side, f.price, f.creationTimestamp])).toEqual([
      [2, 1, 20002, at(2)],
      [1, 0, 20000, at(1)],
    ]);
    const next = await startSession(t);
    const r = await t.post('Trade/search', { accountId: next.accountId }, t.token);
    expect(r.body).toEqual({ trades: [], ...ok });
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
    ['a string', '1'],
  ])('accountId %s → 1 Account not found', async (_n, accountId) => {
    const t = await tradingApp([BAR0]);
    expect((await t.post('Trade/search', { accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
  });

  it("another user's account → 1 Account not found", async () => {
    const t = await tradingApp([BAR0]);
    const other = await otherUserSession(t);
    expect((await t.post('Trade/search', { accountId: other.accountId }, t.token)).body).toEqual(fail(1, 'Account not found'));
  });
});
