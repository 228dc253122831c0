// TradingService.modify (the earlier family's Order/modify, family-agnostic) and the terminal states
// of TradingService.cancel, over replay sessions built by the current family's test harness: one
// stored NQ bar per 1 m step (test/support/replay.ts), prices in NQ points (tick 0.25).

import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModifyInput } from '../../src/service/trading.ts';
import { makeApp } from '../support/app.ts';
import { barsOf, dayOf } from '../support/bars.ts';
import { challengeApp, createChallenge, dayRows, market, startOn, userIdOf } from '../support/challenge.ts';
import {
  type BarSpec, DAY, OPEN_S, openOrders, orders, placeOk, type ReplayTestApp, type Session, step, ticks, tradingApp,
  trades, WALL_MS,
} from '../support/replay.ts';

/** Flat at 20,000 for two bars, then a dip to 19,985. */
const BARS: BarSpec[] = [20000, 20000, [20000, 20000, 19985, 19995], 19995];

type App = ReplayTestApp & Session;

async function modify(t: App, over: Partial<ModifyInput>) {
  const input: ModifyInput = { accountId: t.accountId, orderId: 1, size: null, limitPrice: null, stopPrice: null, ...over };
  return await t.s.trading.modify(await userIdOf(t, t.email), input);
}

const buyLimit = (limitPrice: number, size = 1) => ({ type: 1, side: 0, size, limitPrice });

describe('TradingService.modify', () => {
  it('changes price and size; the store and the next fills follow', async () => {
    const t = await tradingApp(BARS);
    await placeOk(t, t, buyLimit(19980));
    const r = await modify(t, { limitPrice: 19985.25, size: 2 });
    expect(r.ok && [r.value.order.limitTicks, r.value.order.size]).toEqual([ticks(19985.25), 2]);
    expect((await orders(t, t)).map((o) => [o.id, o.status, o.size, o.limitPrice])).toEqual([[1, 6, 2, 19985.25]]);
    expect((await openOrders(t, t)).map((o) => [o.id, o.size, o.limitPrice])).toEqual([[1, 2, 19985.25]]);
    await step(t, t, 2);
    expect((await trades(t, t)).map((f) => [f.orderId, f.size, f.price])).toEqual([[1, 2, 19985.25]]);
  });

  it('a marketable modify fills at once at the last price, and the fill is committed before the answer', async () => {
    const t = await tradingApp(BARS);
    await placeOk(t, t, buyLimit(19980));
    const r = await modify(t, { limitPrice: 20010 });
    expect(r.ok && [r.value.order.status, r.value.order.filledPriceTicks]).toEqual([2, ticks(20000)]);
    expect((await orders(t, t)).map((o) => [o.id, o.status, o.limitPrice, o.filledPrice])).toEqual([[1, 2, 20010, 20000]]);
    expect((await trades(t, t)).map((f) => [f.orderId, f.price])).toEqual([[1, 20000]]);
  });

  it.each([
    ['an unknown account', { accountId: 999 }, 'account_not_found'],
    ['a non-integer order id', { orderId: '1' }, 'order_not_found'],
    ['an unknown order', { orderId: 9 }, 'order_not_found'],
    ['a filled order', { orderId: 2 }, 'order_filled'],
    ['a canceled order', { orderId: 3 }, 'order_canceled'],
    ['size 0', { size: 0 }, 'invalid_size'],
    ['a fractional size', { size: 1.5 }, 'invalid_size'],
    ['a size as text', { size: '2' }, 'invalid_size'],
    ['a price as text', { limitPrice: '19990' }, { kind: 'invalid_price', field: 'limit' }],
    ['a stop price on a limit order', { stopPrice: 19990 }, { kind: 'price_not_applicable', field: 'stop', orderType: 1 }],
    ['a price off the grid', { limitPrice: 19990.1 }, { kind: 'price_off_grid', field: 'limit', price: 19990.1, tickSize: 0.25 }],
    ['a price out of range', { limitPrice: 1e12 }, { kind: 'price_out_of_range', field: 'limit', price: 1e12 }],
    ['more than the margin covers (1 held + 60)', { size: 60 },
      { kind: 'rejected', reason: 'Insufficient margin: 61 NQ contracts need $61,000.00 day-trade margin, $49,998.60 available' }],
  ] as const)('%s → %j, nothing changed', async (_name, over, error) => {
    const t = await tradingApp(BARS);
    await placeOk(t, t, buyLimit(19980)); // 1: working
    await placeOk(t, t, { type: 2, side: 0, size: 1 }); // 2: filled
    await placeOk(t, t, buyLimit(19970)); // 3: canceled below
    expect((await t.s.trading.cancel(await userIdOf(t, t.email), t.accountId, 3)).ok).toBe(true);
    const before = { orders: await orders(t, t), trades: await trades(t, t) };
    const r = await modify(t, over as Partial<ModifyInput>);
    expect(r).toEqual({ ok: false, error: typeof error === 'string' ? { kind: error } : error });
    expect({ orders: await orders(t, t), trades: await trades(t, t) }).toEqual(before);
  });

  it('an ended session → session_ended', async () => {
    const t = await tradingApp(BARS);
    await placeOk(t, t, buyLimit(19980));
    await t.post('Replay/end', { accountId: t.accountId }, t.token);
    expect(await modify(t, { size: 2 })).toEqual({ ok: false, error: { kind: 'session_ended' } });
  });

  it('a challenge that is no longer active refuses it (the spec\'s "Account violation")', async () => {
    const t = await challengeApp(dayRows('2025-03-04', 19_000));
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await step(t, x);
    await market(t, x, 2);
    await step(t, x); // −1,000 points × 2 × $20: the maximum loss is breached, the session ends
    for (const accountId of [c, x.accountId]) {
      const r = await t.s.trading.modify(t.userId, { accountId, orderId: 1, size: 1, limitPrice: null, stopPrice: null });
      expect(r).toEqual({ ok: false, error: { kind: 'challenge_inactive' } });
    }
  });
});

describe('TradingService.cancel: what became of an order that is not working', () => {
  it('filled, canceled and unknown orders are told apart; the current family still answers 2 Order not found', async () => {
    const t = await tradingApp(BARS);
    await placeOk(t, t, { type: 2, side: 0, size: 1 });
    await placeOk(t, t, buyLimit(19970));
    const uid = await userIdOf(t, t.email);
    expect((await t.s.trading.cancel(uid, t.accountId, 2)).ok).toBe(true);
    const kinds = await Promise.all([1, 2, 3].map(async (id) => {
      const r = await t.s.trading.cancel(uid, t.accountId, id);
      return r.ok ? 'ok' : r.error.kind;
    }));
    expect(kinds).toEqual(['order_filled', 'order_canceled', 'order_not_found']);
    for (const orderId of [1, 2, 3]) {
      const r = await t.post('Order/cancel', { accountId: t.accountId, orderId }, t.token);
      expect([r.body.errorCode, r.body.errorMessage]).toEqual([2, 'Order not found']);
    }
  });
});

describe('modify survives a restart', () => {
  const CONFIG = { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' };

  async function fileApp(dbPath: string) {
    const t = await makeApp({ nowMs: WALL_MS, dbPath, config: CONFIG });
    return Object.assign(t, { token: await t.login() });
  }

  /** A session on a file database with two buy limits at 19,985 (ids 1 and 2), one bar played. */
  async function twoLimits() {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'rd-modify-')), 'replaydesk.db');
    const a = await fileApp(dbPath);
    const rows = BARS.map((b, i) => {
      const [o, h, l, c] = typeof b === 'number' ? [b, b, b, b] : b;
      return [OPEN_S + i * 60, ticks(o), ticks(h), ticks(l), ticks(c), 1];
    });
    a.s.chunks.put('NQ', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(rows));
    const r = await a.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, a.token);
    const t = Object.assign(a, { accountId: r.body.accountId as number, contractId: r.body.instrument.contractId as string });
    await step(t, t);
    await placeOk(t, t, buyLimit(19985));
    await placeOk(t, t, buyLimit(19985));
    return { t, dbPath };
  }

  async function restart(t: App, dbPath: string): Promise<App> {
    await t.s.shutdown();
    t.s.db.close();
    const b = await fileApp(dbPath);
    return Object.assign(b, { accountId: t.accountId, contractId: t.contractId });
  }

  it('the modified order comes back with its price, size and place in the queue', async () => {
    const { t, dbPath } = await twoLimits();
    expect((await modify(t, { orderId: 1, size: 2 })).ok).toBe(true); // a size increase: behind order 2
    const b = await restart(t, dbPath);
    // Order/searchOpen lists newest placements first, whatever the queue.
    expect((await openOrders(b, b)).map((o) => [o.id, o.size, o.limitPrice])).toEqual([[2, 1, 19985], [1, 2, 19985]]);
    await step(b, b, 2);
    // Trade/search is newest first: order 2 filled first.
    expect((await trades(b, b)).map((f) => [f.orderId, f.size])).toEqual([[1, 2], [2, 1]]);
    b.s.db.close();
  });

  it('a session stored by an engine before modify (state version 1) restores with id order as time priority', async () => {
    const { t, dbPath } = await twoLimits();
    await t.s.shutdown();
    t.s.db.close();
    // Rewrite the stored core state as version 1 wrote it: no priority sequence.
    const db = new Database(dbPath);
    const row = db.query('SELECT engine_core FROM replay_sessions WHERE account_id = $a').get({ a: t.accountId }) as { engine_core: string };
    const { nextPrioritySeq: _, ...core } = JSON.parse(row.engine_core);
    expect(core.version).toBe(3); // today's version (3: the gateway's order model)
    const v1 = { ...core, version: 1, orders: core.orders.map(({ prioritySeq: _p, ...o }: Record<string, unknown>) => o) };
    db.query('UPDATE replay_sessions SET engine_core = $c WHERE account_id = $a').run({ c: JSON.stringify(v1), a: t.accountId });
    db.close();
    const b = await fileApp(dbPath);
    const x = Object.assign(b, { accountId: t.accountId, contractId: t.contractId });
    expect((await modify(x, { orderId: 1, limitPrice: 19985.25 })).ok).toBe(true);
    expect((await modify(x, { orderId: 1, limitPrice: 19985 })).ok).toBe(true); // back at 19,985, behind order 2
    await step(x, x, 2);
    expect((await trades(x, x)).map((f) => f.orderId)).toEqual([1, 2]);
    b.s.db.close();
  });
});
