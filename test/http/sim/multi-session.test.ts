// A session over several instruments (issue 34's extension): NQ and ES on one account and one
// clock. Known data: NQ 1 s bars from 14:30:00 for 10 minutes, ES from 14:32:00 for 5 minutes,
// each a ramp (bar i: open = base + i ticks, high + 2, low − 1, close + 1).
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeApp, type TestApp } from '../../support/app.ts';
import { dayOf, rampBars, secondsOf } from '../../support/bars.ts';

const DAY = '2025-03-03';
const NQ_ID = 'CON.F.US.ENQ.H25';
const ES_ID = 'CON.F.US.EP.H25';

async function setup(dbPath?: string): Promise<TestApp & { token: string }> {
  const t = await makeApp({ config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' }, dbPath });
  t.s.chunks.put('NQ', dayOf('2025-03-03T14:30:00Z'), 'import', rampBars(secondsOf('2025-03-03T14:30:00Z'), 600, 80_000));
  t.s.chunks.put('ES', dayOf('2025-03-03T14:32:00Z'), 'import', rampBars(secondsOf('2025-03-03T14:32:00Z'), 300, 20_000));
  return Object.assign(t, { token: await t.login() });
}

async function ok(t: TestApp & { token: string }, path: string, body: Record<string, unknown>) {
  const r = await t.post(path, body, t.token);
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

async function startPair(t: TestApp & { token: string }) {
  return ok(t, 'Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: DAY, timeframe: '1m' });
}

describe('Replay/start with instrumentSymbols', () => {
  it('names every instrument; the clock counts the buckets in which any of them has a bar', async () => {
    const t = await setup();
    const r = await startPair(t);
    expect(r).toEqual({
      accountId: expect.any(Number), sessionId: expect.stringMatching(/^rs_/), totalBars: 10, historyBars: 0,
      instrument: { name: 'NQH5', contractId: NQ_ID, tickSize: 0.25, tickValue: 5 },
      instruments: [
        { name: 'NQH5', contractId: NQ_ID, tickSize: 0.25, tickValue: 5 },
        { name: 'ESH5', contractId: ES_ID, tickSize: 0.25, tickValue: 12.5 },
      ],
      success: true, errorCode: 0, errorMessage: null,
    });
  });

  it('refuses a bad list with a clear error and starts nothing', async () => {
    const t = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ instrumentSymbols: [] }, 'instrumentSymbols must list 1 to 4 instrument symbols'],
      [{ instrumentSymbols: ['NQ', 'ES', 'MNQ', 'MES', 'GC'] }, 'instrumentSymbols must list 1 to 4 instrument symbols'],
      [{ instrumentSymbols: 'NQ' }, 'instrumentSymbols must list 1 to 4 instrument symbols'],
      [{ instrumentSymbols: ['NQ', 'ZZZ'] }, 'Instrument not found: ZZZ'],
      [{ instrumentSymbols: ['NQ', 'ES', 'nq'] }, 'instrumentSymbols lists NQ twice'],
      [{ instrumentSymbols: ['NQ', 'ES'], instrumentSymbol: 'ES' }, 'instrumentSymbol must be the first of instrumentSymbols'],
    ];
    for (const [body, message] of cases) {
      const r = await t.post('Replay/start', { startDate: DAY, timeframe: '1m', ...body }, t.token);
      expect([r.body.success, r.body.errorCode, r.body.errorMessage]).toEqual([false, 1, message]);
    }
    const live = await t.post('Account/search', { onlyActiveAccounts: true }, t.token);
    expect(live.body.accounts).toEqual([]);
  });
});

describe('one clock, one account, two contracts', () => {
  it('steps both, trades both, and answers the account across them', async () => {
    const t = await setup();
    const { accountId } = await startPair(t);
    const step = await ok(t, 'Replay/step', { accountId, steps: 3 });
    expect([step.barsProcessed, step.currentIndex, step.totalBars]).toEqual([3, 3, 10]);
    expect(step.bars.map((b: { t: string }) => b.t)).toEqual(['2025-03-03T14:30:00Z', '2025-03-03T14:31:00Z', '2025-03-03T14:32:00Z']);
    expect(Object.keys(step.barsByContract)).toEqual([NQ_ID, ES_ID]);
    expect(step.barsByContract[NQ_ID]).toEqual(step.bars);
    // ES's one minute so far: seconds 0–59 of its ramp.
    expect(step.barsByContract[ES_ID]).toEqual([{ t: '2025-03-03T14:32:00Z', o: 5000, h: 5015.25, l: 4999.75, c: 5015, v: 60 }]);

    // Market orders fill at each contract's own last price: ES 5015 (tick 20,060), NQ 20045 (80,180).
    await ok(t, 'Order/place', { accountId, contractId: ES_ID, type: 2, side: 0, size: 1 });
    await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 2, side: 1, size: 2 });
    const jump = await ok(t, 'Replay/jumpTo', { accountId, targetTime: '2025-03-03T14:35:00Z' });
    expect([jump.barsProcessed, jump.currentIndex]).toEqual([2, 5]);
    // At 14:35: ES 20,180 ticks (+120 × $12.50 = $1,500), NQ 80,300 (short 2 × −120 × $5 = −$1,200); fees 3 × $1.40.
    expect(jump.account).toEqual({ balance: 49995.8, equity: 50295.8, unrealizedPnl: 300, marginUsed: 2500, positions: 2, pendingOrders: 0 });

    const positions = await ok(t, 'Position/searchOpen', { accountId });
    expect(positions.positions.map((p: Record<string, unknown>) => [p.contractId, p.type, p.size, p.averagePrice])).toEqual([
      [NQ_ID, 2, 2, 20045],
      [ES_ID, 1, 1, 5015],
    ]);
    const orders = await ok(t, 'Order/search', { accountId });
    expect(orders.orders.map((o: Record<string, unknown>) => [o.id, o.contractId, o.side, o.size])).toEqual([[2, NQ_ID, 1, 2], [1, ES_ID, 0, 1]]);
    const trades = await ok(t, 'Trade/search', { accountId });
    expect(trades.trades.map((f: Record<string, unknown>) => [f.contractId, f.price, f.size])).toEqual([[NQ_ID, 20045, 2], [ES_ID, 5015, 1]]);

    // Closing one contract leaves the other.
    await ok(t, 'Position/closeContract', { accountId, contractId: ES_ID });
    const left = await ok(t, 'Position/searchOpen', { accountId });
    expect(left.positions.map((p: Record<string, unknown>) => p.contractId)).toEqual([NQ_ID]);

    const end = await ok(t, 'Replay/end', { accountId });
    // ES +$1,500 − NQ $1,200, fees 5 contract-sides × $1.40... and the NQ close: 6 × $1.40 in all.
    expect(end.account).toMatchObject({ balance: 50000 + 1500 - 1200 - 8.4, positions: 0, filledOrders: [{ orderId: 4, fillPrice: 20075, fillQty: 2 }] });
  });

  it('refuses an order on a contract the session does not trade', async () => {
    const t = await setup();
    const { accountId } = await startPair(t);
    const r = await t.post('Order/place', { accountId, contractId: 'CON.F.US.GCE.J25', type: 2, side: 0, size: 1 }, t.token);
    expect([r.body.success, r.body.errorCode, r.body.errorMessage]).toEqual([false, 2, 'This session trades NQ, ES; GC cannot be traded in it']);
    const orders = await ok(t, 'Order/search', { accountId });
    expect(orders.orders).toEqual([]);
  });

  it('a restarted server resumes every contract of the session where it stood', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'multi-')), 'db.sqlite');
    const t = await setup(dbPath);
    const { accountId } = await startPair(t);
    await ok(t, 'Replay/step', { accountId, steps: 3 });
    await ok(t, 'Order/place', { accountId, contractId: ES_ID, type: 2, side: 0, size: 1 });
    await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 1, side: 0, size: 1, limitPrice: 20000 });
    await t.s.shutdown();
    const u = await setup(dbPath);
    const open = await ok(u, 'Order/searchOpen', { accountId });
    expect(open.orders.map((o: Record<string, unknown>) => [o.id, o.contractId])).toEqual([[2, NQ_ID]]);
    const step = await ok(u, 'Replay/step', { accountId, steps: 1 });
    expect(Object.keys(step.barsByContract)).toEqual([NQ_ID, ES_ID]);
    expect(step.account).toMatchObject({ positions: 1, pendingOrders: 1, marginUsed: 500 });
    // Ids continue the account's one sequence.
    const placed = await ok(u, 'Order/place', { accountId, contractId: ES_ID, type: 2, side: 1, size: 1 });
    expect(placed.orderId).toBe(3);
  });
});

describe('Replay/addInstrument and removeInstrument', () => {
  it('adds an instrument at the session\'s time and counts the clock again; removes it when it holds nothing', async () => {
    const t = await setup();
    const { accountId } = await ok(t, 'Replay/start', { instrumentSymbols: ['ES'], startDate: DAY, timeframe: '1m' });
    const first = await ok(t, 'Replay/step', { accountId, steps: 1 });
    expect([first.currentIndex, first.totalBars, first.bars[0].t]).toEqual([1, 5, '2025-03-03T14:32:00Z']);
    const added = await ok(t, 'Replay/addInstrument', { accountId, instrumentSymbol: 'NQ' });
    expect(added.instruments.map((i: { contractId: string }) => i.contractId)).toEqual([ES_ID, NQ_ID]);
    // NQ's bars from 14:33 to 14:39 join ES's (to 14:36): 7 buckets ahead, 1 played.
    const step = await ok(t, 'Replay/step', { accountId, steps: 1 });
    expect([step.currentIndex, step.totalBars]).toEqual([2, 8]);
    expect(step.barsByContract[NQ_ID].map((b: { t: string }) => b.t)).toEqual(['2025-03-03T14:33:00Z']);

    const refusals: [string, Record<string, unknown>, number, string][] = [
      ['Replay/addInstrument', { instrumentSymbol: 'NQ' }, 1, 'NQ is already in this session'],
      ['Replay/addInstrument', { instrumentSymbol: 'ZZZ' }, 1, 'Instrument not found: ZZZ'],
      ['Replay/addInstrument', {}, 1, 'instrumentSymbol required'],
      ['Replay/removeInstrument', { instrumentSymbol: 'ES' }, 7, "The session's first instrument cannot be removed"],
      ['Replay/removeInstrument', { instrumentSymbol: 'GC' }, 1, 'GC is not in this session'],
    ];
    for (const [path, body, code, message] of refusals) {
      const r = await t.post(path, { accountId, ...body }, t.token);
      expect([r.body.success, r.body.errorCode, r.body.errorMessage]).toEqual([false, code, message]);
    }
    await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 1, side: 0, size: 1, limitPrice: 19000 });
    const busy = await t.post('Replay/removeInstrument', { accountId, instrumentSymbol: 'NQ' }, t.token);
    expect([busy.body.errorCode, busy.body.errorMessage]).toEqual([7, 'NQ has an open position or working orders; close them before removing it']);
    const open = await ok(t, 'Order/searchOpen', { accountId });
    await ok(t, 'Order/cancel', { accountId, orderId: open.orders[0].id });
    const removed = await ok(t, 'Replay/removeInstrument', { accountId, instrumentSymbol: 'NQ' });
    expect(removed.instruments.map((i: { contractId: string }) => i.contractId)).toEqual([ES_ID]);
    const after = await ok(t, 'Replay/step', { accountId, steps: 1 });
    expect([after.currentIndex, after.totalBars, Object.keys(after.barsByContract)]).toEqual([3, 5, [ES_ID]]);
  });

  it('refuses a session started the spec\'s way', async () => {
    const t = await setup();
    const { accountId } = await ok(t, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
    const r = await t.post('Replay/addInstrument', { accountId, instrumentSymbol: 'ES' }, t.token);
    expect([r.body.errorCode, r.body.errorMessage]).toEqual([7, 'This session trades one instrument; start it with instrumentSymbols to add or remove instruments']);
  });
});

describe('a session started the spec\'s way', () => {
  it('answers exactly the spec\'s fields', async () => {
    const t = await setup();
    const r = await ok(t, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
    expect(Object.keys(r).sort()).toEqual(['accountId', 'errorCode', 'errorMessage', 'historyBars', 'instrument', 'sessionId', 'success', 'totalBars']);
    const step = await ok(t, 'Replay/step', { accountId: r.accountId, steps: 1 });
    expect(Object.keys(step)).not.toContain('barsByContract');
  });
});

describe('trading hours over several instruments', () => {
  it('an instrument whose market is closed at the session\'s time refuses orders at market, with a clear error', async () => {
    const t = await makeApp({ config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    const token = await t.login();
    // CME's daily halt on 2025-03-04 is 22:00–23:00 UTC (16:00–17:00 CT); spot FX trades through it.
    t.s.chunks.put('NQ', dayOf('2025-03-04T21:59:00Z'), 'import', rampBars(secondsOf('2025-03-04T21:59:00Z'), 60, 80_000));
    t.s.chunks.put('EURUSD', dayOf('2025-03-04T22:30:00Z'), 'import', rampBars(secondsOf('2025-03-04T22:30:00Z'), 60, 105_000));
    const start = await t.post('Replay/start', { instrumentSymbols: ['NQ', 'EURUSD'], startDate: '2025-03-04', timeframe: '1m' }, token);
    const { accountId, instruments } = start.body;
    const [nq, fx] = instruments.map((i: { contractId: string }) => i.contractId);
    const step = await t.post('Replay/step', { accountId, steps: 2 }, token);
    expect(step.body.bars.map((b: { t: string }) => b.t)).toEqual(['2025-03-04T21:59:00Z']);
    expect(step.body.barsByContract[fx].map((b: { t: string }) => b.t)).toEqual(['2025-03-04T22:30:00Z']);
    const refused = await t.post('Order/place', { accountId, contractId: nq, type: 2, side: 0, size: 1 }, token);
    expect([refused.body.success, refused.body.errorMessage]).toEqual([false, 'NQ is closed at 2025-03-04T22:31:00Z; an order at market waits for its next open']);
    const resting = await t.post('Order/place', { accountId, contractId: nq, type: 1, side: 0, size: 1, limitPrice: 19_000 }, token);
    expect(resting.body.success).toBe(true);
    const fxOrder = await t.post('Order/place', { accountId, contractId: fx, type: 2, side: 0, size: 1 }, token);
    expect(fxOrder.body.success).toBe(true);
  });
});
