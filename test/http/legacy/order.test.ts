// Earlier family: Order/place, search, searchOpen, cancel, modify (string IDs, errors by message, errorCode 1).
import { describe, expect, it } from 'bun:test';
import type { BarSpec } from '../../support/replay.ts';
import { envelope, failure } from '../../support/legacy.ts';
import {
  legacyOpenOrders, legacyOrderObject, legacyOrders, legacyPlace, legacyPlaceOk, legacyPositions, legacyStep, legacyTrades,
  legacyTradingApp, NQ_LEGACY, otherLegacyUser,
} from '../../support/legacy-trading.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const DOWN: BarSpec = [20000, 20000, 19985, 19995]; // reaches a buy limit at 19990

describe('Order/place', () => {
  it('a market order answers a string ID and status 2 (filled at placement)', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    expect(t.contractId).toMatch(NQ_LEGACY);
    const r = await legacyPlace(t, t, { type: 2, side: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ orderId: `${t.accountId}-1`, orderStatus: 2, ...envelope });
    expect(await legacyOrders(t, t)).toEqual([legacyOrderObject(t, { type: 2, status: 2, fillPrice: 20000, filledSize: 1 })]);
    expect(await legacyOpenOrders(t, t)).toEqual([]);
  });

  it('a limit order answers status 6, shows status 6 in searchOpen, and fills when a step reaches it', async () => {
    const t = await legacyTradingApp([BAR0, 20000, DOWN]);
    const r = await legacyPlace(t, t, { type: 1, side: 0, limitPrice: 19990 });
    expect(r.body).toEqual({ orderId: `${t.accountId}-1`, orderStatus: 6, ...envelope });
    const pending = legacyOrderObject(t, { limitPrice: 19990 });
    expect(await legacyOrders(t, t)).toEqual([pending]);
    expect(await legacyOpenOrders(t, t)).toEqual([pending]);
    await legacyStep(t, t, 2);
    expect(await legacyOrders(t, t)).toEqual([{ ...pending, status: 2, fillPrice: 19990, filledSize: 1 }]);
    expect(await legacyOpenOrders(t, t)).toEqual([]);
  });

  it('stop and stop-limit orders take their prices', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    expect((await legacyPlace(t, t, { type: 4, side: 0, stopPrice: 20010 })).body.orderStatus).toBe(6);
    expect((await legacyPlace(t, t, { type: 3, side: 1, stopPrice: 19990, limitPrice: 19992 })).body.orderStatus).toBe(6);
    const open = await legacyOpenOrders(t, t);
    expect(open.map((o) => [o.id, o.type, o.stopPrice, o.limitPrice])).toEqual([
      [`${t.accountId}-2`, 3, 19990, 19992],
      [`${t.accountId}-1`, 4, 20010, null],
    ]);
  });

  // [name, body override, message]; every refusal is errorCode 1 and places nothing.
  const rows: [string, Record<string, unknown>, string][] = [
    ['limit without limitPrice', { type: 1, side: 0 }, 'limitPrice is required for Limit orders'],
    ['stop without stopPrice', { type: 4, side: 0 }, 'stopPrice is required for Stop orders'],
    ['stop-limit without limitPrice', { type: 3, side: 0, stopPrice: 20010 }, 'limitPrice is required for Limit orders'],
    ['unknown account', { type: 2, side: 0, accountId: 999_999 }, 'Account not found'],
    ['account id not a number', { type: 2, side: 0, accountId: 'x' }, 'Account not found'],
    ['unknown contract', { type: 2, side: 0, contractId: 'CON.F.US.XYZ.H25' }, 'Contract not found'],
    ['missing contract', { type: 2, side: 0, contractId: undefined }, 'Contract not found'],
    ['size 0', { type: 2, side: 0, size: 0 }, 'Size must be greater than 0'],
    ['negative size', { type: 2, side: 0, size: -1 }, 'Size must be greater than 0'],
    ['missing size', { type: 2, side: 0, size: undefined }, 'Size must be greater than 0'],
    ['fractional size', { type: 2, side: 0, size: 1.5 }, 'Size must be a whole number'],
    ['size over 1000', { type: 2, side: 0, size: 1001 }, 'Size must be at most 1000'],
    ['a bracket', { type: 2, side: 0, stopLossBracket: { ticks: 10 } }, 'Brackets are not supported in this API; place protective orders separately'],
    ['unknown type', { type: 9, side: 0 }, 'Invalid order type or side'],
    ['unknown side', { type: 2, side: 2 }, 'Invalid order type or side'],
    ['price off the tick grid', { type: 1, side: 0, limitPrice: 19990.1 }, 'limitPrice 19990.1 is not a multiple of the tick size 0.25'],
    ['a negative limitPrice', { type: 1, side: 0, limitPrice: -19990 }, 'limitPrice must be greater than 0'],
    ['limitPrice 0', { type: 1, side: 0, limitPrice: 0 }, 'limitPrice must be greater than 0'],
    ['limitPrice 1e-9 (off the grid, not rounded to 0)', { type: 1, side: 0, limitPrice: 1e-9 }, 'limitPrice 1e-9 is not a multiple of the tick size 0.25'],
    ['a negative stopPrice', { type: 4, side: 1, stopPrice: -5 }, 'stopPrice must be greater than 0'],
    ['another session\'s contract', { type: 2, side: 0, contractId: 'CON.F.US.CL.H25' }, 'This session trades NQ; CL cannot be traded in it'],
    ['engine rejection (margin)', { type: 2, side: 0, size: 1000 }, 'Insufficient margin'],
  ];

  it.each(rows)('%s → errorCode 1 "%s"', async (_n, over, message) => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const r = await legacyPlace(t, t, over);
    expect(r.status).toBe(200);
    expect(r.body.success === false ? { ...r.body, errorMessage: r.body.errorMessage.startsWith(message) ? message : r.body.errorMessage } : r.body)
      .toEqual(failure(1, message));
    expect(await legacyOrders(t, t)).toEqual([]);
  });
});

describe('Order/search and searchOpen', () => {
  it('an account of another user, or none, is refused', async () => {
    const t = await legacyTradingApp([BAR0]);
    const other = await otherLegacyUser(t);
    for (const path of ['Order/search', 'Order/searchOpen']) {
      expect((await t.call(path, { accountId: other.accountId })).body).toEqual(failure(1, 'Account not found'));
      expect((await t.call(path, {})).body).toEqual(failure(1, 'Account not found'));
    }
  });
});

describe('Order/cancel', () => {
  it('cancels a working order by its ID alone; a second cancel is "already canceled"', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const id = await legacyPlaceOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    expect((await t.call('Order/cancel', { orderId: id })).body).toEqual(envelope);
    expect((await legacyOrders(t, t))[0].status).toBe(3);
    expect((await t.call('Order/cancel', { orderId: id })).body).toEqual(failure(1, 'Order is already canceled'));
  });

  it('a filled order is "already filled"', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const id = await legacyPlaceOk(t, t, { type: 2, side: 0 });
    expect((await t.call('Order/cancel', { orderId: id })).body).toEqual(failure(1, 'Order is already filled'));
  });

  it.each([
    ['unknown order of the account', (acc: number) => `${acc}-99`],
    ['not an ID', () => 'abc'],
    ['a number, not a string', () => 1],
    ['missing', () => undefined],
    ['unknown account', () => '999999-1'],
  ])('%s → "Order not found"', async (_n, idOf) => {
    const t = await legacyTradingApp([BAR0, 20000]);
    await legacyPlaceOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    expect((await t.call('Order/cancel', { orderId: idOf(t.accountId) })).body).toEqual(failure(1, 'Order not found'));
    expect((await legacyOpenOrders(t, t)).length).toBe(1);
  });

  it("another user's order ID never reaches that order", async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const other = await otherLegacyUser(t);
    await t.call('Replay/step', { accountId: other.accountId }, other.token);
    const theirs = (await t.call('Order/place', { accountId: other.accountId, contractId: other.contractId, type: 1, side: 0, size: 1, limitPrice: 19990 }, other.token)).body.orderId;
    const mine = await legacyPlaceOk(t, t, { type: 1, side: 0, limitPrice: 19990 });
    // Both sessions number their orders from 1: the IDs differ only by account.
    expect(mine).toBe(`${t.accountId}-1`);
    expect(theirs).toBe(`${other.accountId}-1`);
    expect((await t.call('Order/cancel', { orderId: theirs })).body).toEqual(failure(1, 'Order not found'));
    expect((await t.call('Order/modify', { orderId: theirs, size: 2 })).body).toEqual(failure(1, 'Order not found'));
    const still = await t.call('Order/searchOpen', { accountId: other.accountId }, other.token);
    expect(still.body.orders.map((o: any) => [o.id, o.size, o.status])).toEqual([[theirs, 1, 6]]);
  });
});

describe('Order/modify', () => {
  it('changes size and prices of a working order; null or absent keeps a value', async () => {
    const t = await legacyTradingApp([BAR0, 20000, DOWN]);
    const id = await legacyPlaceOk(t, t, { type: 1, side: 0, limitPrice: 19980 });
    expect((await t.call('Order/modify', { orderId: id, size: 2, limitPrice: null, stopPrice: null })).body).toEqual(envelope);
    expect((await t.call('Order/modify', { orderId: id, limitPrice: 19990 })).body).toEqual(envelope);
    expect(await legacyOpenOrders(t, t)).toEqual([legacyOrderObject(t, { size: 2, limitPrice: 19990 })]);
    await legacyStep(t, t, 2);
    expect((await legacyTrades(t, t)).map((f) => [f.size, f.price])).toEqual([[2, 19990]]);
    expect((await legacyPositions(t, t)).map((p) => p.size)).toEqual([2]);
  });

  it.each([
    ['a filled order', { type: 2, side: 0 }, {}, 'Order is already filled'],
    ['size 0', { type: 1, side: 0, limitPrice: 19980 }, { size: 0 }, 'Size must be greater than 0'],
    ['a price off the grid', { type: 1, side: 0, limitPrice: 19980 }, { limitPrice: 19980.1 }, 'limitPrice 19980.1 is not a multiple of the tick size 0.25'],
    ['a stop price on a limit order', { type: 1, side: 0, limitPrice: 19980 }, { stopPrice: 19980 }, 'stopPrice does not apply to Limit orders'],
    ['a negative limit price', { type: 1, side: 0, limitPrice: 19980 }, { limitPrice: -19980 }, 'limitPrice must be greater than 0'],
    ['limit price 0', { type: 1, side: 0, limitPrice: 19980 }, { limitPrice: 0 }, 'limitPrice must be greater than 0'],
    ['limit price 1e-9', { type: 1, side: 0, limitPrice: 19980 }, { limitPrice: 1e-9 }, 'limitPrice 1e-9 is not a multiple of the tick size 0.25'],
    ['a negative stop price', { type: 4, side: 1, stopPrice: 19980 }, { stopPrice: -1 }, 'stopPrice must be greater than 0'],
  ])('%s → errorCode 1', async (_n, placed, change, message) => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const id = await legacyPlaceOk(t, t, placed);
    expect((await t.call('Order/modify', { orderId: id, ...change })).body).toEqual(failure(1, message));
  });

  it('a canceled order is "already canceled"; an unknown ID "Order not found"', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    const id = await legacyPlaceOk(t, t, { type: 1, side: 0, limitPrice: 19980 });
    await t.call('Order/cancel', { orderId: id });
    expect((await t.call('Order/modify', { orderId: id, size: 2 })).body).toEqual(failure(1, 'Order is already canceled'));
    expect((await t.call('Order/modify', { orderId: 'nope', size: 2 })).body).toEqual(failure(1, 'Order not found'));
  });
});
