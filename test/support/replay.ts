// Replay sessions over hand-built NQ bars, for black-box tests of Order/*, Position/* and Trade/*.
//
// The day 2025-03-03 holds one imported 1 s bar per minute from 14:30:00 (bar i at 14:30 + i min),
// so a 1 m session plays exactly one stored bar per Replay/step and every fill price is known.
// The synthetic history is pushed to a far-away week (dataStartDate/dataEndDate), so nothing else
// is generated; the wall clock sits on another day so that simulated and wall times differ.

import type { Config } from '../../src/config.ts';
import { makeApp, type Reply, type TestApp } from './app.ts';
import { barsOf, dayOf, secondsOf } from './bars.ts';

export const DAY = '2025-03-03';
export const OPEN_S = secondsOf(`${DAY}T14:30:00Z`);
export const WALL_MS = Date.UTC(2025, 2, 10, 9, 0, 0); // a week later: never a simulated time
export const NQ_CONTRACT = 'CON.F.US.ENQ.H25';
export const ES_CONTRACT = 'CON.F.US.EP.H25';

/** A bar as [open, high, low, close] in NQ points, or one price for a flat bar. */
export type BarSpec = number | readonly [number, number, number, number];

/** NQ points → integer ticks (tick 0.25). */
export const ticks = (points: number) => Math.round(points * 4);

/** `2025-03-03T14:MM:SSZ` for bar `minute` (0 = 14:30) plus `second`. */
export function at(minute: number, second = 0): string {
  return new Date((OPEN_S + minute * 60 + second) * 1000).toISOString().replace('.000Z', 'Z');
}

export interface ReplayTestApp extends TestApp {
  token: string;
}

export interface Session {
  accountId: number;
  contractId: string;
}

/**
 * An app whose NQ data is `bars` (one per minute from 14:30 on 2025-03-03). `historyClose`, when
 * given, adds one bar at 2025-03-02T23:59:00Z so the session has a last price before its first step;
 * `config` overrides the app's; `nowMs` its wall clock (WALL_MS by default); `dbPath` a SQLite file to
 * keep the store in (reopened by a second app on the same path, as a restarted server).
 */
export async function replayApp(
  bars: readonly BarSpec[],
  opts: { historyClose?: number; config?: Partial<Config>; nowMs?: number; dbPath?: string } = {},
): Promise<ReplayTestApp> {
  const config = { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09', ...opts.config };
  const t = await makeApp({ nowMs: opts.nowMs ?? WALL_MS, dbPath: opts.dbPath, config });
  const rows = bars.map((b, i) => {
    const [o, h, l, c] = typeof b === 'number' ? [b, b, b, b] : b;
    return [OPEN_S + i * 60, ticks(o), ticks(h), ticks(l), ticks(c), 1];
  });
  t.s.chunks.put('NQ', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(rows));
  if (opts.historyClose !== undefined) {
    const p = ticks(opts.historyClose);
    const s = secondsOf('2025-03-02T23:59:00Z');
    t.s.chunks.put('NQ', dayOf('2025-03-02T00:00:00Z'), 'import', barsOf([[s, p, p, p, p, 1]]));
  }
  return Object.assign(t, { token: await t.login() });
}

/** Replay/start of a 1 m NQ session on 2025-03-03 for the logged-in user (or `token`). */
export async function startSession(t: ReplayTestApp, token = t.token): Promise<Session> {
  const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, token);
  if (!r.body.success) throw new Error(`Replay/start failed: ${JSON.stringify(r.body)}`);
  return { accountId: r.body.accountId, contractId: r.body.instrument.contractId };
}

/** `replayApp` plus a started session and, when `steps` > 0, that many bars already played. */
export async function tradingApp(bars: readonly BarSpec[], steps = 1, opts: { historyClose?: number } = {}) {
  const t = await replayApp(bars, opts);
  const x = await startSession(t);
  if (steps > 0) await step(t, x, steps);
  return Object.assign(t, x);
}

export type TradingApp = Awaited<ReturnType<typeof tradingApp>>;

/** Replay/step; throws unless it succeeded. */
export async function step(t: ReplayTestApp, x: Session, steps = 1): Promise<any> {
  const r = await t.post('Replay/step', { accountId: x.accountId, steps }, t.token);
  if (r.status !== 200 || !r.body.success) throw new Error(`Replay/step failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Order/place on the session's account and contract; `body` overrides any field. */
export function place(t: ReplayTestApp, x: Session, body: Record<string, unknown>): Promise<Reply> {
  return t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, size: 1, ...body }, t.token);
}

/** Order/place that must succeed; returns the order id. */
export async function placeOk(t: ReplayTestApp, x: Session, body: Record<string, unknown>): Promise<number> {
  const r = await place(t, x, body);
  if (!r.body.success) throw new Error(`Order/place failed: ${JSON.stringify(r.body)}`);
  return r.body.orderId;
}

/** The account snapshot without advancing (Replay/pause answers it). */
export async function snapshot(t: ReplayTestApp, x: Session): Promise<any> {
  const r = await t.post('Replay/pause', { accountId: x.accountId }, t.token);
  if (!r.body.success) throw new Error(`Replay/pause failed: ${JSON.stringify(r.body)}`);
  return r.body.account;
}

export async function orders(t: ReplayTestApp, x: Session, extra: Record<string, unknown> = {}): Promise<any[]> {
  const r = await t.post('Order/search', { accountId: x.accountId, ...extra }, t.token);
  if (!r.body.success) throw new Error(`Order/search failed: ${JSON.stringify(r.body)}`);
  return r.body.orders;
}

export async function openOrders(t: ReplayTestApp, x: Session): Promise<any[]> {
  const r = await t.post('Order/searchOpen', { accountId: x.accountId }, t.token);
  if (!r.body.success) throw new Error(`Order/searchOpen failed: ${JSON.stringify(r.body)}`);
  return r.body.orders;
}

export async function positions(t: ReplayTestApp, x: Session): Promise<any[]> {
  const r = await t.post('Position/searchOpen', { accountId: x.accountId }, t.token);
  if (!r.body.success) throw new Error(`Position/searchOpen failed: ${JSON.stringify(r.body)}`);
  return r.body.positions;
}

export async function trades(t: ReplayTestApp, x: Session, extra: Record<string, unknown> = {}): Promise<any[]> {
  const r = await t.post('Trade/search', { accountId: x.accountId, ...extra }, t.token);
  if (!r.body.success) throw new Error(`Trade/search failed: ${JSON.stringify(r.body)}`);
  return r.body.trades;
}

/** A second Pro user with its own token and a live session on the same data. */
export async function otherUserSession(t: ReplayTestApp): Promise<Session & { token: string }> {
  const created = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
  if (!created.ok) throw new Error('cannot create second user');
  const r = await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: created.value.apiKey });
  const token = r.body.token as string;
  return { ...(await startSession(t, token)), token };
}

/** The full Order/search object of an NQ order in session `x`, defaults for a pending buy limit of 1. */
export function orderObject(x: Session, over: Record<string, unknown>) {
  return {
    id: 1,
    accountId: x.accountId,
    contractId: x.contractId,
    symbolId: 'NQ',
    creationTimestamp: at(1),
    updateTimestamp: null,
    status: 6,
    type: 1,
    side: 0,
    size: 1,
    limitPrice: null,
    stopPrice: null,
    fillVolume: 0,
    filledPrice: null,
    customTag: null,
    ...over,
  };
}

/** The full Trade/search object of an NQ fill in session `x`. */
export function tradeObject(x: Session, over: Record<string, unknown>) {
  return {
    id: 1,
    accountId: x.accountId,
    contractId: x.contractId,
    creationTimestamp: at(1),
    price: 20000,
    profitAndLoss: null,
    fees: 1.4,
    side: 0,
    size: 1,
    voided: false,
    orderId: 1,
    ...over,
  };
}

/** The account snapshot of replay responses. */
export function account(balance: number, over: Record<string, number> = {}) {
  return { balance, equity: balance, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0, ...over };
}
