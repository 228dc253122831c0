// Multi-instrument replay sessions (issue 34) over hand-built bars, for the black-box tests beside
// this file. Every instrument's data is imported 1 s bars, at most one per minute, played in the 1 m
// timeframe, so a step plays at most one stored bar per contract and every fill price is known. The
// synthetic history is pushed to a far-away week, so only these bars exist. Money is worked out by
// hand in each test from the catalogue (src/domain/instruments.json): NQ $5 a tick, ES $12.50, MNQ
// $0.50, MES $1.25 (ticks of 0.25: NQ $20 a point, ES $50, MNQ $2, MES $5); fees per side NQ and ES
// $1.40, MNQ and MES $0.37; day margin NQ $1,000, ES $500, MNQ $100, MES $50.

import { expect } from 'bun:test';
import type { Config } from '../../../src/config.ts';
import INSTRUMENTS from '../../../src/domain/instruments.json';
import { makeApp, type Reply } from '../../support/app.ts';
import { barsOf, secondsOf } from '../../support/bars.ts';
import { type ChallengeApp, type Row, userIdOf } from '../../support/challenge.ts';
import { WALL_MS } from '../../support/replay.ts';

export const NQ = 'CON.F.US.ENQ.H25';
export const ES = 'CON.F.US.EP.H25';
export const MNQ = 'CON.F.US.MNQ.H25';
export const MES = 'CON.F.US.MES.H25';

/** The spec's `instrument` object of each symbol the tests use (March 2025 contracts). */
export const INSTRUMENT: Record<string, { name: string; contractId: string; tickSize: number; tickValue: number }> = {
  NQ: { name: 'NQH5', contractId: NQ, tickSize: 0.25, tickValue: 5 },
  ES: { name: 'ESH5', contractId: ES, tickSize: 0.25, tickValue: 12.5 },
  MNQ: { name: 'MNQH5', contractId: MNQ, tickSize: 0.25, tickValue: 0.5 },
  MES: { name: 'MESH5', contractId: MES, tickSize: 0.25, tickValue: 1.25 },
};

export const ENVELOPE = { success: true, errorCode: 0, errorMessage: null };

/** Stores `rows` (prices in points) as imported 1 s bars of `symbol`, at the catalogue's tick size. */
export function putRows(t: ChallengeApp, symbol: string, rows: readonly Row[]): void {
  const tick = INSTRUMENTS.find((i) => i.symbol === symbol)!.tickSize;
  const byDay = new Map<number, number[][]>();
  for (const row of rows) {
    const s = secondsOf(row[0]);
    const prices = row.length === 2 ? [row[1], row[1], row[1], row[1]] : row.slice(1);
    const day = Math.floor(s / 86_400);
    byDay.set(day, [...(byDay.get(day) ?? []), [s, ...prices.map((p) => Math.round((p as number) / tick)), 1]]);
  }
  for (const [day, list] of byDay) t.s.chunks.put(symbol, day, 'import', barsOf(list.sort((a, b) => a[0] - b[0])));
}

/** An app holding `data` (symbol → rows), the demo user logged in; `config` over the app's. */
export async function multiApp(data: Record<string, readonly Row[]>, config: Partial<Config> = {}): Promise<ChallengeApp> {
  const t = await makeApp({ nowMs: WALL_MS, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09', ...config } });
  const x = Object.assign(t, { token: await t.login(), userId: await userIdOf(t, t.email) });
  for (const [symbol, rows] of Object.entries(data)) putRows(x, symbol, rows);
  return x;
}

/** POSTs and expects success; the answer's body. */
export async function ok(t: ChallengeApp, path: string, body: Record<string, unknown>): Promise<any> {
  const r: Reply = await t.post(path, body, t.token);
  if (r.status !== 200 || !r.body.success) throw new Error(`${path} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export interface Multi {
  accountId: number;
  /** The session's contract ids, in the order of `instruments`. */
  contracts: string[];
}

/** Replay/start of a 1 m session over `symbols` from `startDate`, on challenge `accountId` if given. */
export async function startMulti(t: ChallengeApp, symbols: string[], startDate: string, accountId?: number): Promise<Multi> {
  const body = await ok(t, 'Replay/start', { instrumentSymbols: symbols, startDate, timeframe: '1m', accountId });
  expect(body.instruments.map((i: any) => i.contractId)).toEqual(symbols.map((s) => INSTRUMENT[s].contractId));
  return { accountId: body.accountId, contracts: body.instruments.map((i: any) => i.contractId) };
}

/** Order/place on the session's account; `size` positive buys, negative sells; must succeed. */
export async function marketOn(t: ChallengeApp, x: Multi, contractId: string, size: number): Promise<number> {
  return (await ok(t, 'Order/place', { accountId: x.accountId, contractId, type: 2, side: size > 0 ? 0 : 1, size: Math.abs(size) })).orderId;
}

/** A limit order of `size` (positive buys) at `limitPrice`; must succeed. */
export async function limitOn(t: ChallengeApp, x: Multi, contractId: string, size: number, limitPrice: number): Promise<number> {
  return (await ok(t, 'Order/place', { accountId: x.accountId, contractId, type: 1, side: size > 0 ? 0 : 1, size: Math.abs(size), limitPrice })).orderId;
}

/** `rows` sorted by contractId (the order of rows of different contracts is not stated). */
export const byContract = <T extends { contractId: string }>(rows: T[]): T[] => [...rows].sort((a, b) => a.contractId.localeCompare(b.contractId));

/** A flat 1 m bar as Replay/step answers it. */
export function flatBar(iso: string, price: number) {
  return { t: iso, o: price, h: price, l: price, c: price, v: 1 };
}
