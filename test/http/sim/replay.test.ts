import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limits } from '../../../src/config.ts';
import { makeApp, type TestApp, waitFor } from '../../support/app.ts';
import { dayOf, rampBars, secondsOf } from '../../support/bars.ts';

// Known data: NQ 1 s bars on 2025-03-03 from 14:30:00 for 10 minutes (a ramp: open = 80,000 + i
// ticks), and nothing else (the synthetic span is a far-away week).
const DAY = '2025-03-03';
const OPEN = '2025-03-03T14:30:00Z';
const BASE = 80_000;

async function setup(config = {}): Promise<TestApp & { token: string }> {
  const t = await makeApp({ config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09', ...config } });
  t.s.chunks.put('NQ', dayOf(OPEN), 'import', rampBars(secondsOf(OPEN), 600, BASE));
  return Object.assign(t, { token: await t.login() });
}

async function start(t: TestApp & { token: string }, body: Record<string, unknown> = {}) {
  const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m', ...body }, t.token);
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
  return r.body as { accountId: number; sessionId: string; totalBars: number; historyBars: number; instrument: any };
}

describe('Replay/start', () => {
  it('answers the session account, bar counts and the instrument block', async () => {
    const t = await setup();
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, t.token);
    expect(r.body).toEqual({
      accountId: expect.any(Number),
      sessionId: expect.stringMatching(/^rs_/),
      totalBars: 10,
      historyBars: 0,
      instrument: { name: 'NQH5', contractId: 'CON.F.US.ENQ.H25', tickSize: 0.25, tickValue: 5 },
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });

  it('defaults the timeframe to 1s and accepts a contractId instead of a symbol', async () => {
    const t = await setup();
    const r = await t.post('Replay/start', { contractId: 'CON.F.US.ENQ.Z24', startDate: DAY }, t.token);
    expect(r.body.totalBars).toBe(600);
  });

  it('the session account is listed by Account/search while it lives, with 50,000', async () => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Account/search', { onlyActiveAccounts: true }, t.token);
    expect(r.body.accounts).toEqual([{ id: s.accountId, name: `REPLAY-NQ-1m-${s.accountId}`, balance: 50000, canTrade: true, isVisible: true, simulated: true }]);
  });

  it('counts chart history bars before the start', async () => {
    const t = await setup();
    t.s.chunks.put('NQ', dayOf('2025-02-28T20:00:00Z'), 'import', rampBars(secondsOf('2025-02-28T20:00:00Z'), 180, BASE));
    const s = await start(t);
    expect(s.historyBars).toBe(3);
  });

  it.each([
    ['neither symbol nor contract', { instrumentSymbol: undefined }, 1, 'instrumentSymbol or contractId required'],
    ['unknown symbol', { instrumentSymbol: 'CL' }, 1, 'Instrument not found'],
    ['unknown contract', { instrumentSymbol: undefined, contractId: 'CON.F.US.XYZ.H25' }, 1, 'Instrument not found'],
    ['missing startDate', { startDate: undefined }, 2, 'startDate required'],
    ['custom timeframe', { timeframe: '7m' }, 2, 'Custom timeframes are currently disabled'],
    ['grammar-invalid timeframe', { timeframe: '1x' }, 2, 'Invalid timeframe'],
    ['5s on 10 s GC', { instrumentSymbol: 'GC', timeframe: '5s' }, 2, 'Invalid timeframe for this instrument'],
    ['unparseable startDate', { startDate: '03/03/2025' }, 7, 'startDate must be a date in YYYY-MM-DD format'],
    ['endDate before startDate', { endDate: '2025-03-02' }, 7, 'endDate must be after startDate'],
    ['endDate equal to startDate', { endDate: DAY }, 7, 'endDate must be after startDate'],
    ['endDate over two years later', { endDate: '2027-03-05' }, 7, 'endDate must be at most 2 years after startDate'],
    ['endDate two years and a day later', { endDate: '2027-03-04' }, 7, 'endDate must be at most 2 years after startDate'],
    ['no data on the date', { startDate: '2025-03-04', endDate: '2025-03-05' }, 7, 'No data available for NQ between 2025-03-04 and 2025-03-05'],
  ])('%s → %i %s', async (_n, over, code, message) => {
    const t = await setup();
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m', ...over }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: code, errorMessage: message });
    expect((await t.post('Account/search', {}, t.token)).body.accounts).toEqual([]);
  });

  it('endDate exactly two years later is accepted', async () => {
    const t = await setup();
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, endDate: '2027-03-03', timeframe: '1m' }, t.token);
    expect(r.body.success).toBe(true);
  });

  it('the eleventh live session is refused with errorCode 4 until one ends', async () => {
    const t = await setup();
    const ids = [];
    for (let i = 0; i < limits.replaySessionsPerAccountMax; i++) ids.push((await start(t)).accountId);
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 4, errorMessage: 'Maximum of 10 live replay sessions reached; end one with Replay/end' });
    await t.post('Replay/end', { accountId: ids[0] }, t.token);
    expect((await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY }, t.token)).body.success).toBe(true);
  });

  it('20 starts per minute per account; the 21st is HTTP 429 with Retry-After', async () => {
    const t = await setup();
    for (let i = 0; i < limits.replayStartsPerWindowMax; i++) {
      // Invalid starts count too: the limit is on calls.
      await t.post('Replay/start', { instrumentSymbol: 'NQ' }, t.token);
    }
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY }, t.token);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('Replay/step', () => {
  it('returns the played bars, counts and an untouched account', async () => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Replay/step', { accountId: s.accountId, steps: 2 }, t.token);
    expect(r.body).toEqual({
      barsProcessed: 2,
      currentIndex: 2,
      totalBars: 10,
      account: { balance: 50000, equity: 50000, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0 },
      propFirm: null,
      filledOrders: [],
      violations: [],
      bars: [
        { t: '2025-03-03T14:30:00Z', o: 20000, h: 20015.25, l: 19999.75, c: 20015, v: 60 },
        { t: '2025-03-03T14:31:00Z', o: 20015, h: 20030.25, l: 20014.75, c: 20030, v: 60 },
      ],
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });

  it('steps default to 1; at the end of data barsProcessed is 0', async () => {
    const t = await setup();
    const s = await start(t);
    expect((await t.post('Replay/step', { accountId: s.accountId }, t.token)).body.barsProcessed).toBe(1);
    const rest = await t.post('Replay/step', { accountId: s.accountId, steps: 100 }, t.token);
    expect([rest.body.barsProcessed, rest.body.currentIndex]).toEqual([9, 10]);
    const end = await t.post('Replay/step', { accountId: s.accountId, steps: 5 }, t.token);
    expect(end.body).toMatchObject({ success: true, barsProcessed: 0, currentIndex: 10, totalBars: 10, bars: [] });
  });

  it('a pending order fills inside a step, decided on 1 s bars, and is listed in filledOrders', async () => {
    const t = await setup();
    const s = await start(t);
    // Buy stop at 20,010.00 (80,040 ticks): the 1 s bar at 14:30:38 has high 80,040.
    const placed = await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 4, side: 0, size: 1, stopPrice: 20010 }, t.token);
    const r = await t.post('Replay/step', { accountId: s.accountId, steps: 1 }, t.token);
    expect(r.body.filledOrders).toEqual([{ orderId: placed.body.orderId, fillPrice: 20010, fillQty: 1 }]);
    expect(r.body.account).toEqual({
      balance: 49998.6, // fee 1.40
      equity: 50098.6, // marked at the 1 m close 20,015.00: 20 ticks × $5 = $100 open profit
      unrealizedPnl: 100,
      marginUsed: 1000,
      positions: 1,
      pendingOrders: 0,
    });
    const trades = await t.post('Trade/search', { accountId: s.accountId }, t.token);
    expect(trades.body.trades[0].creationTimestamp).toBe('2025-03-03T14:30:38Z');
  });

  it.each([[0], [101], [1.5], ['2']])('steps %p → errorCode 2', async (steps) => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Replay/step', { accountId: s.accountId, steps }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 2, errorMessage: 'steps must be a whole number from 1 to 100' });
  });

  it.each([
    ['missing', undefined],
    ['unknown', 999],
    ['a string', '1'],
  ])('%s accountId → 1 Account not found', async (_n, accountId) => {
    const t = await setup();
    await start(t);
    const r = await t.post('Replay/step', { accountId }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Account not found' });
  });

  it("another user's session → Account not found", async () => {
    const t = await setup();
    const s = await start(t);
    const other = await t.s.users.create({ email: 'other@example.com' });
    if (!other.ok) throw new Error('setup');
    const login = await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey });
    const r = await t.post('Replay/step', { accountId: s.accountId }, login.body.token);
    expect(r.body.errorMessage).toBe('Account not found');
  });

  it('two simultaneous steps: the second answers 503 Retry-After 1 and nothing is processed twice', async () => {
    const t = await setup();
    const s = await start(t);
    const [a, b] = await Promise.all([
      t.post('Replay/step', { accountId: s.accountId, steps: 1 }, t.token),
      t.post('Replay/step', { accountId: s.accountId, steps: 1 }, t.token),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 503]);
    const busy = a.status === 503 ? a : b;
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body.success).toBe(false);
    const next = await t.post('Replay/step', { accountId: s.accountId, steps: 1 }, t.token);
    expect(next.body.currentIndex).toBe(2);
    expect(next.body.bars[0].t).toBe('2025-03-03T14:31:00Z');
  });

  it('5 m bars walk the 1 s bars inside them', async () => {
    const t = await setup();
    const s = await start(t, { timeframe: '5m' });
    expect(s.totalBars).toBe(2);
    const r = await t.post('Replay/step', { accountId: s.accountId }, t.token);
    expect(r.body.bars).toEqual([{ t: '2025-03-03T14:30:00Z', o: 20000, h: 20075.25, l: 19999.75, c: 20075, v: 300 }]);
  });
});

describe('Replay/jumpTo', () => {
  it('processes every bar before the target bar without returning them; fills on the way', async () => {
    const t = await setup();
    const s = await start(t);
    const placed = await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 1, side: 1, size: 1, limitPrice: 20100 }, t.token);
    const r = await t.post('Replay/jumpTo', { accountId: s.accountId, targetTime: '2025-03-03T14:37:30Z' }, t.token);
    expect(r.body).toMatchObject({ success: true, barsProcessed: 7, currentIndex: 7, totalBars: 10, propFirm: null, violations: [] });
    expect(r.body.filledOrders).toEqual([{ orderId: placed.body.orderId, fillPrice: 20100, fillQty: 1 }]);
    expect(r.body.bars).toBeUndefined();
    const next = await t.post('Replay/step', { accountId: s.accountId }, t.token);
    expect(next.body.bars[0].t).toBe('2025-03-03T14:37:00Z');
  });

  it('a target not later than the current position is a no-op', async () => {
    const t = await setup();
    const s = await start(t);
    await t.post('Replay/step', { accountId: s.accountId, steps: 3 }, t.token);
    const r = await t.post('Replay/jumpTo', { accountId: s.accountId, targetTime: '2025-03-03T14:31:00Z' }, t.token);
    expect(r.body).toMatchObject({ success: true, barsProcessed: 0, currentIndex: 3 });
  });

  it('accepts a target with a UTC offset', async () => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Replay/jumpTo', { accountId: s.accountId, targetTime: '2025-03-03T09:35:00-05:00' }, t.token);
    expect(r.body.currentIndex).toBe(5);
  });

  it.each([[undefined], ['soon'], [12345], ['2025-02-30T00:00:00Z']])('targetTime %p → 2 Invalid targetTime, nothing moves', async (targetTime) => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Replay/jumpTo', { accountId: s.accountId, targetTime }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 2, errorMessage: 'Invalid targetTime' });
    expect((await t.post('Replay/step', { accountId: s.accountId }, t.token)).body.currentIndex).toBe(1);
  });
});

describe('Replay/play and pause', () => {
  it('plays at two bars per second per speed unit, each bar processed as a step; pause stops it', async () => {
    const t = await setup();
    const s = await start(t, { timeframe: '1s' });
    const r = await t.post('Replay/play', { accountId: s.accountId, speed: 50 }, t.token);
    expect(r.body).toEqual({ playing: true, speed: 50, success: true, errorCode: 0, errorMessage: null });
    t.clock.advance(1000); // the playback clock reads the injected clock: 100 bars are due
    const live = await t.s.replay.live(1, s.accountId);
    if (!live.ok) throw new Error('no session');
    await waitFor(() => live.value.currentIndex >= 100);
    await Bun.sleep(30); // more timer turns: nothing more is due
    const paused = await t.post('Replay/pause', { accountId: s.accountId }, t.token);
    expect(paused.body).toMatchObject({ success: true, paused: true, propFirm: null });
    const next = await t.post('Replay/step', { accountId: s.accountId }, t.token);
    expect(next.body.currentIndex).toBe(101);
  });

  it('a step while playing answers 503', async () => {
    const t = await setup();
    const s = await start(t);
    await t.post('Replay/play', { accountId: s.accountId }, t.token);
    const r = await t.post('Replay/step', { accountId: s.accountId }, t.token);
    expect(r.status).toBe(503);
    await t.post('Replay/pause', { accountId: s.accountId }, t.token);
  });

  it.each([[0], [51], ['fast']])('speed %p → 2', async (speed) => {
    const t = await setup();
    const s = await start(t);
    const r = await t.post('Replay/play', { accountId: s.accountId, speed }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 2, errorMessage: 'speed must be a number from 1 to 50' });
  });

  it('speed defaults to 1', async () => {
    const t = await setup();
    const s = await start(t);
    expect((await t.post('Replay/play', { accountId: s.accountId }, t.token)).body.speed).toBe(1);
    await t.post('Replay/pause', { accountId: s.accountId }, t.token);
  });
});

describe('Replay/end', () => {
  it('closes positions at the current price, cancels orders, persists and releases', async () => {
    const t = await setup();
    const s = await start(t);
    await t.post('Replay/step', { accountId: s.accountId }, t.token); // last price 20,015.00
    await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 2, side: 0, size: 2 }, t.token);
    await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 1, side: 0, size: 1, limitPrice: 19000 }, t.token);
    await t.post('Replay/step', { accountId: s.accountId }, t.token); // close 20,030.00: +60 ticks × 2
    const r = await t.post('Replay/end', { accountId: s.accountId }, t.token);
    // 2 × (20,030 − 20,015) × $20 = $600, fees 4 × 1.40 = 5.60
    expect(r.body).toEqual({
      ended: true,
      account: { balance: 50594.4, equity: 50594.4, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0, filledOrders: [{ orderId: 3, fillPrice: 20030, fillQty: 2 }] },
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
    const accounts = await t.post('Account/search', {}, t.token);
    expect(accounts.body.accounts[0]).toMatchObject({ id: s.accountId, balance: 50594.4, canTrade: false });
    const trades = await t.post('Trade/search', { accountId: s.accountId }, t.token);
    expect(trades.body.trades.map((x: any) => [x.price, x.side, x.size, x.fees])).toEqual([
      [20030, 1, 2, 2.8],
      [20015, 0, 2, 2.8],
    ]);
    const orders = await t.post('Order/search', { accountId: s.accountId }, t.token);
    expect(orders.body.orders.map((o: any) => o.status)).toEqual([2, 3, 2]);
    expect((await t.post('Replay/step', { accountId: s.accountId }, t.token)).body).toEqual({
      success: false,
      errorCode: 1,
      errorMessage: 'No active replay session for this account',
    });
    expect((await t.post('Replay/end', { accountId: s.accountId }, t.token)).body.errorCode).toBe(1);
  });

  it('a session idle for an hour is finalized and released', async () => {
    const t = await setup();
    const s = await start(t);
    t.clock.advance(limits.replayIdleMs - 1000);
    expect(await t.s.replay.sweepIdle()).toBe(0);
    t.clock.advance(1000);
    expect(await t.s.replay.sweepIdle()).toBe(1);
    expect((await t.post('Replay/step', { accountId: s.accountId }, t.token)).body.errorMessage).toBe('No active replay session for this account');
  });
});

describe('nothing lost', () => {
  it('a restart resumes every session at the same index with the same orders, positions, trades and balance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-restart-'));
    const dbPath = join(dir, 'replaydesk.db');
    const a = await setup({});
    // A twin on a file database: the same commands, then a restart in the middle.
    const b = await makeApp({ dbPath, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    b.s.chunks.put('NQ', dayOf(OPEN), 'import', rampBars(secondsOf(OPEN), 600, BASE));
    const bToken = await b.login();
    const script = async (t: TestApp, token: string, accountId: number, contractId: string) => {
      await t.post('Replay/step', { accountId, steps: 2 }, token);
      await t.post('Order/place', { accountId, contractId, type: 2, side: 0, size: 2, stopLossBracket: { ticks: 400 }, takeProfitBracket: { ticks: 120 } }, token);
      await t.post('Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 19990 }, token);
      await t.post('Replay/step', { accountId, steps: 1 }, token);
    };
    const sa = await start(a);
    const sbr = await b.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, bToken);
    await script(a, a.token, sa.accountId, sa.instrument.contractId);
    await script(b, bToken, sbr.body.accountId, sa.instrument.contractId);

    const views = async (t: TestApp, token: string, accountId: number) => ({
      open: (await t.post('Order/searchOpen', { accountId }, token)).body,
      orders: (await t.post('Order/search', { accountId }, token)).body,
      positions: (await t.post('Position/searchOpen', { accountId }, token)).body,
      trades: (await t.post('Trade/search', { accountId }, token)).body,
      accounts: (await t.post('Account/search', {}, token)).body.accounts.map((x: any) => ({ ...x, id: 0, name: '' })),
    });
    const before = await views(b, bToken, sbr.body.accountId);

    // Restart: stop the services, close the database, open everything again on the same file.
    await b.s.shutdown();
    b.s.db.close();
    const b2 = await makeApp({ dbPath, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    const token2 = await b2.login();
    const after = await views(b2, token2, sbr.body.accountId);
    expect(after).toEqual(before);

    // Both continue identically: same bars, same fills, same balances.
    const stepA = await a.post('Replay/step', { accountId: sa.accountId, steps: 5 }, a.token);
    const stepB = await b2.post('Replay/step', { accountId: sbr.body.accountId, steps: 5 }, token2);
    expect(stepB.body).toEqual(stepA.body);
    expect(stepB.body.currentIndex).toBe(8);
    b2.s.db.close();
  });
});
