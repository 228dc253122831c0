// POST optimize against hostile requests, black box over a real listening server (127.0.0.1): a
// random search over a space past 2^53 is answered and queued (it hung the node before), a body of
// 22,000 axes is refused by its count of axes, a grid's exact size is named, and starts are
// rate-limited per user. No sandbox runs: this app's optimisations may hold no runner
// (`runnerOptimizeMaxConcurrent: 0`), so their combinations stay queued until stopped.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Server } from 'bun';
import { limits } from '../../../src/config.ts';
import { makeWebUser, webLogin } from '../../support/app.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS } from '../../support/playground.ts';

const DAY = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m' };
const CODE = 'def on_bar(ctx, bar):\n    pass\n';
const axes = (n: number, values: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { min: 1, max: values, step: 1 }]));

let p: PlaygroundApp;
let server: Server<undefined>;
let base: string;

async function call(cookie: string, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base}/api/playground/${path}`, {
    method,
    headers: { cookie: `rd_session=${cookie}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function newUser(email: string): Promise<string> {
  const u = await makeWebUser(p, { email });
  return webLogin(p, u.email, u.password);
}

beforeAll(async () => {
  p = await makePlaygroundApp({ runnerPoolSize: 0, runnerOptimizeMaxConcurrent: 0 });
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => p.app.handle(req) });
  base = `http://127.0.0.1:${server.port}`;
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  server?.stop(true);
  await p?.close();
}, SANDBOX_HOOK_MS);

describe('the search\'s size', () => {
  it('a random search of 500 over six axes of 500 values (a space past 2^53) is answered, queued whole and stoppable', async () => {
    const cookie = await newUser('random@example.com');
    const r = await call(cookie, 'POST', 'optimize', { ...DAY, code: CODE, params: axes(6, 500), method: 'random', count: 500, seed: 3 });
    expect(r.body).toEqual({ optimizationId: expect.stringMatching(/^opt_/), status: 'running', success: true, errorCode: 0, errorMessage: null });
    const o = (await call(cookie, 'GET', `optimizations/${r.body.optimizationId}`)).body.optimization;
    expect(o).toMatchObject({ status: 'running', method: 'random', count: 500, seed: 3, progress: { done: 0, total: 500 } });
    expect(o.params.map((a: any) => a.values.length)).toEqual([500, 500, 500, 500, 500, 500]);
    const page = (await call(cookie, 'GET', `optimizations/${r.body.optimizationId}/combinations?sort=index&limit=500`)).body;
    expect(page.total).toBe(500);
    // 500 distinct points of the space, every value within its axis.
    const points = new Set(page.combinations.map((c: any) => JSON.stringify(c.params)));
    expect(points.size).toBe(500);
    for (const c of page.combinations) for (const v of Object.values(c.params)) expect(v as number).toBeWithin(1, 501);
    expect((await call(cookie, 'POST', `optimizations/${r.body.optimizationId}/stop`, {})).body.success).toBe(true);
    expect((await call(cookie, 'GET', `optimizations/${r.body.optimizationId}`)).body.optimization.status).toBe('stopped');
  });

  it('a grid names its exact size, past a double\'s integers', async () => {
    const cookie = await newUser('grid@example.com');
    const r = await call(cookie, 'POST', 'optimize', { ...DAY, code: CODE, params: axes(7, 499) });
    expect(r.body).toEqual({ success: false, errorCode: 16, errorMessage: `The optimisation has ${499n ** 7n} combinations; at most ${limits.playgroundOptimizeCombinationsMax}` });
  });

  it('a body of 22,000 axes (about 1 MB) is refused by its count of axes', async () => {
    const cookie = await newUser('axes@example.com');
    const body = JSON.stringify({ ...DAY, code: CODE, params: Object.fromEntries(Array.from({ length: 22_000 }, (_, i) => [`a${i}`, { values: [1, 2] }])) });
    expect(body.length).toBeGreaterThan(500_000);
    expect(body.length).toBeLessThan(limits.requestBodyBytesMax);
    const r = await call(cookie, 'POST', 'optimize', body);
    expect(r.body).toEqual({ success: false, errorCode: 8, errorMessage: 'Too many params (at most 50)' });
    // The same against a template: its first unknown param.
    const t = await call(cookie, 'POST', 'optimize', { ...DAY, templateId: 'sma_cross', params: { fast: 5, ...Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`a${i}`, 1])) } });
    expect(t.body).toEqual({ success: false, errorCode: 8, errorMessage: 'Unknown param a0' });
  });
});

describe('starts per user', () => {
  it(`past ${limits.playgroundOptimizeStartsPerWindowMax} POST optimize a minute, the next → 429 with Retry-After, refused or not; other users go on`, async () => {
    const cookie = await newUser('eager@example.com');
    const bad = { ...DAY, code: CODE, params: { x: { values: [] } } };
    for (let i = 0; i < limits.playgroundOptimizeStartsPerWindowMax; i++) {
      expect((await call(cookie, 'POST', 'optimize', bad)).body.errorCode).toBe(8);
      if (i === 0) p.clock.advance(10_000);
    }
    const r = await call(cookie, 'POST', 'optimize', { ...DAY, code: CODE, params: { x: 1 } });
    expect([r.status, r.body, r.headers.get('retry-after')]).toEqual([429, { success: false, errorCode: 429, errorMessage: 'Too many optimisation starts; retry shortly' }, '50']);
    const other = await newUser('patient@example.com');
    expect((await call(other, 'POST', 'optimize', bad)).body.errorCode).toBe(8);
    p.clock.advance(50_000);
    expect((await call(cookie, 'POST', 'optimize', bad)).body.errorCode).toBe(8);
  });
});
