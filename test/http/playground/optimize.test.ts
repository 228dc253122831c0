// Playground optimisations, black box over a real listening server (127.0.0.1, a free port) and the
// real sandboxed runner: a grid with progress streamed, every combination sorted and paged, the best,
// the heatmap, a combination opened as a run and rerun as a single run with identical results; the
// caller's optimisations listed and paged; every error row, the limits, stop, a restart, another
// user, and a walk-forward.
// Lean on purpose: one trading day (or four) of 1 m bars, two to four combinations per search.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { limits } from '../../../src/config.ts';
import { makeWebUser, webLogin } from '../../support/app.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../../support/playground.ts';

// Thursday 2025-02-27's CME session, 1,380 one-minute bars.
const DAY = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m' };
const GRID = { ...DAY, templateId: 'sma_cross', params: { fast: { values: [5, 10] }, slow: { min: 20, max: 40, step: 20 } } };
/** Finishes at once for x = 1; never finishes its first bar otherwise (holds its runner until stopped). */
const SPIN_UNLESS_ONE = 'def on_bar(ctx, bar):\n    while ctx.params["x"] != 1:\n        pass\n';
const END_WAIT_MS = 600_000;

interface Client {
  base: string;
  cookie: string;
}

function serve(p: PlaygroundApp): Server<undefined> {
  return Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => p.app.handle(req) });
}

async function call(c: Client, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${c.base}/api/playground/${path}`, {
    method,
    headers: { cookie: `rd_session=${c.cookie}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** The optimisation's event stream read to its end: [event, data] pairs (comments dropped). */
async function events(c: Client, id: string): Promise<{ event: string; data: any }[]> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), END_WAIT_MS);
  try {
    const res = await fetch(`${c.base}/api/playground/optimizations/${id}/events`, { headers: { cookie: `rd_session=${c.cookie}` }, signal: ctl.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await res.text();
    return text.trim().split('\n\n').filter((b) => !b.startsWith(':')).map((b) => {
      const [ev, data] = b.split('\n');
      return { event: ev.replace('event: ', ''), data: JSON.parse(data.replace('data: ', '')) };
    });
  } finally {
    clearTimeout(timer);
  }
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + END_WAIT_MS;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(v).slice(0, 400)}`);
    await Bun.sleep(100);
  }
}

let p: PlaygroundApp;
let server: Server<undefined>;
let me: Client;
let other: Client;
beforeAll(async () => {
  p = await makePlaygroundApp({ runnerMaxConcurrent: 2, runnerOptimizeMaxConcurrent: 2 });
  server = serve(p);
  me = { base: `http://127.0.0.1:${server.port}`, cookie: p.cookie };
  const u = await makeWebUser(p, { email: 'other@example.com' });
  other = { base: me.base, cookie: await webLogin(p, u.email, u.password) };
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  server?.stop(true);
  await p?.close();
}, SANDBOX_HOOK_MS);

describe('a grid over sma_cross', () => {
  let opt: any;

  it('runs every combination, streams progress, names the best and keeps every combination', async () => {
    const r = await call(me, 'POST', 'optimize', { ...GRID, objective: 'net_pnl' });
    expect(r).toEqual({ optimizationId: expect.stringMatching(/^opt_[A-Za-z0-9_-]{16}$/), status: 'running', success: true, errorCode: 0, errorMessage: null });
    const evs = await events(me, r.optimizationId);
    const done = evs.at(-1)!;
    expect(done.event).toBe('done');
    for (const e of evs.slice(0, -1)) expect(e.event).toBe('progress');
    const dones = evs.slice(0, -1).map((e) => e.data.progress.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    opt = done.data;
    expect(opt).toMatchObject({
      id: r.optimizationId, status: 'completed', error: null, progress: { done: 4, total: 4 }, templateId: 'sma_cross', strategyId: null,
      instrument: 'NQ', timeframe: '1m', startDate: '2025-02-27', endDate: '2025-02-27', method: 'grid', count: null, seed: null, objective: 'net_pnl',
      params: [{ name: 'fast', values: [5, 10] }, { name: 'slow', values: [20, 40] }], constraints: { minTrades: null, maxDrawdown: null }, walkForward: null,
    });
    const page = await call(me, 'GET', `optimizations/${opt.id}/combinations`);
    expect(page).toMatchObject({ objective: 'net_pnl', offset: 0, limit: 100, total: 4, success: true });
    const cs = page.combinations;
    expect(cs.map((c: any) => c.index).sort()).toEqual([0, 1, 2, 3]);
    // Index order is the grid's, last param fastest; each combination is a completed run with its statistics.
    const byIndex = [...cs].sort((a: any, b: any) => a.index - b.index);
    expect(byIndex.map((c: any) => c.params)).toEqual([
      { fast: 5, slow: 20, size: 1 }, { fast: 5, slow: 40, size: 1 }, { fast: 10, slow: 20, size: 1 }, { fast: 10, slow: 40, size: 1 },
    ]);
    for (const c of cs) {
      expect(c).toMatchObject({ status: 'completed', window: null, qualifies: true, objective: c.statistics.totalPnl });
      expect(c.statistics.totalTrades).toBeGreaterThan(0);
      expect(c.statistics).toHaveProperty('sharpeRatio');
    }
    // Sorted by the objective, highest first; the best is the first (the lower index on a tie).
    const pnl = cs.map((c: any) => c.objective);
    expect(pnl).toEqual([...pnl].sort((a: number, b: number) => b - a));
    expect(opt.best).toEqual(cs[0]);
  }, SANDBOX_TEST_MS);

  it('pages and sorts by any statistic; refuses a bad query', async () => {
    const asc = await call(me, 'GET', `optimizations/${opt.id}/combinations?sort=totalTrades&order=asc&offset=1&limit=2`);
    const all = (await call(me, 'GET', `optimizations/${opt.id}/combinations?sort=totalTrades&order=asc`)).combinations;
    expect(asc.combinations).toEqual(all.slice(1, 3));
    expect(asc).toMatchObject({ offset: 1, limit: 2, total: 4 });
    const trades = all.map((c: any) => c.statistics.totalTrades);
    expect(trades).toEqual([...trades].sort((a: number, b: number) => a - b));
    const rows: [string, number, string][] = [
      ['sort=nope', 2, 'sort must be one of objective, index, netPnl, returnPct, sharpeRatio, profitFactor, winRate, totalTrades, maxDrawdown'],
      ['order=up', 3, 'order must be asc or desc'],
      ['offset=-1', 4, 'offset must be a whole number of at least 0'],
      ['limit=0', 5, `limit must be a whole number from 1 to ${limits.playgroundOptimizePageMax}`],
      ['limit=501', 5, `limit must be a whole number from 1 to ${limits.playgroundOptimizePageMax}`],
    ];
    for (const [q, code, message] of rows) {
      expect([q, await call(me, 'GET', `optimizations/${opt.id}/combinations?${q}`)]).toEqual([q, { success: false, errorCode: code, errorMessage: message }]);
    }
  });

  it('draws a heatmap over two params: each cell the combination there', async () => {
    const h = await call(me, 'GET', `optimizations/${opt.id}/heatmap?x=slow&y=fast`);
    const cs = (await call(me, 'GET', `optimizations/${opt.id}/combinations?sort=index`)).combinations;
    expect(h).toMatchObject({ objective: 'net_pnl', x: { name: 'slow', values: [20, 40] }, y: { name: 'fast', values: [5, 10] }, success: true });
    expect(h.cells).toEqual([
      [{ objective: cs[0].objective, runId: cs[0].runId }, { objective: cs[1].objective, runId: cs[1].runId }],
      [{ objective: cs[2].objective, runId: cs[2].runId }, { objective: cs[3].objective, runId: cs[3].runId }],
    ]);
    expect(await call(me, 'GET', `optimizations/${opt.id}/heatmap?x=slow&y=slow`)).toEqual({ success: false, errorCode: 2, errorMessage: 'y must name a param of the optimisation, other than x' });
    expect(await call(me, 'GET', `optimizations/${opt.id}/heatmap?x=size2&y=fast`)).toEqual({ success: false, errorCode: 2, errorMessage: 'x must name a param of the optimisation' });
  });

  it('opens the best as a full run, and rerun as a single run it gives identical trades and statistics', async () => {
    const best = (await call(me, 'GET', `executions/${opt.best.runId}`)).execution;
    expect(best).toMatchObject({ id: opt.best.runId, status: 'completed', templateId: 'sma_cross', params: opt.best.params, progress: { barsDone: 1380, barsTotal: 1380 } });
    expect(best.results.totalPnl).toBe(opt.best.statistics.totalPnl);
    const rerunId = (await call(me, 'POST', 'run', { ...DAY, templateId: 'sma_cross', params: opt.best.params })).executionId;
    const rerun = await p.waitEnd(rerunId);
    expect(rerun.status).toBe('completed');
    expect(rerun.results).toEqual(best.results);
    const trades = async (id: string) => (await call(me, 'GET', `executions/${id}/trades?limit=1000`)).trades;
    expect(await trades(rerunId)).toEqual(await trades(opt.best.runId));
    expect(rerun.equityCurve).toEqual(best.equityCurve);
    const { monthlyReturns: _, buyAndHold: _benchmark, ...stats } = rerun.results;
    expect(opt.best.statistics).toEqual(stats);
  }, SANDBOX_TEST_MS);

  it('is the user\'s alone: another user reads, stops and opens none of it', async () => {
    const nf = { success: false, errorCode: 1, errorMessage: 'Optimisation not found' };
    expect(await call(other, 'GET', `optimizations/${opt.id}`)).toEqual(nf);
    expect(await call(other, 'GET', `optimizations/${opt.id}/combinations`)).toEqual(nf);
    expect(await call(other, 'GET', `optimizations/${opt.id}/heatmap?x=fast&y=slow`)).toEqual(nf);
    expect(await call(other, 'POST', `optimizations/${opt.id}/stop`, {})).toEqual(nf);
    expect(await call(other, 'GET', `optimizations/${opt.id}/events`)).toEqual(nf);
    expect(await call(other, 'GET', `executions/${opt.best.runId}`)).toEqual({ success: false, errorCode: 1, errorMessage: 'Execution not found' });
    // Finished: nothing to stop.
    expect(await call(me, 'POST', `optimizations/${opt.id}/stop`, {})).toEqual({ success: false, errorCode: 2, errorMessage: 'The optimisation is not running' });
  });
});

describe('POST optimize refusals', () => {
  it('answers every error row before queueing anything', async () => {
    const tooMany = { fast: { min: 2, max: 200, step: 1 }, slow: { min: 3, max: 500, step: 1 } };
    const optimizations = async () => Number((await p.s.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM playground_optimizations'))?.n);
    const before = await optimizations();
    const rows: [Record<string, unknown>, number, string][] = [
      [{ ...DAY }, 1, 'Provide either templateId or code'],
      [{ ...DAY, templateId: 'nope' }, 2, 'Template not found'],
      [{ ...GRID, instrument: 'CL' }, 5, 'Instrument not found'],
      [{ ...GRID, startDate: '2025-2-27' }, 6, 'startDate must be a date in YYYY-MM-DD format'],
      [{ ...GRID, timeframe: '7m' }, 7, 'Custom timeframes are currently disabled'],
      [{ ...GRID, params: { foo: 1 } }, 8, 'Unknown param foo'],
      [{ ...GRID, params: { fast: { min: 1, max: 10, step: 1 } } }, 8, 'Param fast must be between 2 and 200'],
      [{ ...GRID, params: { fast: { min: 2, max: 10, step: 0 } } }, 8, 'Range of fast: step must be greater than 0'],
      [{ ...GRID, params: { fast: { min: 10, max: 2, step: 1 } } }, 8, 'Range of fast: min must not exceed max'],
      [{ ...GRID, params: { fast: { min: 2, max: 10, step: 1.5 } } }, 8, 'Param fast must be a whole number'],
      [{ ...GRID, params: { fast: { values: [] } } }, 8, `Values of fast must be a list of 1 to ${limits.playgroundOptimizeCombinationsMax} values`],
      [{ ...GRID, startDate: '2025-03-01' }, 10, 'No data available for NQ from 2025-03-01 to 2025-03-01'],
      [{ ...GRID, method: 'annealing' }, 12, 'method must be grid or random'],
      [{ ...GRID, method: 'random' }, 12, `count must be a whole number from 1 to ${limits.playgroundOptimizeCombinationsMax} with method random`],
      [{ ...GRID, objective: 'luck' }, 13, 'objective must be one of net_pnl, return_over_drawdown, sharpe, profit_factor, win_rate'],
      [{ ...GRID, constraints: { minTrades: -1 } }, 14, 'minTrades must be a whole number of at least 0'],
      [{ ...GRID, walkForward: { inSampleDays: 3, outOfSampleDays: 1 } }, 15, 'The span holds 1 trade dates with data: too few for one in-sample and one out-of-sample part'],
      [{ ...GRID, params: tooMany }, 16, `The optimisation has ${199 * 498} combinations; at most ${limits.playgroundOptimizeCombinationsMax}`],
    ];
    for (const [body, code, message] of rows) {
      expect([body, await call(me, 'POST', 'optimize', body)]).toEqual([body, { success: false, errorCode: code, errorMessage: message }]);
    }
    expect(await optimizations()).toBe(before);
  });

  it('counts combinations per user per UTC day', async () => {
    const userId = (await p.s.users.list()).find((u) => u.email === 'other@example.com')!.id;
    const day = Math.floor(p.clock.nowMs() / 86_400_000);
    await p.s.sql.run('INSERT INTO playground_optimize_usage (user_id, day, combinations) VALUES ($u, $d, $n)',
      { u: userId, d: day, n: limits.playgroundOptimizeCombinationsPerDayMax - 3 });
    expect(await call(other, 'POST', 'optimize', GRID)).toEqual({
      success: false, errorCode: 17, errorMessage: `Daily limit of ${limits.playgroundOptimizeCombinationsPerDayMax} combinations reached: 3 left today (UTC)`,
    });
  });
});

describe('stop', () => {
  it('cancels the queued combinations and stops the running ones, keeping the finished', async () => {
    const r = await call(me, 'POST', 'optimize', { ...DAY, code: SPIN_UNLESS_ONE, params: { x: { values: [1, 2, 3, 4] } } });
    expect(r.success).toBe(true);
    const second = await call(me, 'POST', 'optimize', GRID);
    expect(second).toEqual({ success: false, errorCode: 11, errorMessage: 'An optimisation is already running; stop it first', optimizationId: r.optimizationId });
    // A single run goes on beside an optimisation.
    await until('x = 1 completed', () => call(me, 'GET', `optimizations/${r.optimizationId}`), (v) => v.optimization.progress.done >= 1);
    expect(await call(me, 'POST', `optimizations/${r.optimizationId}/stop`, {})).toEqual({ optimizationId: r.optimizationId, success: true, errorCode: 0, errorMessage: null });
    const cs = await until('every combination ended', () => call(me, 'GET', `optimizations/${r.optimizationId}/combinations?sort=index`),
      (v) => v.combinations.every((c: any) => c.status !== 'running'));
    expect(cs.combinations.map((c: any) => c.status)).toEqual(['completed', 'stopped', 'stopped', 'stopped']);
    const o = (await call(me, 'GET', `optimizations/${r.optimizationId}`)).optimization;
    expect(o).toMatchObject({ status: 'stopped', error: 'Stopped by the user', progress: { done: 4, total: 4 } });
    expect(o.best.params).toEqual({ x: 1 });
  }, SANDBOX_TEST_MS);
});

describe('walk-forward', () => {
  it('optimises each in-sample part, runs its best on the next out-of-sample part and stitches them', async () => {
    // Tue 2025-02-25 to Fri 02-28: four trade dates; two in-sample, one out-of-sample → two windows.
    const body = { ...GRID, startDate: '2025-02-25', endDate: '2025-02-28', params: { fast: { values: [5, 10] }, slow: 30 }, walkForward: { inSampleDays: 2, outOfSampleDays: 1 } };
    const r = await call(me, 'POST', 'optimize', body);
    expect(r.success).toBe(true);
    const evs = await events(me, r.optimizationId);
    const o = evs.at(-1)!.data;
    expect(o).toMatchObject({ status: 'completed', progress: { done: 6, total: 6 }, best: null });
    const wf = o.walkForward;
    expect(wf.windows.map((w: any) => [w.inSample, w.outOfSample])).toEqual([
      [{ startDate: '2025-02-25', endDate: '2025-02-26' }, { startDate: '2025-02-27', endDate: '2025-02-27' }],
      [{ startDate: '2025-02-26', endDate: '2025-02-27' }, { startDate: '2025-02-28', endDate: '2025-02-28' }],
    ]);
    const cs = (await call(me, 'GET', `optimizations/${r.optimizationId}/combinations?sort=index`)).combinations;
    let oosPnl = 0;
    for (const [k, w] of wf.windows.entries()) {
      const mine = cs.filter((c: any) => c.window === k);
      expect(mine.length).toBe(2);
      const top = Math.max(...mine.map((c: any) => c.objective));
      expect(w.best).toEqual(mine.find((c: any) => c.objective === top));
      expect(w.outOfSampleRun).toMatchObject({ index: -1, window: k, status: 'completed', params: w.best.params });
      const run = (await call(me, 'GET', `executions/${w.outOfSampleRun.runId}`)).execution;
      expect(run).toMatchObject({ startDate: w.outOfSample.startDate, endDate: w.outOfSample.endDate, params: w.best.params });
      oosPnl += Math.round(run.results.totalPnl * 100);
    }
    const cents = (usd: number) => Math.round(usd * 100);
    expect(wf.inSample).toEqual({ totalPnl: (cents(wf.windows[0].best.objective) + cents(wf.windows[1].best.objective)) / 100, totalTrades: wf.windows[0].best.statistics.totalTrades + wf.windows[1].best.statistics.totalTrades });
    expect(wf.outOfSample.results.totalPnl).toBe(oosPnl / 100);
    expect(wf.outOfSample.results.finalBalance).toBe(50_000 + oosPnl / 100);
    expect(wf.outOfSample.equityCurve.at(-1).equity).toBe(50_000 + oosPnl / 100);
    // Ended, its stitched results are kept with it: read back from its state, not from every trade again.
    const state = async () => JSON.parse((await p.s.sql.get<{ s: string }>('SELECT state_json AS s FROM playground_optimizations WHERE id = $id', { id: r.optimizationId }))!.s);
    const kept = await state();
    expect(kept.stitched.stats.totalPnlCents).toBe(oosPnl);
    await p.s.sql.run('UPDATE playground_optimizations SET state_json = $s WHERE id = $id', { id: r.optimizationId, s: JSON.stringify({ ...kept, stitched: { ...kept.stitched, returnPct: 12.5 } }) });
    expect((await call(me, 'GET', `optimizations/${r.optimizationId}`)).optimization.walkForward.outOfSample.results.returnPct).toBe(12.5);
    await p.s.sql.run('UPDATE playground_optimizations SET state_json = $s WHERE id = $id', { id: r.optimizationId, s: JSON.stringify(kept) });
    expect((await call(me, 'GET', `optimizations/${r.optimizationId}`)).optimization.walkForward.outOfSample).toEqual(wf.outOfSample);
  }, SANDBOX_TEST_MS);
});

describe('GET optimizations', () => {
  it('lists only the caller\'s optimisations, newest first, in pages, each as GET optimizations/:id summarises it', async () => {
    const u = await makeWebUser(p, { email: 'lister@example.com' });
    const third: Client = { base: me.base, cookie: await webLogin(p, u.email, u.password) };
    expect(await call(third, 'GET', 'optimizations')).toEqual({ optimizations: [], offset: 0, limit: limits.playgroundOptimizationsKeptPerUserMax, total: 0, success: true, errorCode: 0, errorMessage: null });
    // Two one-combination optimisations, one after the other (one runs at a time).
    const ids: string[] = [];
    for (const extra of [{}, { method: 'random', count: 1, objective: 'win_rate' }]) {
      const r = await call(third, 'POST', 'optimize', { ...DAY, code: SPIN_UNLESS_ONE, params: { x: { values: [1] } }, ...extra });
      expect(r.success).toBe(true);
      expect((await events(third, r.optimizationId)).at(-1)!.event).toBe('done');
      ids.push(r.optimizationId);
    }
    const list = await call(third, 'GET', 'optimizations');
    expect(list).toMatchObject({ offset: 0, limit: 20, total: 2, success: true });
    expect(list.optimizations.map((o: any) => o.id)).toEqual([ids[1], ids[0]]);
    for (const item of list.optimizations) {
      const o = (await call(third, 'GET', `optimizations/${item.id}`)).optimization;
      const { params: _p, seed: _s, constraints: _c, walkForward: _w, ...summary } = o;
      expect(item).toEqual({ ...summary, walkForward: null });
    }
    expect(list.optimizations[0]).toMatchObject({ status: 'completed', method: 'random', count: 1, objective: 'win_rate', templateId: null, progress: { done: 1, total: 1 } });
    expect(list.optimizations[1]).toMatchObject({ method: 'grid', count: null, objective: 'net_pnl', best: { params: { x: 1 }, status: 'completed' } });

    const second = await call(third, 'GET', 'optimizations?offset=1&limit=1');
    expect(second).toEqual({ optimizations: [list.optimizations[1]], offset: 1, limit: 1, total: 2, success: true, errorCode: 0, errorMessage: null });
    expect((await call(third, 'GET', 'optimizations?offset=2')).optimizations).toEqual([]);

    // Another user's list holds none of these, and these none of theirs.
    const mine = await call(me, 'GET', `optimizations?limit=${limits.playgroundOptimizationsPageMax}`);
    expect(mine.total).toBe(mine.optimizations.length);
    expect(mine.total).toBeGreaterThan(0);
    expect(mine.optimizations.filter((o: any) => ids.includes(o.id))).toEqual([]);
    for (const o of mine.optimizations) expect(await call(third, 'GET', `optimizations/${o.id}`)).toEqual({ success: false, errorCode: 1, errorMessage: 'Optimisation not found' });
  }, SANDBOX_TEST_MS);

  it('refuses a bad page', async () => {
    const max = limits.playgroundOptimizationsPageMax;
    const rows: [string, number, string][] = [
      ['offset=-1', 1, 'offset must be a whole number of at least 0'],
      ['offset=x', 1, 'offset must be a whole number of at least 0'],
      ['limit=0', 2, `limit must be a whole number from 1 to ${max}`],
      [`limit=${max + 1}`, 2, `limit must be a whole number from 1 to ${max}`],
      ['limit=1.5', 2, `limit must be a whole number from 1 to ${max}`],
    ];
    for (const [q, code, message] of rows) {
      expect([q, await call(me, 'GET', `optimizations?${q}`)]).toEqual([q, { success: false, errorCode: code, errorMessage: message }]);
    }
  });
});

describe('restart', () => {
  it('an optimisation running when the server stopped reads failed, its finished combinations kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-opt-'));
    try {
      const dbPath = join(dir, 'replaydesk.db');
      const a = await makePlaygroundApp({ runnerMaxConcurrent: 2, runnerOptimizeMaxConcurrent: 2 }, { dbPath });
      const sa = serve(a);
      const ca = { base: `http://127.0.0.1:${sa.port}`, cookie: a.cookie };
      const r = await call(ca, 'POST', 'optimize', { ...DAY, code: SPIN_UNLESS_ONE, params: { x: { values: [1, 2, 3] } } });
      await until('x = 1 completed', () => call(ca, 'GET', `optimizations/${r.optimizationId}/combinations?sort=index`), (v) => v.combinations[0].status === 'completed');
      sa.stop(true);
      await a.close();
      const b = await makePlaygroundApp({ runnerPoolSize: 0 }, { dbPath });
      const sb = serve(b);
      try {
        const cb = { base: `http://127.0.0.1:${sb.port}`, cookie: b.cookie };
        const o = (await call(cb, 'GET', `optimizations/${r.optimizationId}`)).optimization;
        expect(o).toMatchObject({ status: 'failed', error: 'The server restarted while the run was in progress', progress: { done: 3, total: 3 } });
        expect(o.best).toMatchObject({ index: 0, params: { x: 1 }, status: 'completed', qualifies: true });
        const cs = (await call(cb, 'GET', `optimizations/${r.optimizationId}/combinations?sort=index`)).combinations;
        expect(cs.map((c: any) => c.status)).toEqual(['completed', 'failed', 'failed']);
      } finally {
        sb.stop(true);
        await b.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SANDBOX_TEST_MS);
});
