// Challenge accounts trading over hand-built bars on several CME trade dates, for black-box tests of
// challenge sessions (propFirm, violations) and Payout/*.
//
// Time model of the data: March 2025. Chicago is on CST until 2025-03-09 02:00 and on CDT after, so
// a CME trade date begins at 23:00 UTC the evening before (17:00 CT) in the first week and at 22:00
// UTC from Sunday 2025-03-09 on. A bar at 15:00 UTC (09:00 CT) belongs to its own calendar day's
// trade date. Bars are 1 s stored bars, at most one per minute, and every session plays them in the
// 1 m timeframe, so one Replay/step plays exactly one stored bar and every fill price is known.
// NQ: $5 a tick ($20 a point), fee $1.40 per contract per side; MNQ: $0.50 a tick, fee $0.37.
// The synthetic history is pushed to a far-away week, so only these bars exist.

import type { PayoutPolicy } from '../../src/challenge/plans.ts';
import type { ChallengePhase } from '../../src/challenge/state.ts';
import { makeApp, type Reply, type TestApp } from './app.ts';
import { barsOf, secondsOf } from './bars.ts';
import { type ReplayTestApp, type Session, step, ticks, WALL_MS } from './replay.ts';

/** A stored bar `[isoTime, open, high, low, close]` in points, or `[isoTime, price]` for a flat bar. */
export type Row = readonly [string, number] | readonly [string, number, number, number, number];

export interface ChallengeApp extends ReplayTestApp {
  userId: number;
}

/** The entry price of every trading day below. */
export const ENTRY = 20_000;

/** A trading day's two bars at 15:00 and 15:01 UTC: flat at ENTRY, then flat at `exit`. */
export function dayRows(date: string, exit: number): Row[] {
  return [[`${date}T15:00:00Z`, ENTRY], [`${date}T15:01:00Z`, exit]];
}

/** Stores `rows` as imported 1 s bars of `symbol`, one chunk per UTC day. */
export function putBars(t: ReplayTestApp, symbol: string, rows: readonly Row[]): void {
  const byDay = new Map<number, number[][]>();
  for (const r of rows) {
    const s = secondsOf(r[0]);
    const [o, h, l, c] = r.length === 2 ? [r[1], r[1], r[1], r[1]] : [r[1], r[2], r[3], r[4]];
    const day = Math.floor(s / 86_400);
    const list = byDay.get(day) ?? [];
    list.push([s, ticks(o), ticks(h), ticks(l), ticks(c), 1]);
    byDay.set(day, list);
  }
  for (const [day, list] of byDay) t.s.chunks.put(symbol, day, 'import', barsOf(list.sort((a, b) => a[0] - b[0])));
}

/** An app whose `symbol` data is `rows`, with the demo user logged in. */
export async function challengeApp(
  rows: readonly Row[],
  opts: { symbol?: string; dbPath?: string; extra?: Record<string, readonly Row[]> } = {},
): Promise<ChallengeApp> {
  const t = await makeApp({ nowMs: WALL_MS, dbPath: opts.dbPath, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
  const token = await t.login();
  const x = Object.assign(t, { token, userId: await userIdOf(t, t.email) });
  if (rows.length > 0) putBars(x, opts.symbol ?? 'NQ', rows);
  for (const [symbol, more] of Object.entries(opts.extra ?? {})) putBars(x, symbol, more);
  return x;
}

export async function userIdOf(t: TestApp, email: string): Promise<number> {
  const u = (await t.s.users.list()).find((row) => row.email === email);
  if (!u) throw new Error(`no user ${email}`);
  return u.id;
}

/** A 50K challenge account of the demo user (or `userId`), as the admin CLI creates it. */
export async function createChallenge(
  t: ChallengeApp,
  phase: ChallengePhase = 'evaluation',
  policy: PayoutPolicy = 'standard',
  userId = t.userId,
): Promise<number> {
  return (await t.s.challenges.create(userId, '50K', phase, policy)).account.id;
}

/** A second Pro user with its own token. */
export async function otherUser(t: ChallengeApp): Promise<{ userId: number; token: string }> {
  const created = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
  if (!created.ok) throw new Error('cannot create second user');
  const r = await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: created.value.apiKey });
  return { userId: await userIdOf(t, 'other@example.com'), token: r.body.token as string };
}

/** Replay/start of a 1 m session from `startDate` to the end of data, on challenge `accountId` if given. */
export function startReply(t: ChallengeApp, accountId: number | undefined, startDate: string, symbol = 'NQ', token = t.token): Promise<Reply> {
  return t.post('Replay/start', { instrumentSymbol: symbol, startDate, timeframe: '1m', accountId }, token);
}

export async function startOn(t: ChallengeApp, accountId: number | undefined, startDate: string, symbol = 'NQ'): Promise<Session> {
  const r = await startReply(t, accountId, startDate, symbol);
  if (!r.body.success) throw new Error(`Replay/start failed: ${JSON.stringify(r.body)}`);
  return { accountId: r.body.accountId, contractId: r.body.instrument.contractId };
}

/** Order/place of a market order of `size` (positive buys, negative sells); must succeed. */
export async function market(t: ChallengeApp, x: Session, size: number): Promise<number> {
  const r = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: size > 0 ? 0 : 1, size: Math.abs(size) }, t.token);
  if (!r.body.success) throw new Error(`Order/place failed: ${JSON.stringify(r.body)}`);
  return r.body.orderId;
}

/** Position/closeContract; must succeed. */
export async function closeAll(t: ChallengeApp, x: Session): Promise<void> {
  const r = await t.post('Position/closeContract', { accountId: x.accountId, contractId: x.contractId }, t.token);
  if (!r.body.success) throw new Error(`Position/closeContract failed: ${JSON.stringify(r.body)}`);
}

/**
 * One trading day over `dayRows`: plays the entry bar, buys `qty` at market (ENTRY), plays the exit
 * bar, closes at its price. Returns the exit step's response.
 */
export async function roundTrip(t: ChallengeApp, x: Session, qty: number): Promise<any> {
  await step(t, x);
  await market(t, x, qty);
  const exit = await step(t, x);
  await closeAll(t, x);
  return exit;
}

/** Replay/pause: the session's account snapshot and propFirm without advancing. */
export async function pause(t: ChallengeApp, x: Session): Promise<{ account: any; propFirm: any }> {
  const r = await t.post('Replay/pause', { accountId: x.accountId }, t.token);
  if (!r.body.success) throw new Error(`Replay/pause failed: ${JSON.stringify(r.body)}`);
  return { account: r.body.account, propFirm: r.body.propFirm };
}

/** The Account/search entry of account `id` (undefined when not listed). */
export async function accountEntry(t: ChallengeApp, id: number, token = t.token): Promise<any> {
  const r = await t.post('Account/search', {}, token);
  return r.body.accounts.find((a: any) => a.id === id);
}

/** The propFirm block. */
export function propFirm(over: Record<string, unknown> = {}) {
  return { status: 'active', isFunded: false, currentPhase: 'evaluation', tradingDaysCount: 0, drawdownLocked: false, ...over };
}

/** The error envelope. */
export const failure = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });
