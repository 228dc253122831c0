// TradingService with the gateway's order model (service/order-request.ts, engine.ts): its fields
// and flags, the checks and their order, the records it keeps, and the two views of orders. Sessions
// come from the current family's test harness: one stored NQ bar per 1 m step, prices in NQ points
// (tick 0.25), one bar played (last price 20,000).

import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INVALID } from '../../src/http/shared/endpoint.ts';
import type { GatewayPlaceFields, ModifyInput, PlaceError, PlaceInput } from '../../src/service/trading.ts';
import { makeApp } from '../support/app.ts';
import { barsOf, dayOf } from '../support/bars.ts';
import { userIdOf } from '../support/challenge.ts';
import { type BarSpec, DAY, OPEN_S, placeOk, step, ticks, tradingApp, trades, WALL_MS } from '../support/replay.ts';

/** Flat at 20,000 for two bars, a rise to 20,010, then a fall to 19,990. */
const BARS: BarSpec[] = [20000, 20000, [20000, 20010, 20000, 20010], [20010, 20010, 19990, 19990], 19990];

type App = Awaited<ReturnType<typeof tradingApp>>;

function input(t: App, over: Partial<PlaceInput & GatewayPlaceFields> = {}): PlaceInput & GatewayPlaceFields {
  return {
    accountId: t.accountId, contractId: t.contractId, type: 1, side: 0, size: 1, limitPrice: 19_980, stopPrice: null,
    stopLossTicks: null, takeProfitTicks: null, ...over,
  };
}

async function place(t: App, over: Partial<PlaceInput & GatewayPlaceFields> = {}) {
  return await t.s.trading.place(await userIdOf(t, t.email), input(t, over));
}

async function search(t: App, view: 'spec' | 'gateway') {
  const r = await t.s.trading.search(await userIdOf(t, t.email), t.accountId, null, null, view);
  if (!r.ok) throw new Error(r.error.kind);
  return r.value.rows.map((o) => [o.id, o.type, o.status]);
}

async function open(t: App, view: 'spec' | 'gateway') {
  const r = await t.s.trading.searchOpen(await userIdOf(t, t.email), t.accountId, view);
  if (!r.ok) throw new Error(r.error.kind);
  return r.value.rows.map((o) => [o.id, o.type, o.status]);
}

const EXT = { allowExtendedTypes: true } as const;
const TRAIL = { ...EXT, type: 5, side: 1, limitPrice: null } as const;

describe('TradingService.place: the gateway\'s checks, in order', () => {
  it.each([
    ['a gateway type without the opt-in, before the account', { type: 5, accountId: 999 }, { kind: 'invalid_type_or_side' }],
    ['a JoinBid without the opt-in', { type: 6 }, { kind: 'invalid_type_or_side' }],
    ['the contract before the trail', { ...TRAIL, contractId: 'CON.F.US.EP.H25' }, { kind: 'contract_mismatch', sessionSymbol: 'NQ', requestedSymbol: 'ES' }],
    ['a trailing stop without trailPrice', { ...TRAIL }, { kind: 'invalid_trail', problem: 'missing', trailPrice: null, tickSize: 0.25 }],
    ['a trail off the grid', { ...TRAIL, trailPrice: 2.1 }, { kind: 'invalid_trail', problem: 'off_grid', trailPrice: 2.1, tickSize: 0.25 }],
    ['a trail of 0', { ...TRAIL, trailPrice: 0 }, { kind: 'invalid_trail', problem: 'not_positive', trailPrice: 0, tickSize: 0.25 }],
    ['a trail beyond the limit', { ...TRAIL, trailPrice: 250_001 }, { kind: 'invalid_trail', problem: 'out_of_range', trailPrice: 250_001, tickSize: 0.25 }],
    ['the trail before the brackets', { ...TRAIL, stopLossTicks: 8, stopLossType: 1 }, { kind: 'invalid_trail', problem: 'missing', trailPrice: null, tickSize: 0.25 }],
    ['a limit stop-loss', { stopLossTicks: 8, stopLossType: 1 }, { kind: 'invalid_bracket_type', leg: 'stop_loss', type: 1 }],
    ['a trailing stop-loss under the spec\'s rules', { stopLossTicks: 8, stopLossType: 5 }, { kind: 'invalid_bracket_type', leg: 'stop_loss', type: 5 }],
    ['a stop-loss type the schema refused', { stopLossTicks: 8, stopLossType: INVALID }, { kind: 'invalid_bracket_type', leg: 'stop_loss', type: null }],
    ['a stop take-profit', { takeProfitTicks: 8, takeProfitType: 4 }, { kind: 'invalid_bracket_type', leg: 'take_profit', type: 4 }],
    ['a long\'s stop-loss above the entry', { gatewayBracketSigns: true, stopLossTicks: 40 }, { kind: 'invalid_bracket_sign', leg: 'stop_loss', ticks: 40, position: 'long' }],
    ['a long\'s take-profit below the entry', { gatewayBracketSigns: true, takeProfitTicks: -80 }, { kind: 'invalid_bracket_sign', leg: 'take_profit', ticks: -80, position: 'long' }],
    ['a short\'s stop-loss below the entry', { gatewayBracketSigns: true, side: 1, limitPrice: 20_020, stopLossTicks: -40 }, { kind: 'invalid_bracket_sign', leg: 'stop_loss', ticks: -40, position: 'short' }],
    ['a short\'s take-profit above the entry', { gatewayBracketSigns: true, side: 1, limitPrice: 20_020, takeProfitTicks: 80 }, { kind: 'invalid_bracket_sign', leg: 'take_profit', ticks: 80, position: 'short' }],
    ['a stop-loss\'s type before its sign', { gatewayBracketSigns: true, stopLossTicks: 40, stopLossType: 1 }, { kind: 'invalid_bracket_type', leg: 'stop_loss', type: 1 }],
    ['the stop-loss\'s sign before the take-profit\'s type', { gatewayBracketSigns: true, stopLossTicks: 40, takeProfitTicks: 80, takeProfitType: 4 }, { kind: 'invalid_bracket_sign', leg: 'stop_loss', ticks: 40, position: 'long' }],
    ['a tag too long', { customTag: 'x'.repeat(129) }, { kind: 'invalid_custom_tag', maxChars: 128 }],
    ['a tag the schema refused', { customTag: INVALID }, { kind: 'invalid_custom_tag', maxChars: 128 }],
    ['the tag\'s form before the link', { customTag: 'x'.repeat(129), linkedOrderId: 99 }, { kind: 'invalid_custom_tag', maxChars: 128 }],
    ['a link to an unknown order', { linkedOrderId: 99 }, { kind: 'linked_order_not_found', linkedOrderId: 99 }],
    ['a link to a filled order', { linkedOrderId: 2 }, { kind: 'linked_order_not_found', linkedOrderId: 2 }],
    ['a link before the tag\'s uniqueness', { linkedOrderId: 99, customTag: 'taken' }, { kind: 'linked_order_not_found', linkedOrderId: 99 }],
    ['a tag the account has used', { customTag: 'taken' }, { kind: 'custom_tag_taken', customTag: 'taken' }],
    ['a tag the account used on a canceled order', { customTag: 'gone' }, { kind: 'custom_tag_taken', customTag: 'gone' }],
  ] as const)('%s → %j, nothing changed', async (_name, over, error) => {
    const t = await tradingApp(BARS);
    const uid = await userIdOf(t, t.email);
    expect((await place(t, { customTag: 'taken' })).ok).toBe(true); // 1: working
    expect((await place(t, { type: 2, limitPrice: null })).ok).toBe(true); // 2: filled
    expect((await place(t, { limitPrice: 19_970, customTag: 'gone' })).ok).toBe(true); // 3: canceled below
    expect((await t.s.trading.cancel(uid, t.accountId, 3)).ok).toBe(true);
    const before = { orders: await search(t, 'gateway'), trades: await trades(t, t) };
    expect(await place(t, over as Partial<PlaceInput & GatewayPlaceFields>)).toEqual({ ok: false, error });
    expect({ orders: await search(t, 'gateway'), trades: await trades(t, t) }).toEqual(before);
  });

  it('without the gateway\'s fields the error type is the spec\'s (the current family maps it unchanged)', async () => {
    const t = await tradingApp(BARS);
    const r = await t.s.trading.place(await userIdOf(t, t.email), {
      accountId: t.accountId, contractId: t.contractId, type: 1, side: 0, size: 1, limitPrice: 19_980.1, stopPrice: null,
      stopLossTicks: null, takeProfitTicks: null,
    });
    const e: PlaceError | null = r.ok ? null : r.error;
    expect(e).toEqual({ kind: 'price_off_grid', field: 'limit', price: 19_980.1, tickSize: 0.25 });
  });
});

describe('TradingService.place: what the gateway\'s fields do', () => {
  it('a trailing stop takes its distance in price; the spec\'s view shows a Stop at its current price', async () => {
    const t = await tradingApp(BARS);
    const r = await place(t, { ...TRAIL, trailPrice: 2.5 });
    expect(r.ok && [r.value.order.type, r.value.order.trailTicks, r.value.order.stopTicks]).toEqual([5, 10, ticks(19_997.5)]);
    await step(t, t); // flat 20,000
    await step(t, t); // up to 20,010: the stop follows to 20,007.50
    const gw = await t.s.trading.searchOpen(await userIdOf(t, t.email), t.accountId, 'gateway');
    expect(gw.ok && gw.value.rows.map((o) => [o.type, o.stopTicks, o.trailExtremeTicks])).toEqual([[5, ticks(20_007.5), ticks(20_010)]]);
    expect(await open(t, 'spec')).toEqual([[1, 4, 6]]);
    await step(t, t); // down to 19,990: stopped at 20,007.50
    expect((await trades(t, t)).map((f) => [f.orderId, f.price, f.side])).toEqual([[1, 20_007.5, 1]]);
  });

  it('brackets with the gateway\'s signs and types: a long with a trailing stop-loss of -40 ticks and a take-profit of +80', async () => {
    const t = await tradingApp(BARS);
    const r = await place(t, { ...EXT, type: 2, limitPrice: null, gatewayBracketSigns: true, stopLossTicks: -40, stopLossType: 5, takeProfitTicks: 80, takeProfitType: 1 });
    expect(r.ok).toBe(true);
    const gw = await t.s.trading.searchOpen(await userIdOf(t, t.email), t.accountId, 'gateway');
    expect(gw.ok && gw.value.rows.map((o) => [o.id, o.type, o.stopTicks ?? o.limitTicks, o.trailTicks])).toEqual([
      [3, 1, ticks(20_020), null], [2, 5, ticks(19_990), 40],
    ]);
  });

  it('suspended legs: listed Suspended in the gateway\'s view, working once the entry fills; the spec\'s open list has the entry only', async () => {
    const t = await tradingApp(BARS);
    expect((await place(t, { limitPrice: 19_995, stopLossTicks: 20, takeProfitTicks: 40, suspendLegs: true })).ok).toBe(true);
    expect(await open(t, 'gateway')).toEqual([[3, 1, 8], [2, 4, 8], [1, 1, 6]]);
    expect(await open(t, 'spec')).toEqual([[1, 1, 6]]);
    expect(await search(t, 'gateway')).toEqual([[3, 1, 8], [2, 4, 8], [1, 1, 6]]);
    // A suspended leg is modified and canceled like a working order.
    const uid = await userIdOf(t, t.email);
    expect((await t.s.trading.modify(uid, { accountId: t.accountId, orderId: 2, size: null, limitPrice: null, stopPrice: 19_985 })).ok).toBe(true);
    await step(t, t, 3); // down to 19,990: the entry fills at 19,995
    expect(await open(t, 'gateway')).toEqual([[3, 1, 6], [2, 4, 6]]);
    const legs = await t.s.trading.searchOpen(uid, t.accountId, 'gateway');
    expect(legs.ok && legs.value.rows.map((o) => o.stopTicks ?? o.limitTicks)).toEqual([ticks(20_005), ticks(19_985)]);
  });

  it('a recorded rejection is stored with status 5 and answered as the refusal; its tag is taken; without the flag nothing is stored', async () => {
    const t = await tradingApp(BARS);
    const r = await place(t, { size: 1000, recordRejections: true, customTag: 'big' });
    expect(r.ok).toBe(false);
    if (r.ok || r.error.kind !== 'rejected') throw new Error('expected a rejection');
    expect(r.error.reason).toStartWith('Insufficient margin: 1000 NQ contracts');
    expect(r.error.order).toMatchObject({ id: 1, status: 5, size: 1000, customTag: 'big' });
    expect(await search(t, 'gateway')).toEqual([[1, 1, 5]]);
    expect(await search(t, 'spec')).toEqual([[1, 1, 3]]);
    expect(await place(t, { customTag: 'big' })).toEqual({ ok: false, error: { kind: 'custom_tag_taken', customTag: 'big' } });
    expect(await place(t, { size: 1000 })).toEqual({ ok: false, error: { kind: 'rejected', reason: expect.any(String) } });
    expect(await placeOk(t, t, { type: 1, side: 0, limitPrice: 19_980 })).toBe(2);
  });

  it('a link: the fill of one cancels the other', async () => {
    const t = await tradingApp(BARS);
    expect((await place(t, { limitPrice: 19_980 })).ok).toBe(true);
    expect((await place(t, { type: 4, limitPrice: null, stopPrice: 20_005, linkedOrderId: 1 })).ok).toBe(true);
    await step(t, t, 2); // up to 20,010: the buy stop fills
    expect(await search(t, 'gateway')).toEqual([[2, 4, 2], [1, 1, 3]]);
  });

  it('orders working at the end of the session expire: 4 in the gateway\'s view, 3 in the spec\'s', async () => {
    const t = await tradingApp(BARS);
    expect((await place(t, { limitPrice: 19_980 })).ok).toBe(true);
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(await search(t, 'gateway')).toEqual([[1, 1, 4]]);
    expect(await search(t, 'spec')).toEqual([[1, 1, 3]]);
  });
});

describe('TradingService.modify with trailPrice', () => {
  async function modify(t: App, over: Partial<ModifyInput>) {
    const m: ModifyInput = { accountId: t.accountId, orderId: 1, size: null, limitPrice: null, stopPrice: null, trailPrice: null, ...over };
    return await t.s.trading.modify(await userIdOf(t, t.email), m);
  }

  it('a new trail recomputes the stop from the extreme; checks: a number, a trailing stop, the grid; a stop price is not its to change', async () => {
    const t = await tradingApp(BARS);
    expect((await place(t, { ...TRAIL, trailPrice: 2.5 })).ok).toBe(true);
    expect((await place(t, { limitPrice: 19_980 })).ok).toBe(true);
    const r = await modify(t, { trailPrice: 1 });
    expect(r.ok && [r.value.order.trailTicks, r.value.order.stopTicks]).toEqual([4, ticks(19_999)]);
    expect(await modify(t, { trailPrice: INVALID })).toEqual({ ok: false, error: { kind: 'invalid_trail', problem: 'not_a_number', trailPrice: null, tickSize: 0.25 } });
    expect(await modify(t, { trailPrice: 1.1 })).toEqual({ ok: false, error: { kind: 'invalid_trail', problem: 'off_grid', trailPrice: 1.1, tickSize: 0.25 } });
    expect(await modify(t, { orderId: 2, trailPrice: 1 })).toEqual({ ok: false, error: { kind: 'invalid_trail', problem: 'not_applicable', trailPrice: 1, tickSize: 0.25 } });
    expect(await modify(t, { stopPrice: 19_995 })).toEqual({ ok: false, error: { kind: 'price_not_applicable', field: 'stop', orderType: 5 } });
  });
});

describe('the gateway\'s orders survive a restart (engine state version 3 in the session row)', () => {
  /** The BARS day on a file database, one bar played, a trailing stop and an entry with suspended legs. */
  async function session(dbPath: string) {
    const a = Object.assign(await makeApp({ nowMs: WALL_MS, dbPath, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } }), { token: '' });
    a.token = await a.login();
    const rows = BARS.map((b, i) => {
      const [o, h, l, c] = typeof b === 'number' ? [b, b, b, b] : b;
      return [OPEN_S + i * 60, ticks(o), ticks(h), ticks(l), ticks(c), 1];
    });
    a.s.chunks.put('NQ', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(rows));
    const r = await a.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, a.token);
    const t = Object.assign(a, { accountId: r.body.accountId as number, contractId: r.body.instrument.contractId as string });
    await step(t, t);
    expect((await place(t as unknown as App, { ...TRAIL, trailPrice: 2.5 })).ok).toBe(true);
    // Two contracts: on the fall the trailing stop sells first, so this buy closes one and opens one.
    expect((await place(t as unknown as App, { size: 2, limitPrice: 19_995, stopLossTicks: 20, stopLossType: 5, ...EXT, suspendLegs: true, customTag: 'e' })).ok).toBe(true);
    await step(t, t, 2); // up to 20,010: the trailing stop follows to 20,007.50
    return t;
  }

  it('mid-trail, with suspended legs: after a restart the rest of the day fills as without one', async () => {
    const straight = await session(join(mkdtempSync(join(tmpdir(), 'rd-gw-')), 'a.db'));
    await step(straight, straight, 2);
    const expected = (await trades(straight, straight)).map((f) => [f.orderId, f.side, f.size, f.price]);
    // Newest first: the trailing stop at 20,007.50, the entry at 19,995, its trailing leg (stop 19,990).
    expect(expected).toEqual([[3, 1, 1, 19_990], [2, 0, 2, 19_995], [1, 1, 1, 20_007.5]]);
    const dbPath = join(mkdtempSync(join(tmpdir(), 'rd-gw-')), 'b.db');
    const first = await session(dbPath);
    await first.s.shutdown();
    first.s.db.close();
    const b = await makeApp({ nowMs: WALL_MS, dbPath, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    const x = Object.assign(b, { token: await b.login(), accountId: first.accountId, contractId: first.contractId });
    const open = await x.s.trading.searchOpen(await userIdOf(x, x.email), x.accountId, 'gateway');
    expect(open.ok && open.value.rows.map((o) => [o.id, o.status, o.stopTicks, o.trailExtremeTicks, o.customTag])).toEqual([
      [3, 8, ticks(19_990), ticks(19_995), null], [2, 6, null, null, 'e'], [1, 6, ticks(20_007.5), ticks(20_010), null],
    ]);
    await step(x, x, 2);
    expect((await trades(x, x)).map((f) => [f.orderId, f.side, f.size, f.price])).toEqual(expected);
    b.s.db.close();
  });
});
