// One conformance suite over both simulator families. Each trading scenario is written once against
// a small driver interface; a driver per family speaks that family's shapes (contract IDs, string or
// number order IDs, field names, trade order, end-of-session answers). Both run on identical data
// and the test compares what the engine did: the same fills at the same prices and times, the same
// balances to the cent. A difference may only come from an adapter.
//
// Spans: the current family's Replay/start covers UTC days and the earlier family's trade dates, so
// every scenario first jumps both sessions to the same time; from there both play the same bars.

import { describe, expect, it } from 'bun:test';
import { makeApp, type TestApp } from '../support/app.ts';
import { challengeApp, createChallenge, dayRows, type Row } from '../support/challenge.ts';
import { legacyLogin, legacyPost } from '../support/legacy.ts';

interface Order {
  type: 1 | 2 | 3 | 4;
  side: 0 | 1;
  size: number;
  limit?: number;
  stop?: number;
}

interface Driver {
  family: 'current' | 'earlier';
  start(opts: { symbol?: string; startDate: string; endDate?: string; accountId?: number }): Promise<void>;
  jump(iso: string): Promise<void>;
  /** Plays up to `n` bars; returns the closes of the bars played (empty at the end of data). */
  step(n: number): Promise<number[]>;
  place(o: Order): Promise<{ ok: boolean; id: string }>;
  cancel(id: string): Promise<boolean>;
  partialClose(size: number): Promise<boolean>;
  close(): Promise<boolean>;
  /** Fills of the session, oldest first, as `side size price time`. */
  fills(): Promise<string[]>;
  /** Working orders of the session as `type side size limit stop`. */
  working(): Promise<string[]>;
  /** The session account's balance in Account/search. */
  balance(): Promise<number>;
  /** Replay/end: the final balance the family reports. */
  end(): Promise<number>;
  eligibility(accountId: number): Promise<any>;
  payout(accountId: number, amount: number): Promise<boolean>;
  payouts(accountId: number): Promise<number[]>;
}

const NQ = { current: 'ENQ', earlier: 'NQ' } as const;

async function retry503(call: () => Promise<any>): Promise<any> {
  for (let i = 0; ; i++) {
    const r = await call();
    if (r.status !== 503 || i > 100) return r;
    await Bun.sleep(20);
  }
}

function currentDriver(t: TestApp, token: string): Driver {
  let accountId = 0;
  let contractId = '';
  const post = (path: string, body: Record<string, unknown>) => t.post(path, { accountId, ...body }, token);
  return {
    family: 'current',
    async start(o) {
      const r = await t.post('Replay/start', { instrumentSymbol: o.symbol ?? 'NQ', startDate: o.startDate, endDate: o.endDate, timeframe: '1m', accountId: o.accountId }, token);
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      accountId = r.body.accountId;
      contractId = r.body.instrument.contractId;
      expect(contractId.split('.')[3]).toBe(NQ.current);
    },
    async jump(iso) {
      expect((await retry503(() => post('Replay/jumpTo', { targetTime: iso }))).body.success).toBe(true);
    },
    async step(n) {
      const r = await retry503(() => post('Replay/step', { steps: n }));
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      return r.body.bars.map((b: any) => b.c);
    },
    async place(o) {
      const r = await post('Order/place', { contractId, type: o.type, side: o.side, size: o.size, limitPrice: o.limit ?? null, stopPrice: o.stop ?? null });
      return { ok: r.body.success, id: String(r.body.orderId) };
    },
    async cancel(id) {
      return (await post('Order/cancel', { orderId: Number(id) })).body.success;
    },
    async partialClose(size) {
      return (await post('Position/partialCloseContract', { contractId, size })).body.success;
    },
    async close() {
      return (await post('Position/closeContract', { contractId })).body.success;
    },
    async fills() {
      const r = await post('Trade/search', {});
      return r.body.trades.slice().reverse().map((f: any) => `${f.side} ${f.size} ${f.price} ${f.creationTimestamp}`);
    },
    async working() {
      const r = await post('Order/searchOpen', {});
      return r.body.orders.map((o: any) => `${o.type} ${o.side} ${o.size} ${o.limitPrice} ${o.stopPrice}`).sort();
    },
    async balance() {
      const r = await t.post('Account/search', {}, token);
      return r.body.accounts.find((a: any) => a.id === accountId).balance;
    },
    async end() {
      const r = await post('Replay/end', {});
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      return r.body.account.balance;
    },
    async eligibility(id) {
      return (await t.post('Payout/eligibility', { accountId: id }, token)).body.eligibility;
    },
    async payout(id, amount) {
      return (await t.post('Payout/request', { accountId: id, amount }, token)).body.success;
    },
    async payouts(id) {
      return (await t.post('Payout/history', { accountId: id }, token)).body.payouts.map((p: any) => p.amount);
    },
  };
}

function earlierDriver(t: TestApp, token: string): Driver {
  let accountId = 0;
  let contractId = '';
  const post = (path: string, body: Record<string, unknown>) => legacyPost(t, path, { accountId, ...body }, token);
  const bare = (path: string, body: Record<string, unknown>) => legacyPost(t, path, body, token);
  return {
    family: 'earlier',
    async start(o) {
      const r = await bare('Replay/start', { instrumentSymbol: o.symbol ?? 'NQ', startDate: o.startDate, endDate: o.endDate ?? null, timeframe: '1m', accountId: o.accountId });
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      accountId = r.body.accountId;
      contractId = r.body.contractId;
      expect(contractId.split('.')[3]).toBe(NQ.earlier);
    },
    async jump(iso) {
      expect((await retry503(() => post('Replay/jumpTo', { timestamp: iso }))).body.success).toBe(true);
    },
    async step(n) {
      const r = await retry503(() => post('Replay/step', { steps: n }));
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      return r.body.bars.map((b: any) => b.c);
    },
    async place(o) {
      const r = await post('Order/place', { contractId, type: o.type, side: o.side, size: o.size, limitPrice: o.limit ?? null, stopPrice: o.stop ?? null });
      if (r.body.success) expect(typeof r.body.orderId).toBe('string');
      return { ok: r.body.success, id: r.body.orderId };
    },
    async cancel(id) {
      return (await bare('Order/cancel', { orderId: id })).body.success;
    },
    async partialClose(size) {
      return (await post('Position/partialCloseContract', { contractId, size })).body.success;
    },
    async close() {
      return (await post('Position/closeContract', { contractId })).body.success;
    },
    async fills() {
      const r = await post('Trade/search', {});
      return r.body.trades.map((f: any) => `${f.side} ${f.size} ${f.price} ${f.timestamp}`);
    },
    async working() {
      const r = await post('Order/searchOpen', {});
      return r.body.orders.map((o: any) => `${o.type} ${o.side} ${o.size} ${o.limitPrice} ${o.stopPrice}`).sort();
    },
    async balance() {
      const r = await bare('Account/search', {});
      return r.body.accounts.find((a: any) => a.id === accountId).balance;
    },
    async end() {
      const r = await post('Replay/end', {});
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      return r.body.results.finalBalance;
    },
    async eligibility(id) {
      return (await bare('Payout/eligibility', { accountId: id })).body.eligibility;
    },
    async payout(id, amount) {
      return (await bare('Payout/request', { accountId: id, amount })).body.success;
    },
    async payouts(id) {
      return (await bare('Payout/history', { accountId: id })).body.payouts.map((p: any) => p.amount);
    },
  };
}

type Scenario = (d: Driver) => Promise<Record<string, unknown>>;

/** A fresh app per family on the synthetic history, the driver logged in through that family. */
async function syntheticDrivers(config: Record<string, unknown> = {}): Promise<Driver[]> {
  const out: Driver[] = [];
  for (const family of ['current', 'earlier'] as const) {
    const t = await makeApp({ config: { dataStartDate: '2025-02-24', dataEndDate: '2025-03-07', ...config } });
    out.push(family === 'current' ? currentDriver(t, await t.login()) : earlierDriver(t, await legacyLogin(t)));
  }
  return out;
}

/** Runs `scenario` on both families and expects the same observations; returns them. */
async function conforms(drivers: Driver[], scenario: Scenario): Promise<Record<string, unknown>> {
  const [a, b] = await Promise.all(drivers.map((d) => scenario(d)));
  expect(b).toEqual(a);
  return a;
}

/** NQ on Tuesday 2025-03-04 from 14:30Z: both families on the same bars. */
async function open(d: Driver): Promise<number> {
  await d.start({ startDate: '2025-03-04', endDate: d.family === 'current' ? '2025-03-05' : undefined });
  await d.jump('2025-03-04T14:30:00Z');
  const closes = await d.step(1);
  return closes[0];
}

describe('both families, one engine', () => {
  it('a market round trip', async () => {
    const seen = await conforms(await syntheticDrivers(), async (d) => {
      await open(d);
      expect((await d.place({ type: 2, side: 0, size: 2 })).ok).toBe(true);
      await d.step(7);
      expect((await d.place({ type: 2, side: 1, size: 2 })).ok).toBe(true);
      return { fills: await d.fills(), balance: await d.balance(), final: await d.end() };
    });
    expect((seen.fills as string[]).length).toBe(2);
  });

  it('a resting limit that fills later, and a stop', async () => {
    const seen = await conforms(await syntheticDrivers(), async (d) => {
      const c = await open(d);
      expect((await d.place({ type: 1, side: 0, size: 1, limit: c - 2 })).ok).toBe(true);
      expect((await d.place({ type: 4, side: 1, size: 1, stop: c - 3 })).ok).toBe(true);
      const before = await d.working();
      const closes = await d.step(60);
      return { before, fills: await d.fills(), after: await d.working(), closes, balance: await d.balance(), final: await d.end() };
    });
    expect((seen.before as string[]).length).toBe(2);
    expect((seen.fills as string[]).length).toBeGreaterThan(0);
  });

  it('a partial close, then the rest', async () => {
    const seen = await conforms(await syntheticDrivers(), async (d) => {
      await open(d);
      await d.place({ type: 2, side: 1, size: 3 });
      await d.step(5);
      expect(await d.partialClose(1)).toBe(true);
      await d.step(5);
      expect(await d.close()).toBe(true);
      return { fills: await d.fills(), balance: await d.balance(), final: await d.end() };
    });
    expect((seen.fills as string[]).map((f) => f.split(' ').slice(0, 2).join(' '))).toEqual(['1 3', '0 1', '0 2']);
  });

  it('cancel: a canceled order never fills', async () => {
    const seen = await conforms(await syntheticDrivers(), async (d) => {
      const c = await open(d);
      const far = await d.place({ type: 1, side: 0, size: 1, limit: c - 100 });
      const near = await d.place({ type: 1, side: 1, size: 1, limit: c + 1000 });
      await d.step(2);
      expect(await d.cancel(far.id)).toBe(true);
      expect(await d.cancel(far.id)).toBe(false);
      const left = await d.working();
      expect(await d.cancel(near.id)).toBe(true);
      await d.step(30);
      return { left, fills: await d.fills(), working: await d.working(), final: await d.end() };
    });
    expect(seen).toMatchObject({ fills: [], working: [], final: 50_000 });
  });

  it('end of data: the session stops at the last bar and the end closes the position there', async () => {
    const seen = await conforms(await syntheticDrivers(), async (d) => {
      // Friday 2025-03-07 is the last day of data; CME closes at 22:00Z.
      await d.start({ startDate: '2025-03-07' });
      await d.jump('2025-03-07T21:50:00Z');
      await d.step(1);
      await d.place({ type: 2, side: 0, size: 1 });
      const played = await d.step(50);
      const after = await d.step(5);
      return { played: played.length, after: after.length, fills: await d.fills(), final: await d.end() };
    });
    expect(seen).toMatchObject({ played: 9, after: 0 });
  });

  it('a challenge violation liquidates at the same price and time, and the account stops trading', async () => {
    // 50K plan: daily loss limit $1,000. Five NQ long at 20,000 ($100 a point); the next bar falls 30 points.
    const rows: Row[] = [['2025-03-04T15:00:00Z', 20_000], ['2025-03-04T15:01:00Z', 20_000, 20_000, 19_970, 19_975]];
    const drivers: Driver[] = [];
    const ids: number[] = [];
    for (const family of ['current', 'earlier'] as const) {
      const t = await challengeApp(rows);
      ids.push(await createChallenge(t));
      drivers.push(family === 'current' ? currentDriver(t, t.token) : earlierDriver(t, await legacyLogin(t)));
    }
    const seen = await conforms(drivers, async (d) => {
      await d.start({ startDate: '2025-03-04', endDate: d.family === 'current' ? '2025-03-05' : undefined, accountId: ids[drivers.indexOf(d)] });
      await d.step(1);
      await d.place({ type: 2, side: 0, size: 5 });
      await d.step(1);
      const refused = !(await d.place({ type: 2, side: 0, size: 1 })).ok;
      return { fills: await d.fills(), refused, balance: await d.balance() };
    });
    expect((seen.fills as string[]).length).toBe(2);
    expect(seen.refused).toBe(true);
    // Liquidated where the loss reached the limit, fees on top: not at the bar's low.
    expect(seen.balance).toBeLessThan(49_000);
    expect(seen.balance).toBeGreaterThan(50_000 - 30 * 100);
  });

  it('payouts: the same eligibility and the same withdrawal from a funded account', async () => {
    const exits: [string, number][] = [
      ['2025-03-03', 20_010], ['2025-03-04', 20_005], ['2025-03-05', 20_010], ['2025-03-06', 19_990],
      ['2025-03-07', 20_010], ['2025-03-10', 20_010], ['2025-03-11', 20_030],
    ];
    const rows: Row[] = [...exits.flatMap(([day, exit]) => dayRows(day, exit)), ...dayRows('2025-03-12', 20_000)];
    const drivers: Driver[] = [];
    const ids: number[] = [];
    for (const family of ['current', 'earlier'] as const) {
      const t = await challengeApp(rows);
      ids.push(await createChallenge(t, 'performance', 'standard'));
      drivers.push(family === 'current' ? currentDriver(t, t.token) : earlierDriver(t, await legacyLogin(t)));
    }
    const seen = await conforms(drivers, async (d) => {
      const id = ids[drivers.indexOf(d)];
      await d.start({ startDate: '2025-03-03', endDate: d.family === 'current' ? '2025-03-12' : '2025-03-12', accountId: id });
      for (let day = 0; day < exits.length; day++) {
        await d.step(1);
        await d.place({ type: 2, side: 0, size: 1 });
        await d.step(1);
        await d.close();
      }
      await d.step(1);
      const e = await d.eligibility(id);
      const { reasons: _, ...figures } = e;
      const paid = await d.payout(id, 150);
      return { figures, paid, history: await d.payouts(id), balance: await d.balance(), fills: (await d.fills()).length };
    });
    expect(seen).toMatchObject({ paid: true, history: [150], fills: 14 });
    expect((seen.figures as any).eligible).toBe(true);
  });
});
