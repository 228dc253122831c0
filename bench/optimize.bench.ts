// Optimisations end to end through the public HTTP interface only: real server processes (`bun
// <checkout>/src/main.ts`, bench/servers.ts), the web login, POST optimize → completed (polled), the
// real sandboxed runner. Three workloads:
//
// 1. grid: the 20-combination grid of `sma_cross` (fast 5…20 × slow 30…70) over 4 weeks of NQ 5 m,
//    one server with both runners for the optimisation (RUNNER_OPTIMIZE_MAX_CONCURRENT 2). Target ≤ 10 s.
// 2. year: 100 combinations of `sma_cross` (fast 5…50 × slow 60…240) over a year of NQ 1 m on the
//    same server, beside one single run of the year (POST run → completed, the default params): a
//    combination's share of the optimisation's wall time against the single run's. Target: no more
//    than the single run's + 10 %.
// 3. cluster (CLUSTER=1, needs PostgreSQL: this checkout's throwaway server): the grid on 1 node and
//    on 3 nodes of a local cluster behind a round-robin proxy, one runner a node (on a 2-core machine
//    the cores, not the nodes, bound it: 3 runners share 2 cores).
//
// A/B in one run: BASELINE=<checkout> runs every workload on this checkout (A) and the baseline (B)
// in turn (A B A B …, ROUNDS pairs), each a fresh server process on one data directory (its
// rollups built once, by an untimed single run first); ROOT=<checkout> measures another checkout
// alone. Wall time only: the machine is shared, so the load average is printed with each figure.
// Run: ./node_modules/.bin/bun bench/optimize.bench.ts
//   BASELINE=dir  the side-by-side checkout (for example a worktree of main)
//   ROUNDS=n      pairs of runs (default 1)
//   ONLY=grid,year,cluster   a subset (default grid,year; cluster only when named or CLUSTER=1)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnServer as spawnAt } from '../test/support/server-process.ts';
import { ROOT } from './root.ts';
import { startCluster } from './servers.ts';
import { median } from './support.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 1);
const ONLY = new Set((process.env.ONLY ?? (process.env.CLUSTER === '1' ? 'grid,year,cluster' : 'grid,year')).split(','));
const SIDES: [string, string][] = [['A', ROOT], ...(process.env.BASELINE ? [['B', resolve(process.env.BASELINE)] as [string, string]] : [])];
const RUNNER_CACHE = join(tmpdir(), 'replaydesk-test-runner');
const WEEKS = { instrument: 'NQ', startDate: '2025-02-03', endDate: '2025-02-28', timeframe: '5m' };
const YEAR = { instrument: 'NQ', startDate: '2025-01-02', endDate: '2025-12-31', timeframe: '1m' };
const GRID = { ...WEEKS, templateId: 'sma_cross', params: { fast: { min: 5, max: 20, step: 5 }, slow: { min: 30, max: 70, step: 10 } } };
const YEAR_GRID = { ...YEAR, templateId: 'sma_cross', params: { fast: { min: 5, max: 50, step: 5 }, slow: { min: 60, max: 240, step: 20 } } };
const ENV = { DATA_START_DATE: '2024-01-01', DATA_END_DATE: '2025-12-31', LOG_REQUESTS: 'false', RUNNER_CACHE_DIR: RUNNER_CACHE, RUNNER_POOL_SIZE: '1' };

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface Client {
  call(method: string, path: string, body?: unknown): Promise<any>;
}

/** The demo user's web session on `base`. */
async function login(base: string, password: string): Promise<Client> {
  const r = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'demo@replaydesk.local', password }) });
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
  if (!cookie) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return {
    call: async (method, path, body) => {
      const res = await fetch(`${base}/api/playground/${path}`, { method, headers: { 'content-type': 'application/json', cookie }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.json();
    },
  };
}

async function untilEnded(c: Client, path: string, read: (x: any) => any): Promise<any> {
  for (;;) {
    const x = read(await c.call('GET', path));
    if (x.status !== 'running') return x;
    await Bun.sleep(50);
  }
}

/** Seconds from POST optimize to completed, and the optimisation. */
async function optimise(c: Client, body: unknown): Promise<{ s: number; o: any }> {
  const t0 = performance.now();
  const r = await c.call('POST', 'optimize', body);
  if (!r.success) throw new Error(JSON.stringify(r));
  const o = await untilEnded(c, `optimizations/${r.optimizationId}`, (x) => x.optimization);
  const s = (performance.now() - t0) / 1000;
  if (o.status !== 'completed') throw new Error(`${o.status}: ${o.error}`);
  return { s, o };
}

/** Seconds from POST run to completed. */
async function runOnce(c: Client, body: unknown): Promise<number> {
  const t0 = performance.now();
  const r = await c.call('POST', 'run', body);
  if (!r.success) throw new Error(JSON.stringify(r));
  const x = await untilEnded(c, `executions/${r.executionId}`, (v) => v.execution);
  if (x.status !== 'completed') throw new Error(`${x.status}: ${x.error}`);
  return (performance.now() - t0) / 1000;
}

const dataDir = mkdtempSync(join(tmpdir(), 'rd-bench-optimize-'));

/** `root`'s server on the bench's data directory, both runners for optimisations; `f` with its client. */
async function withServer<T>(root: string, f: (c: Client) => Promise<T>): Promise<T> {
  const server = await spawnAt({ root, env: { ...ENV, DATA_DIR: dataDir, RUNNER_MAX_CONCURRENT: '2', RUNNER_OPTIMIZE_MAX_CONCURRENT: '2' }, timeoutMs: 600_000 });
  try {
    const c = await login(server.base, JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')).password);
    await Bun.sleep(3000); // the pool's child loads
    return await f(c);
  } finally {
    server.proc.kill('SIGTERM');
    await server.proc.exited;
  }
}

const figures: Record<string, number[]> = {};
const note = (key: string, v: number) => (figures[key] ??= []).push(v);

console.log(`building the data's rollups and the runner snapshot (untimed runs)… load ${load()}`);
for (const [, root] of SIDES) {
  await withServer(root, async (c) => {
    await runOnce(c, { ...WEEKS, templateId: 'sma_cross' });
    if (ONLY.has('year')) await runOnce(c, { ...YEAR, templateId: 'sma_cross' });
  });
}

for (let round = 1; round <= ROUNDS; round++) {
  for (const [side, root] of SIDES) {
    await withServer(root, async (c) => {
      if (ONLY.has('grid')) {
        const g = await optimise(c, GRID);
        note(`${side} grid`, g.s);
        console.log(`round ${round} ${side}: grid ${g.o.progress.done} combinations ${g.s.toFixed(1)} s, best ${JSON.stringify(g.o.best.params)} (load ${load()})`);
      }
      if (ONLY.has('year')) {
        const single = await runOnce(c, { ...YEAR, templateId: 'sma_cross' });
        const y = await optimise(c, YEAR_GRID);
        note(`${side} single`, single);
        note(`${side} year`, y.s);
        console.log(`round ${round} ${side}: one run of the year ${single.toFixed(2)} s; 100 combinations ${y.s.toFixed(1)} s, ${(y.s / 100).toFixed(2)} s a combination (load ${load()})`);
      }
    });
  }
}

if (ONLY.has('cluster')) {
  for (const [side, root] of SIDES) {
    for (const n of [1, 3]) {
      const s = await clusterGrid(root, n);
      note(`${side} cluster ${n}`, s);
      console.log(`${side}: grid on ${n} node${n > 1 ? 's' : ''} (one runner a node) ${s.toFixed(1)} s (load ${load()})`);
    }
  }
}

/** The grid through a round-robin proxy in front of `n` nodes of `root` on one fresh PostgreSQL database. */
async function clusterGrid(root: string, n: number): Promise<number> {
  const cluster = await startCluster(n, { ...ENV, RUNNER_MAX_CONCURRENT: '1', RUNNER_OPTIMIZE_MAX_CONCURRENT: '1' }, root);
  try {
    // Each node's market data and rollups built, and its pool loaded, by an untimed run on it first.
    for (const node of cluster.nodes) await runOnce(await login(node.server.base, cluster.demo.password), { ...WEEKS, templateId: 'sma_cross' });
    await Bun.sleep(3000);
    return (await optimise(await login(cluster.base, cluster.demo.password), GRID)).s;
  } finally {
    await cluster.stop();
  }
}

console.log(`\nmedians of ${ROUNDS} (wall seconds; A = ${ROOT}${SIDES[1] ? `, B = ${SIDES[1][1]}` : ''}):`);
for (const [side] of SIDES) {
  const m = (k: string) => (figures[`${side} ${k}`] ? median(figures[`${side} ${k}`]) : NaN);
  if (ONLY.has('grid')) console.log(`  ${side} grid of 20 (4 weeks of 5 m): ${m('grid').toFixed(1)} s`);
  if (ONLY.has('year')) console.log(`  ${side} year of 1 m: a combination ${(m('year') / 100).toFixed(2)} s against a single run's ${m('single').toFixed(2)} s (${((m('year') / 100 / m('single')) * 100).toFixed(0)} %)`);
  if (ONLY.has('cluster')) console.log(`  ${side} cluster: 1 node ${m('cluster 1').toFixed(1)} s, 3 nodes ${m('cluster 3').toFixed(1)} s, speed-up ${(m('cluster 1') / m('cluster 3')).toFixed(2)}×`);
}
console.log(`load ${load()}`);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
