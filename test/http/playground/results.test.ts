// Complete results of long playground runs: every trade stored and served in pages and as CSV
// (GET executions/:id/trades, GET executions/:id/trades.csv), the equity curve over the whole span,
// and the performance statistics beside the run's results. A real run of more trades than the
// execution carries, on the real server process: test/e2e/playground-results.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { findInstrument } from '../../../src/domain/instrument.ts';
import { equityBucketsFor } from '../../../src/service/playground/equity-curve.ts';
import { decodeTrades, encodeTrades, PACKED_TRADE_BYTES, PlaygroundRunStore, type StoredTrade } from '../../../src/store/playground-runs.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../../support/playground.ts';

const NQ = findInstrument('NQ')!;
const CSV_HEADER = 'side,size,entryTime,entryPrice,exitTime,exitPrice,pnl,fees';

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp();
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p.close();
}, SANDBOX_HOOK_MS);

/** Trade i of a synthetic run: NQ, alternately long 1 and short 2, one a minute from 2025-01-02. */
function trade(i: number): StoredTrade {
  const t0 = Date.UTC(2025, 0, 2) / 1000 + i * 60;
  const long = i % 2 === 0;
  return {
    direction: long ? 1 : -1, entryTimeS: t0, exitTimeS: t0 + 30, entryQty: long ? 1 : 2,
    entryValueTicks: (long ? 1 : 2) * (80_000 + i), exitValueTicks: (long ? 1 : 2) * (80_004 + i), pnlCents: long ? 2000 - 280 : -4000 - 560,
    feesCents: long ? 280 : 560,
  };
}

/**
 * Stores an ended run of the test user with `n` trades (as RunService.ended does: packed only),
 * `perChunk` to a stored chunk; `keptInRecord`: the first trades also in the record, as written before.
 */
async function storedRun(id: string, n: number, perChunk: number = limits.playgroundTradesPerChunk, keptInRecord?: StoredTrade[]): Promise<void> {
  const store = new PlaygroundRunStore(p.s.sql);
  const userId = (await p.s.users.list()).find((u) => u.email === 'quant@example.com')!.id;
  await store.insert({
    id, userId, strategyId: null, templateId: null, instrument: 'NQ', timeframe: '1m', startDate: '2025-01-02', endDate: '2025-12-31',
    params: {}, contextTimeframes: [], speed: null, barsTotal: 1000, startedMs: 1,
  });
  const all = Array.from({ length: n }, (_, i) => trade(i));
  await store.end(id, {
    status: 'completed', error: null, totalPnlCents: 0, totalTrades: n, winRate: 50, barsDone: 1000, speed: null, completedMs: 2,
    trades: all,
    tradesPerChunk: perChunk,
    result: { balanceCents: 5_000_000, stats: null, ...(keptInRecord ? { trades: keptInRecord } : {}), tradesTotal: n, equity: [], logs: [] },
  });
}

describe('packed trades', () => {
  it('round-trip through the columns, 44 bytes each, and decode any range', () => {
    const all = Array.from({ length: 7 }, (_, i) => trade(i));
    all[3] = { ...all[3], pnlCents: -123_456_789_012, entryTimeS: 4_000_000_000 };
    const bytes = encodeTrades(all);
    expect(bytes.byteLength).toBe(7 * PACKED_TRADE_BYTES);
    expect(decodeTrades(bytes, 7, 0, 7)).toEqual(all);
    expect(decodeTrades(bytes, 7, 2, 4)).toEqual(all.slice(2, 4));
    expect(decodeTrades(encodeTrades([]), 0, 0, 0)).toEqual([]);
  });

  it('a chunk holding another contract\'s trade (several instruments) adds a one-byte contract column', () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ ...trade(i), leg: i % 3 }));
    const bytes = encodeTrades(all);
    expect(bytes.byteLength).toBe(5 * (PACKED_TRADE_BYTES + 1));
    expect(decodeTrades(bytes, 5, 0, 5)).toEqual(all);
    expect(decodeTrades(bytes, 5, 1, 3)).toEqual(all.slice(1, 3));
    // Every trade on the main contract: the 44-byte layout, as a run of one instrument stores it.
    expect(encodeTrades(all.map((t) => ({ ...t, leg: 0 }))).byteLength).toBe(5 * PACKED_TRADE_BYTES);
  });
});

describe('GET executions/:id/trades', () => {
  it('pages over every trade of a 14,041-trade run, past the 5,000 of the execution', async () => {
    await storedRun('exe_year_long_run', 14_041);
    const x = (await p.call('GET', 'executions/exe_year_long_run')).body.execution;
    expect(x.trades.length).toBe(5000);
    expect(x.tradesTotal).toBe(14_041);

    const first = await p.call('GET', 'executions/exe_year_long_run/trades');
    expect(first.body).toMatchObject({ success: true, errorCode: 0, offset: 0, limit: 1000, total: 14_041, tradesTotal: 14_041 });
    expect(first.body.trades.length).toBe(1000);
    expect(first.body.trades.slice(0, 2)).toEqual(x.trades.slice(0, 2));
    expect(first.body.trades[1]).toEqual({
      side: 'short', size: 2, entryTime: '2025-01-02T00:01:00Z', entryPrice: 20_000.25, exitTime: '2025-01-02T00:01:30Z', exitPrice: 20_001.25,
      pnl: -45.6, fees: 5.6,
    });

    const last = await p.call('GET', 'executions/exe_year_long_run/trades?offset=14000&limit=1000');
    expect(last.body).toMatchObject({ offset: 14_000, limit: 1000, total: 14_041, tradesTotal: 14_041 });
    expect(last.body.trades.length).toBe(41);
    // Trade 14,040 (long, the last): entered 14,040 minutes after 2025-01-02T00:00Z.
    expect(last.body.trades[40]).toMatchObject({ side: 'long', size: 1, entryTime: '2025-01-11T18:00:00Z', entryPrice: 23_510, pnl: 17.2 });

    const beyond = await p.call('GET', 'executions/exe_year_long_run/trades?offset=20000&limit=5');
    expect(beyond.body).toMatchObject({ offset: 20_000, limit: 5, total: 14_041, trades: [] });

    // A page across two chunks is the end of one and the start of the next.
    const [a, b, across] = await Promise.all(['offset=4000', 'offset=5000', 'offset=4500'].map((q) => p.call('GET', `executions/exe_year_long_run/trades?${q}`)));
    expect(across.body.trades).toEqual([...a.body.trades.slice(500), ...b.body.trades.slice(0, 500)]);

    // 44 bytes a trade, in chunks of 1,000 (the last holds the rest), and gone with its run.
    const packed = () =>
      p.s.db.query("SELECT COUNT(*) AS chunks, SUM(trade_count) AS n, SUM(length(trades)) AS bytes FROM playground_run_trades WHERE run_id = 'exe_year_long_run'").get();
    expect(packed()).toEqual({ chunks: 15, n: 14_041, bytes: 14_041 * 44 });
    p.s.db.query("DELETE FROM playground_runs WHERE id = 'exe_year_long_run'").run();
    expect(packed()).toEqual({ chunks: 0, n: null, bytes: null });
  }, SANDBOX_TEST_MS);

  it('pages the same whatever the chunk size (a run stored before chunks is one chunk)', async () => {
    await storedRun('exe_one_chunk', 2_345, 1_000_000);
    await storedRun('exe_small_chunks', 2_345, 7);
    for (const q of ['offset=0', 'offset=999&limit=3', 'offset=2300&limit=1000', 'offset=2345', 'offset=9999']) {
      const one = await p.call('GET', `executions/exe_one_chunk/trades?${q}`);
      const small = await p.call('GET', `executions/exe_small_chunks/trades?${q}`);
      expect({ q, body: small.body }).toEqual({ q, body: one.body });
    }
    const tail = await p.call('GET', 'executions/exe_small_chunks/trades?offset=2340');
    expect(tail.body).toMatchObject({ offset: 2340, total: 2345, tradesTotal: 2345 });
    expect(tail.body.trades.map((t: { entryTime: string }) => t.entryTime)).toEqual(
      [2340, 2341, 2342, 2343, 2344].map((i) => new Date((Date.UTC(2025, 0, 2) / 1000 + i * 60) * 1000).toISOString().replace('.000Z', 'Z')),
    );
  }, SANDBOX_TEST_MS);

  it('answers its error rows', async () => {
    await storedRun('exe_small_run', 3);
    const rows: [string, number, string][] = [
      ['executions/exe_nope/trades', 1, 'Execution not found'],
      ['executions/exe_small_run/trades?offset=-1', 2, 'offset must be a whole number of at least 0'],
      ['executions/exe_small_run/trades?offset=1.5', 2, 'offset must be a whole number of at least 0'],
      ['executions/exe_small_run/trades?limit=0', 3, `limit must be a whole number from 1 to ${limits.playgroundTradesPageMax}`],
      ['executions/exe_small_run/trades?limit=1001', 3, `limit must be a whole number from 1 to ${limits.playgroundTradesPageMax}`],
      ['executions/exe_small_run/trades?limit=ten', 3, `limit must be a whole number from 1 to ${limits.playgroundTradesPageMax}`],
      ['executions/exe_nope/trades.csv', 1, 'Execution not found'],
    ];
    for (const [path, code, message] of rows) {
      const r = await p.call('GET', path);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 200, body: { success: false, errorCode: code, errorMessage: message } });
    }
  }, SANDBOX_TEST_MS);

  it('a run recorded with its first trades beside the packed ones (before they were read back from them) shows those', async () => {
    await storedRun('exe_kept_in_record', 10, limits.playgroundTradesPerChunk, [trade(0), trade(1), trade(2)]);
    const x = (await p.call('GET', 'executions/exe_kept_in_record')).body.execution;
    expect(x.trades.map((t: { entryPrice: number }) => t.entryPrice)).toEqual([20_000, 20_000.25, 20_000.5]);
    expect(x.tradesTotal).toBe(10);
    expect((await p.call('GET', 'executions/exe_kept_in_record/trades')).body).toMatchObject({ total: 10, tradesTotal: 10 });
  }, SANDBOX_TEST_MS);

  it('a run recorded before trades were packed pages over the trades its record kept', async () => {
    const store = new PlaygroundRunStore(p.s.sql);
    const userId = (await p.s.users.list()).find((u) => u.email === 'quant@example.com')!.id;
    await store.insert({
      id: 'exe_old_record', userId, strategyId: null, templateId: null, instrument: 'NQ', timeframe: '1m', startDate: '2025-01-02',
      endDate: '2025-01-02', params: {}, contextTimeframes: [], speed: null, barsTotal: 10, startedMs: 1,
    });
    const kept = [trade(0), trade(1)];
    await store.end('exe_old_record', {
      status: 'completed', error: null, totalPnlCents: 0, totalTrades: 7000, winRate: 0, barsDone: 10, speed: null, completedMs: 2,
      result: { balanceCents: 5_000_000, stats: null, trades: kept, tradesTotal: 7000, equity: [], logs: [] },
    });
    const r = await p.call('GET', 'executions/exe_old_record/trades?offset=1');
    expect(r.body).toMatchObject({ offset: 1, total: 2, tradesTotal: 7000, trades: [{ side: 'short', size: 2 }] });
  }, SANDBOX_TEST_MS);
});

describe('GET executions/:id/trades.csv', () => {
  it('exports every trade with a header row', async () => {
    await storedRun('exe_csv_run', 6001);
    const res = await p.app.handle(new Request('http://localhost/api/playground/executions/exe_csv_run/trades.csv', { headers: { cookie: `rd_session=${p.cookie}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="exe_csv_run-trades.csv"');
    const lines = (await res.text()).split('\n');
    expect(lines.length).toBe(6001 + 2); // header, rows, the final newline
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines[1]).toBe('long,1,2025-01-02T00:00:00Z,20000,2025-01-02T00:00:30Z,20001,17.2,2.8');
    expect(lines[2]).toBe('short,2,2025-01-02T00:01:00Z,20000.25,2025-01-02T00:01:30Z,20001.25,-45.6,5.6');
    expect(lines[6001]).toBe('long,1,2025-01-06T04:00:00Z,21500,2025-01-06T04:00:30Z,21501,17.2,2.8');
    expect(lines[6002]).toBe('');
  }, SANDBOX_TEST_MS);

  it(`streams the export a page of at most ${limits.playgroundTradesPageMax} trades at a time (200,000 trades built as one string held the event loop a quarter of a second)`, async () => {
    await storedRun('exe_csv_paged', 6001);
    const res = await p.app.handle(new Request('http://localhost/api/playground/executions/exe_csv_paged/trades.csv', { headers: { cookie: `rd_session=${p.cookie}` } }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const pieces: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pieces.push(decoder.decode(value));
    }
    const rows = pieces.map((x) => x.split('\n').length - 1);
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const n of rows) expect(n).toBeLessThanOrEqual(limits.playgroundTradesPageMax + 1);
    expect(rows.reduce((a, b) => a + b, 0)).toBe(6001 + 1);
    expect(pieces.join('').split('\n')[0]).toBe(CSV_HEADER);
  }, SANDBOX_TEST_MS);
});

describe('a year-long run', () => {
  it('has an equity curve from the first bar\'s close to the last, every month in it, and the performance figures', async () => {
    // One NQ year of 1-hour bars: long 1 from bar 0's close to bar 10's, then flat.
    const code = [
      'def on_bar(ctx, bar):',
      '    if bar.index == 0:',
      '        print("first", bar.end)',
      '        ctx.buy(1)',
      '    if bar.index == 10:',
      '        ctx.sell(1)',
      'def on_end(ctx):',
      '    print("last", ctx.bars[-1].end)',
    ].join('\n');
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2024-01-02', endDate: '2024-12-31', timeframe: '1h', code }));
    expect(x.status).toBe('completed');
    const bars = x.progress.barsTotal;
    const buckets = equityBucketsFor(limits.playgroundEquityPointsMax);
    expect(bars).toBeGreaterThan(4 * buckets); // buckets merged at least twice
    const firstS = Number(/^first (\d+)$/.exec(x.logs[0])![1]);
    const lastS = Number(/^last (\d+)$/.exec(x.logs[1])![1]);
    const curve = x.equityCurve.map((pt: { time: string; equity: number }) => ({ s: Date.parse(pt.time) / 1000, equity: pt.equity }));
    // Past bar 10 the equity is flat: a bucket's low, high and last are one bar, the first of the
    // bucket on a tie, then its last; so about two points a bucket, between half the buckets and all.
    expect(curve.length).toBeGreaterThan(buckets / 2);
    expect(curve.length).toBeLessThanOrEqual(limits.playgroundEquityPointsMax);
    // Bar 0's close, after its buy paid one side's fee.
    expect(curve[0]).toEqual({ s: firstS, equity: 50_000 - NQ.feePerSideCents / 100 });
    expect(curve.at(-1)).toEqual({ s: lastS, equity: x.balance });
    for (let i = 1; i < curve.length; i++) expect(curve[i].s).toBeGreaterThan(curve[i - 1].s);
    const months = new Set(x.equityCurve.map((pt: { time: string }) => pt.time.slice(0, 7)));
    expect([...months].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `2024-${String(i + 1).padStart(2, '0')}`));

    const [t] = x.trades;
    expect(x.tradesTotal).toBe(1);
    // The record keeps its trades packed only; the execution read back from it shows them the same.
    const row = p.s.db.query('SELECT result_json AS r FROM playground_runs WHERE id = $id').get({ id: x.id }) as { r: string };
    expect(Object.keys(JSON.parse(row.r))).not.toContain('trades');
    const again = (await p.call('GET', `executions/${x.id}`)).body.execution;
    expect(again.trades).toEqual(x.trades);
    expect((await p.call('GET', `executions/${x.id}/trades`)).body.trades).toEqual(x.trades);
    const r = x.results;
    expect(r.returnPct).toBe(Math.round((x.totalPnl / 50_000) * 100 * 100) / 100);
    // Held through bars 1 to 10 of the run.
    expect(r.exposurePct).toBe(Math.round((10 / bars) * 100 * 100) / 100);
    expect(r.averageTradeDurationS).toBe((Date.parse(t.exitTime) - Date.parse(t.entryTime)) / 1000);
    expect(r.monthlyReturns.map((m: { month: string }) => m.month)).toEqual([...months].sort());
    // Only January traded: every later month returns 0, and January's return is the run's.
    expect(r.monthlyReturns.slice(1).every((m: { returnPct: number }) => m.returnPct === 0)).toBe(true);
    expect(r.monthlyReturns[0].returnPct).toBe(r.returnPct);
    expect(r.cagrPct).toBeCloseTo(r.returnPct, 0);
    expect(r.longestDrawdownS === 0 ? x.totalPnl >= 0 : r.longestDrawdownS > 0).toBe(true);
    // A losing run never gets back to the start's peak: its drawdown lasts from the run's start (bar 0's open) to the end.
    if (x.totalPnl < 0) expect(r.longestDrawdownS).toBe(lastS - (firstS - 3600));
  }, SANDBOX_TEST_MS);
});

describe('log lines', () => {
  it('carry the open time of the bar the strategy was on when it printed them', async () => {
    const code = [
      'def init(ctx):',
      '    print("in init")',
      'def on_bar(ctx, bar):',
      '    if bar.index == 3:',
      '        print("bar three", bar.time)',
      '        print("two lines", end="\\n")',
      '    if bar.index == 5:',
      '        ctx.log("logged")',
      '        ctx.buy(1)',
      'def on_fill(ctx, fill):',
      '    print("fill seen at", ctx.bars[-1].time)',
      'def on_end(ctx):',
      '    print("the end", ctx.bars[-1].time)',
    ].join('\n');
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', code }));
    expect(x.status).toBe('completed');
    const iso = (s: string) => new Date(Number(s) * 1000).toISOString().replace('.000Z', 'Z');
    const barTime = (line: string) => iso(line.split(' ').at(-1)!);
    expect(x.logs.length).toBe(6);
    expect(x.logTimes.length).toBe(6);
    expect([x.logs[0], x.logTimes[0]]).toEqual(['in init', null]);
    expect(x.logs[1]).toMatch(/^bar three \d+$/);
    expect(x.logTimes[1]).toBe(barTime(x.logs[1]));
    expect([x.logs[2], x.logTimes[2]]).toEqual(['two lines', x.logTimes[1]]);
    // ctx.log's own prefix is the same bar time, as text.
    expect(x.logs[3]).toBe(`[${x.logTimes[3].replace('T', ' ').replace('Z', '')}] logged`);
    expect(Date.parse(x.logTimes[3]) - Date.parse(x.logTimes[1])).toBe(2 * 60_000);
    // The buy fills at bar 5's close; on_fill sees it on bar 6.
    expect(x.logTimes[4]).toBe(barTime(x.logs[4]));
    expect(Date.parse(x.logTimes[4]) - Date.parse(x.logTimes[3])).toBe(60_000);
    expect(x.logTimes[5]).toBe(barTime(x.logs[5]));
  }, SANDBOX_TEST_MS);
});
