// Bracket signs and types on Order/place (live-codes.ts, order-request.ts `bracket`): under the live
// profile the gateway's signed ticks (a long's stop-loss negative and take-profit positive, a short's
// the reverse) and typed legs (stop-loss 4 or 5, take-profit 1), refused with the gateway's own
// messages; under the spec a bracket `type: 5` is refused with the spec adapter's message, and types
// 4 / 1 or none still work, signs ignored. A refused bracket places nothing, not even a rejected record.
import { describe, expect, it } from 'bun:test';
import { brief, liveApp, specPost } from '../../support/live.ts';
import { type BarSpec, openOrders, orders, place } from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const ok = { success: true, errorCode: 0, errorMessage: null };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

describe('live: the gateway\'s bracket signs', () => {
  const rows: [string, Record<string, unknown>, string][] = [
    ['a long\'s stop-loss above', { side: 0, stopLossBracket: { ticks: 57 } }, 'Invalid stop loss ticks (57). Ticks should be less than zero when longing.'],
    ['a long\'s take-profit below', { side: 0, takeProfitBracket: { ticks: -12 } }, 'Invalid take profit ticks (-12). Ticks should be greater than zero when longing.'],
    ['a short\'s stop-loss below', { side: 1, stopLossBracket: { ticks: -8, type: 4 } }, 'Invalid stop loss ticks (-8). Ticks should be greater than zero when going short.'],
    ['a short\'s take-profit above', { side: 1, takeProfitBracket: { ticks: 426, type: 1 } }, 'Invalid take profit ticks (426). Ticks should be less than zero when going short.'],
    // The stop-loss is checked before the take-profit.
    ['both wrong', { side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: -8 } }, 'Invalid stop loss ticks (8). Ticks should be less than zero when longing.'],
    ['a trailing stop-loss above a long', { side: 0, stopLossBracket: { ticks: 20, type: 5 } }, 'Invalid stop loss ticks (20). Ticks should be less than zero when longing.'],
  ];

  it.each(rows)('%s is refused with the gateway\'s message, nothing placed', async (_n, body, message) => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 2, ...body })).body).toEqual(fail(2, message));
    expect(await orders(t, t)).toEqual([]);
  });

  it.each([
    ['long', 0, -8, 12, 19998, 20003],
    ['short', 1, 8, -12, 20002, 19997],
  ])('a %s with the right signs gets its legs on the right sides', async (_n, side, sl, tp, stop, limit) => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 2, side, stopLossBracket: { ticks: sl }, takeProfitBracket: { ticks: tp } })).body).toEqual({ orderId: 1, ...ok });
    expect(brief(await openOrders(t, t))).toEqual([[3, 1, 1, limit, null, null], [2, 1, 4, null, stop, null]]);
  });
});

describe('live: the gateway\'s bracket types', () => {
  const rows: [string, Record<string, unknown>, string][] = [
    ['a limit stop-loss', { stopLossBracket: { ticks: -8, type: 1 } }, 'Invalid stop loss type (Limit)'],
    ['a market stop-loss', { stopLossBracket: { ticks: -8, type: 2 } }, 'Invalid stop loss type (Market)'],
    ['a stop-limit stop-loss', { stopLossBracket: { ticks: -8, type: 3 } }, 'Invalid stop loss type (StopLimit)'],
    ['a stop-loss of an unknown type', { stopLossBracket: { ticks: -8, type: 9 } }, 'Invalid stop loss type (9)'],
    ['a stop-loss type that is not a number', { stopLossBracket: { ticks: -8, type: 'Stop' } }, 'Invalid stop loss type (unknown)'],
    ['a stop take-profit', { takeProfitBracket: { ticks: 8, type: 4 } }, 'Invalid take profit type (Stop)'],
    ['a trailing take-profit', { takeProfitBracket: { ticks: 8, type: 5 } }, 'Invalid take profit type (TrailingStop)'],
    ['a JoinAsk take-profit', { takeProfitBracket: { ticks: 8, type: 7 } }, 'Invalid take profit type (JoinAsk)'],
  ];

  it.each(rows)('%s is refused with the gateway\'s message, nothing placed', async (_n, body, message) => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 1, side: 0, limitPrice: 19990, ...body })).body).toEqual(fail(2, message));
    expect(await orders(t, t)).toEqual([]);
  });

  it.each([
    ['zero ticks', { stopLossBracket: { ticks: 0 } }, 'stopLossBracket.ticks must be a non-zero whole number of ticks'],
    ['fractional ticks', { takeProfitBracket: { ticks: 1.5 } }, 'takeProfitBracket.ticks must be a non-zero whole number of ticks'],
  ])('%s: refused, nothing placed', async (_n, body, message) => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 2, side: 0, ...body })).body).toEqual(fail(2, message));
    expect(await orders(t, t)).toEqual([]);
  });

  it('a type sent without ticks is no bracket', async () => {
    const t = await liveApp([BAR0]);
    expect((await place(t, t, { type: 2, side: 0, stopLossBracket: { type: 1 } })).body.errorCode).toBe(2);
    expect((await place(t, t, { type: 2, side: 0, stopLossBracket: null, takeProfitBracket: null })).body).toEqual({ orderId: 1, ...ok });
    expect(await openOrders(t, t)).toEqual([]);
  });
});

describe('spec: bracket types', () => {
  const specPlace = (t: Awaited<ReturnType<typeof liveApp>>, body: Record<string, unknown>) =>
    specPost(t, 'Order/place', { accountId: t.accountId, contractId: t.contractId, type: 2, side: 0, size: 1, ...body });

  it.each([
    ['stopLossBracket', { stopLossBracket: { ticks: 20, type: 5 } }, 'stopLossBracket.type 5 is not supported: a stop-loss bracket is a stop (4), a take-profit bracket a limit (1)'],
    ['takeProfitBracket', { takeProfitBracket: { ticks: 20, type: 5 } }, 'takeProfitBracket.type 5 is not supported: a stop-loss bracket is a stop (4), a take-profit bracket a limit (1)'],
  ])('a %s of type 5 is refused with the spec adapter\'s message and nothing is placed', async (_n, body, message) => {
    const t = await liveApp([BAR0]);
    expect(await specPlace(t, body)).toEqual(fail(2, message));
    expect((await specPost(t, 'Order/search', { accountId: t.accountId })).orders).toEqual([]);
  });

  it.each([
    ['types 4 and 1', { stopLossBracket: { ticks: 8, type: 4 }, takeProfitBracket: { ticks: 12, type: 1 } }],
    ['no types', { stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 } }],
    // The spec's ticks are distances: a sign is ignored, not refused.
    ['signed ticks', { stopLossBracket: { ticks: -8 }, takeProfitBracket: { ticks: 12 } }],
  ])('%s still work: a stop and a limit on the right sides', async (_n, body) => {
    const t = await liveApp([BAR0]);
    expect(await specPlace(t, body)).toEqual({ orderId: 1, ...ok });
    const open = (await specPost(t, 'Order/searchOpen', { accountId: t.accountId })).orders;
    expect(brief(open)).toEqual([[3, 1, 1, 20003, null, null], [2, 1, 4, null, 19998, null]]);
  });
});
