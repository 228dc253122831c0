// Earlier-family replay sessions over the hand-built NQ bars of replay.ts (one 1 s bar a minute from
// 14:30 on 2025-03-03), for black-box tests of its Order/*, Position/*, Trade/*, Replay/* and History.
// A legacy session on 2025-03-03 spans that trade date (2025-03-02 23:00 to 2025-03-03 22:00 UTC), so
// a 1 m session plays exactly one stored bar per step, as in the current family's tests.

import type { Config } from '../../src/config.ts';
import type { Reply } from './app.ts';
import { legacyLogin, legacyPost } from './legacy.ts';
import { type BarSpec, DAY, replayApp, type ReplayTestApp } from './replay.ts';

export const NQ_LEGACY = /^CON\.F\.US\.NQ\.[FGHJKMNQUVXZ]\d\d$/;

export interface LegacySession {
  accountId: number;
  contractId: string;
}

export interface LegacyApp extends ReplayTestApp {
  /** A token from the earlier family's login. */
  ltoken: string;
  call(path: string, body?: unknown, token?: string): Promise<Reply>;
}

export async function legacyApp(bars: readonly BarSpec[], config: Partial<Config> = {}): Promise<LegacyApp> {
  const t = await replayApp(bars, { config });
  const ltoken = await legacyLogin(t);
  return Object.assign(t, { ltoken, call: (path: string, body: unknown = {}, token = ltoken) => legacyPost(t, path, body, token) });
}

/** Replay/start of a 1 m NQ session on 2025-03-03 through the earlier family. */
export async function legacyStart(t: LegacyApp, token = t.ltoken): Promise<LegacySession> {
  const r = await t.call('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, token);
  if (!r.body.success) throw new Error(`Replay/start failed: ${JSON.stringify(r.body)}`);
  return { accountId: r.body.accountId, contractId: r.body.contractId };
}

/** `legacyApp` plus a started session and `steps` bars played. */
export async function legacyTradingApp(bars: readonly BarSpec[], steps = 1) {
  const t = await legacyApp(bars);
  const x = await legacyStart(t);
  if (steps > 0) await legacyStep(t, x, steps);
  return Object.assign(t, x);
}

export type LegacyTradingApp = Awaited<ReturnType<typeof legacyTradingApp>>;

export async function legacyStep(t: LegacyApp, x: LegacySession, steps = 1): Promise<any> {
  const r = await t.call('Replay/step', { accountId: x.accountId, steps });
  if (r.status !== 200 || !r.body.success) throw new Error(`Replay/step failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export function legacyPlace(t: LegacyApp, x: LegacySession, body: Record<string, unknown>): Promise<Reply> {
  return t.call('Order/place', { accountId: x.accountId, contractId: x.contractId, size: 1, ...body });
}

export async function legacyPlaceOk(t: LegacyApp, x: LegacySession, body: Record<string, unknown>): Promise<string> {
  const r = await legacyPlace(t, x, body);
  if (!r.body.success) throw new Error(`Order/place failed: ${JSON.stringify(r.body)}`);
  return r.body.orderId;
}

async function list(t: LegacyApp, path: string, key: string, accountId: number): Promise<any[]> {
  const r = await t.call(path, { accountId });
  if (!r.body.success) throw new Error(`${path} failed: ${JSON.stringify(r.body)}`);
  return r.body[key];
}

export const legacyOrders = (t: LegacyApp, x: LegacySession) => list(t, 'Order/search', 'orders', x.accountId);
export const legacyOpenOrders = (t: LegacyApp, x: LegacySession) => list(t, 'Order/searchOpen', 'orders', x.accountId);
export const legacyPositions = (t: LegacyApp, x: LegacySession) => list(t, 'Position/searchOpen', 'positions', x.accountId);
export const legacyTrades = (t: LegacyApp, x: LegacySession) => list(t, 'Trade/search', 'trades', x.accountId);

/** A second Pro user with an earlier-family token and a live legacy session on the same data. */
export async function otherLegacyUser(t: LegacyApp): Promise<LegacySession & { token: string }> {
  const created = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
  if (!created.ok) throw new Error('cannot create second user');
  const r = await legacyPost(t, 'Auth/loginKey', { userName: 'other@example.com', apiKey: created.value.apiKey });
  const token = r.body.token as string;
  return { ...(await legacyStart(t, token)), token };
}

/** The full Order/search object of an NQ order of session `x`, defaults for a pending buy limit of 1. */
export function legacyOrderObject(x: LegacySession, over: Record<string, unknown>) {
  return {
    id: `${x.accountId}-1`,
    accountId: x.accountId,
    contractId: x.contractId,
    type: 1,
    side: 0,
    size: 1,
    limitPrice: null,
    stopPrice: null,
    status: 6,
    fillPrice: null,
    filledSize: 0,
    createdAt: '2025-03-03T14:31:00Z',
    ...over,
  };
}
