// Complete results of a long playground run, black box over HTTP on the real server process
// (`bun src/main.ts`, as `npm start` runs it): a run of more trades than the execution carries pages
// out every one, its CSV export equals the pages line for line, and the equity curve spans the run
// with its lowest and highest closes on it.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limits } from '../../src/config.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { RUNNER_TEST_CACHE, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

/** Five NQ trade dates of 1 m bars (6,900 bars). */
const SPAN = { instrument: 'NQ', startDate: '2025-03-03', endDate: '2025-03-07', timeframe: '1m' };
const CSV_HEADER = 'side,size,entryTime,entryPrice,exitTime,exitPrice,pnl,fees';

let server: ServerProcess;
let dataDir: string;
let cookie = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rd-pg-results-'));
  server = await spawnServer({
    timeoutMs: 120_000,
    env: { DATA_DIR: dataDir, DATA_START_DATE: '2025-02-24', DATA_END_DATE: '2025-03-07', RUNNER_CACHE_DIR: RUNNER_TEST_CACHE },
  });
  const creds = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
  const login = await fetch(`${server.base}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: creds.userName, password: creds.password }),
  });
  cookie = /rd_session=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
}, SANDBOX_HOOK_MS);

afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}, SANDBOX_HOOK_MS);

async function get(path: string): Promise<Response> {
  return fetch(`${server.base}/api/playground/${path}`, { headers: { cookie } });
}

async function getJson(path: string): Promise<any> {
  return (await get(path)).json();
}

/** Starts a run of `code` over SPAN and waits for the event stream's `done`; the execution as GET reads it. */
async function runToEnd(code: string): Promise<any> {
  const r = (await (await fetch(`${server.base}/api/playground/run`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ ...SPAN, code }),
  })).json()) as any;
  expect(r.success).toBe(true);
  const stream = await (await get(`executions/${r.executionId}/events`)).text(); // ends after `done`
  expect(stream).toContain('event: done');
  const x = (await getJson(`executions/${r.executionId}`)).execution;
  expect(x.status).toBe('completed');
  return x;
}

describe('a run of more trades than the execution carries', () => {
  it('pages out every trade, and trades.csv equals the pages line for line', async () => {
    // Long 1, then a reversal on every bar: a trade closes on every bar after the first.
    const x = await runToEnd([
      'def on_bar(ctx, bar):',
      '    q = ctx.position.qty',
      '    if q == 0:',
      '        ctx.buy(1)',
      '    elif q > 0:',
      '        ctx.sell(2)',
      '    else:',
      '        ctx.buy(2)',
    ].join('\n'));
    const bars = x.progress.barsTotal;
    expect(x.progress.barsDone).toBe(bars);
    // Every bar after the first closes one trade (its order fills at its close), and the run's end the last.
    expect(x.tradesTotal).toBe(bars);
    expect(x.tradesTotal).toBeGreaterThan(limits.playgroundTradesKeptMax);
    expect(x.trades.length).toBe(limits.playgroundTradesKeptMax);

    const pages: any[] = [];
    for (let offset = 0; offset < x.tradesTotal; offset += limits.playgroundTradesPageMax) {
      const page = await getJson(`executions/${x.id}/trades?offset=${offset}`);
      expect(page).toMatchObject({ success: true, errorCode: 0, offset, limit: limits.playgroundTradesPageMax, total: x.tradesTotal, tradesTotal: x.tradesTotal });
      pages.push(...page.trades);
    }
    expect(pages.length).toBe(x.tradesTotal);
    expect(pages.slice(0, limits.playgroundTradesKeptMax)).toEqual(x.trades);
    // Round trips back to back: each trade's exit is the next one's entry, sides alternating.
    for (let i = 1; i < pages.length; i++) {
      expect([pages[i].entryTime, pages[i].side]).toEqual([pages[i - 1].exitTime, pages[i - 1].side === 'long' ? 'short' : 'long']);
    }
    expect(pages.reduce((s, t) => s + Math.round(t.pnl * 100), 0)).toBe(Math.round(x.totalPnl * 100));

    const csv = await get(`executions/${x.id}/trades.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${x.id}-trades.csv"`);
    const lines = (await csv.text()).split('\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.at(-1)).toBe('');
    const fromJson = pages.map((t) => CSV_HEADER.split(',').map((k) => String(t[k])).join(','));
    expect(lines.slice(1, -1)).toEqual(fromJson);
  }, SANDBOX_TEST_MS);
});

describe('the equity curve of a long run', () => {
  it('runs from the first bar\'s close to the run\'s end at a bounded number of points, its lowest and highest closes on it', async () => {
    // Long 1 from bar 0's close to the end: equity at bar k's close is bar 0's plus the move since,
    // so the strategy's own lowest and highest closes name the curve's extremes.
    const x = await runToEnd([
      'def init(ctx):',
      '    ctx.lo = ctx.hi = None',
      'def on_bar(ctx, bar):',
      '    t = ctx.to_ticks(bar.close)',
      '    if bar.index == 0:',
      '        ctx.first = t',
      '        ctx.buy(1)',
      '    if ctx.lo is None or t < ctx.lo[0]:',
      '        ctx.lo = (t, bar.end)',
      '    if ctx.hi is None or t > ctx.hi[0]:',
      '        ctx.hi = (t, bar.end)',
      'def on_end(ctx):',
      '    print(ctx.first, ctx.lo[0], ctx.lo[1], ctx.hi[0], ctx.hi[1], ctx.bars[-1].end, ctx.end, ctx.tick_value)',
    ].join('\n'));
    const [first, lo, loEnd, hi, hiEnd, lastEnd, spanEnd, tickUsd] = x.logs[0].split(' ').map(Number);
    const curve = x.equityCurve as { time: string; equity: number }[];
    const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
    expect(x.progress.barsTotal).toBeGreaterThan(limits.playgroundEquityPointsMax); // buckets merged
    expect(curve.length).toBeLessThanOrEqual(limits.playgroundEquityPointsMax);
    expect(curve.length).toBeGreaterThan(limits.playgroundEquityPointsMax / 3);
    for (let i = 1; i < curve.length; i++) expect(Date.parse(curve[i].time)).toBeGreaterThan(Date.parse(curve[i - 1].time));
    // The whole span: bar 0's close first, the flat balance at the last bar's end (the span's end) last.
    expect(curve[0].time).toBe(iso(Date.parse(x.trades[0].entryTime) / 1000));
    expect(lastEnd).toBe(spanEnd);
    expect(curve.at(-1)).toEqual({ time: iso(spanEnd), equity: x.balance });
    // The lowest and the highest close are points, at the equity they imply (cents exact).
    const cents = (usd: number) => Math.round(usd * 100);
    const at = (ticks: number) => cents(curve[0].equity) + (ticks - first) * cents(tickUsd);
    const point = (s: number) => curve.find((p) => p.time === iso(s));
    expect(cents(point(loEnd)!.equity)).toBe(at(lo));
    expect(cents(point(hiEnd)!.equity)).toBe(at(hi));
    expect(Math.min(...curve.slice(0, -1).map((p) => cents(p.equity)))).toBe(at(lo));
    expect(Math.max(...curve.slice(0, -1).map((p) => cents(p.equity)))).toBe(at(hi));
  }, SANDBOX_TEST_MS);
});
