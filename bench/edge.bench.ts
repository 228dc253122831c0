// What the HTTP edge costs: a plain Replay/step and Order/place over real HTTP on one node (SQLite),
// and a step forwarded between two nodes on one PostgreSQL (the request lands on the node that does
// not hold the session and is passed to the one that does) beside the same step sent to the owner.
// Every server runs in this process on 127.0.0.1 (the production fetch handler); the client is this
// process too, one call at a time, so the figures are latencies of one call, not throughput.
//
// Run: ./node_modules/.bin/bun bench/edge.bench.ts
// A/B: ROOT=/path/to/other/checkout ./node_modules/.bin/bun bench/edge.bench.ts measures that tree's
// src/ with the same load (bench/root.ts; the in-process nodes are bench/nodes.ts, built from that
// tree's src/, and the throwaway PostgreSQL is this checkout's test/support/postgres.ts, a harness),
// so any commit since the previous release can be measured; `npm run bench -- --baseline <commit>
// --only edge` alternates the two trees. CALLS overrides the timed calls per figure.
//
// Measured (2 cores, load average about 1, two alternating runs each, medians, 1,500 calls a figure):
// the step forwarded 2.87 / 2.78 ms before ownership moved to the edge (tag pre-seam) and 2.59 /
// 2.63 ms after (p90 4.25 / 4.03 → 3.69 / 3.63 ms): the forwarding node no longer authenticates nor
// reads the body as the endpoint's. Unchanged within noise: the step at the owner (1.59 / 1.49 →
// 1.57 / 1.60 ms), one node's Replay/step (0.41 / 0.41 → 0.43 / 0.38 ms) and Order/place (0.38 /
// 0.34 → 0.36 / 0.36 ms).

import { loadavg } from 'node:os';
import { freshDatabase } from '../test/support/postgres.ts';
import { benchNode, benchToken } from './nodes.ts';
import { load, ROOT } from './root.ts';
import { median, percentile } from './support.ts';

const CALLS = Number(process.env.CALLS ?? 1500);
const WARMUP = 200;
const T0 = Date.UTC(2025, 2, 3, 14, 30, 0);

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { ManualClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

type Reply = { status: number; body: any };

async function post(base: string, path: string, body: unknown, token: string): Promise<Reply> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Milliseconds of each of `n` calls of `once` (which must succeed). */
async function timed(n: number, once: () => Promise<Reply>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await once();
    ms.push(performance.now() - t0);
    if (!r.body?.success) throw new Error(`call failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return ms;
}

const line = (what: string, ms: number[]) => `${what.padEnd(34)} median ${median(ms).toFixed(3)} ms  p90 ${percentile(ms, 0.9).toFixed(3)} ms  (${ms.length} calls)`;

async function startSession(base: string, token: string): Promise<{ accountId: number; contractId: string }> {
  const r = await post(base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', endDate: '2025-03-21', timeframe: '1m' }, token);
  if (!r.body.success) throw new Error(`start: ${JSON.stringify(r.body)}`);
  return { accountId: r.body.accountId, contractId: r.body.instrument.contractId };
}

/** One node on SQLite: Replay/step (one bar) and Order/place (a far limit, cancelled between places). */
async function oneNode(): Promise<string[]> {
  const s = await createServices({ config: defaultConfig({}), clock: new ManualClock(T0), db: openDb(':memory:'), cluster: false, jwtSecret: new TextEncoder().encode('x'.repeat(32)), logError: () => {} });
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const made = await s.users.create({ email: 'bench@example.com', plan: 'pro' });
    if (!made.ok) throw new Error('cannot create bench user');
    const login = await fetch(`${base}/api/sim/Auth/loginKey`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: 'bench@example.com', apiKey: made.value.apiKey }) });
    const token = ((await login.json()) as { token: string }).token;
    const { accountId, contractId } = await startSession(base, token);
    const step = () => post(base, 'Replay/step', { accountId, steps: 1 }, token);
    await timed(WARMUP, step);
    const steps = await timed(CALLS, step);
    const places: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      const o = await post(base, 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1000 }, token);
      if (i >= WARMUP / 4) places.push(performance.now() - t0);
      if (!o.body.success) throw new Error(`place: ${JSON.stringify(o.body)}`);
      await post(base, 'Order/cancel', { accountId, orderId: o.body.orderId }, token);
    }
    return [line('one node: Replay/step', steps), line('one node: Order/place', places)];
  } finally {
    server.stop(true);
    await s.shutdown();
  }
}

/** Two nodes on one PostgreSQL: steps sent to the owner and through the other node, alternately in blocks. */
async function twoNodes(): Promise<string[]> {
  const url = await freshDatabase();
  const secret = new TextEncoder().encode('y'.repeat(32));
  const a = await benchNode(url, 'bench-a', secret);
  const b = await benchNode(url, 'bench-b', secret);
  try {
    const token = await benchToken(a, 'bench-cluster@example.com');
    const { accountId } = await startSession(a.base, token);
    const stepAt = (base: string) => () => post(base, 'Replay/step', { accountId, steps: 1 }, token);
    await timed(WARMUP / 2, stepAt(a.base));
    await timed(WARMUP / 2, stepAt(b.base));
    const direct: number[] = [];
    const forwarded: number[] = [];
    const block = 100;
    for (let done = 0; done < CALLS; done += block) {
      direct.push(...(await timed(block, stepAt(a.base))));
      forwarded.push(...(await timed(block, stepAt(b.base))));
    }
    return [line('two nodes: step at the owner', direct), line('two nodes: step forwarded', forwarded)];
  } finally {
    await b.stop();
    await a.stop();
  }
}

const out = [`root ${ROOT}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`, ...(await oneNode()), ...(await twoNodes())];
console.log(out.join('\n'));
process.exit(0);
