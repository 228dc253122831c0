// A 100-combination grid of the SMA template (`sma_cross`, fast 5…50 × slow 60…240) over one month of
// NQ 1 m bars, POST optimize → completed through a real listening server and the real sandboxed
// runner: with the optimisation on both cores (RUNNER_OPTIMIZE_MAX_CONCURRENT 2) and one after
// another (1), in turn (A B A B …), each round a fresh server on one database (its rollups built by an
// untimed run first). Prints each round, the medians and the speed-up (one after another / both cores).
//
// The same work both ways: every combination runs in a fresh child, and each server's warm pool is
// sized to its optimisation's share (RUNNER_POOL_SIZE 1; the pool's burst keeps one loaded successor
// per running combination: 2 on both cores, 1 one after another), so neither case waits for a spawn
// it could have had ahead, and neither spawns more than it uses. Beside wall time: the CPU seconds of
// the server process and of all its children (spawns and snapshot restores included).
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only optimize` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/optimize.bench.ts
//   ROUNDS=n   pairs of runs (default 1)
//   COMBOS=n   a smaller grid for a quick look: n = 10, 20, … 100 (fast 5…50 × the first n/10 slow values)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverCpuMs, treeCpuMs } from './playground-cpu.ts';
import { median } from './support.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const ROUNDS = Number(process.env.ROUNDS ?? 1);
const MONTH = { instrument: 'NQ', startDate: '2025-02-03', endDate: '2025-02-28', timeframe: '1m' };
const COMBOS = Number(process.env.COMBOS ?? 100);
if (!Number.isInteger(COMBOS) || COMBOS % 10 !== 0 || COMBOS < 10 || COMBOS > 100) throw new Error('COMBOS must be 10, 20, … or 100');
const GRID = { ...MONTH, templateId: 'sma_cross', params: { fast: { min: 5, max: 50, step: 5 }, slow: { min: 60, max: 60 + 20 * (COMBOS / 10 - 1), step: 20 } } };
const USER = { email: 'bench@example.com', password: 'bench password 123' };

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-optimize-'));
const db = openDb(join(dir, 'replaydesk.db'));

/** A server whose optimisations hold at most `slots` of its two full-speed runners. */
async function server(slots: number) {
  const s = await createServices({
    config: defaultConfig({
      dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerCacheDir: join(tmpdir(), 'replaydesk-bench-runner'),
      runnerPoolSize: 1, runnerMaxConcurrent: 2, runnerOptimizeMaxConcurrent: slots,
    }),
    clock: systemClock,
    db,
    jwtSecret: new TextEncoder().encode(randomSecret()),
  });
  if (!(await s.users.list()).some((u) => u.email === USER.email)) await s.users.create({ ...USER, plan: 'pro' });
  const srv = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  const base = `http://127.0.0.1:${srv.port}/api`;
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) });
  const headers = { 'content-type': 'application/json', cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] };
  const call = async (method: string, path: string, body?: unknown): Promise<any> =>
    (await fetch(`${base}/playground/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json();
  await s.runner().warm();
  return {
    call,
    /** Σ over an optimisation's runs of where the server's time went (the runs' recorded timings), seconds. */
    async phases(id: string): Promise<Record<string, number>> {
      const rows = await s.sql.all<{ result_json: string }>('SELECT result_json FROM playground_runs WHERE optimization_id = $id', { id });
      const out: Record<string, number> = {};
      for (const r of rows) for (const [k, v] of Object.entries(JSON.parse(r.result_json).timings ?? {})) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v / 1000;
      return out;
    },
    async close() {
      srv.stop(true);
      await s.shutdown();
    },
  };
}

async function untilEnded(call: (m: string, p: string) => Promise<any>, path: string, read: (x: any) => any): Promise<any> {
  for (;;) {
    const x = read(await call('GET', path));
    if (x.status !== 'running') return x;
    await Bun.sleep(100);
  }
}

/** One optimisation of the grid: seconds POST → completed, and its best combination. */
async function optimiseOnce(slots: number): Promise<{ s: number; best: any; done: number; phases: Record<string, number>; cpu: { server: number; children: number } }> {
  const srv = await server(slots);
  try {
    await Bun.sleep(3000); // the pool's children load
    const t0 = performance.now();
    const all0 = treeCpuMs(process.pid);
    const own0 = serverCpuMs();
    const r = await srv.call('POST', 'optimize', GRID);
    if (!r.success) throw new Error(JSON.stringify(r));
    const o = await untilEnded(srv.call, `optimizations/${r.optimizationId}`, (x) => x.optimization);
    const s = (performance.now() - t0) / 1000;
    const own = serverCpuMs() - own0;
    const cpu = { server: own / 1000, children: (treeCpuMs(process.pid) - all0 - own) / 1000 };
    if (o.status !== 'completed') throw new Error(`${o.status}: ${o.error}`);
    return { s, best: o.best, done: o.progress.done, phases: await srv.phases(r.optimizationId), cpu };
  } finally {
    await srv.close();
  }
}

console.log('building the month\'s rollups and the runner (one untimed run)…');
{
  const srv = await server(1);
  const r = await srv.call('POST', 'run', { ...MONTH, templateId: 'sma_cross' });
  const x = await untilEnded(srv.call, `executions/${r.executionId}`, (v) => v.execution);
  console.log(`  one combination alone: ${x.progress.barsDone} bars, ${x.tradesTotal} trades`);
  await srv.close();
}

const both: number[] = [];
const one: number[] = [];
const cpuBoth: number[] = [];
const cpuOne: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const a = await optimiseOnce(2);
  const b = await optimiseOnce(1);
  both.push(a.s);
  one.push(b.s);
  cpuBoth.push(a.cpu.server + a.cpu.children);
  cpuOne.push(b.cpu.server + b.cpu.children);
  if (JSON.stringify(a.best.params) !== JSON.stringify(b.best.params)) throw new Error('the two searches disagree on the best');
  console.log(`round ${round}: ${a.done} combinations, both cores ${a.s.toFixed(1)} s, one after another ${b.s.toFixed(1)} s, best ${JSON.stringify(a.best.params)} (net P&L ${a.best.statistics.totalPnl})`);
  // prepareMs, sendMs, verifyMs: the server's own thread (bars, frames, the ledger's replay); waitMs: waiting on the child.
  const fmt = (p: Record<string, number>) => Object.entries(p).map(([k, v]) => `${k.replace('Ms', '')} ${v.toFixed(1)} s`).join(', ');
  console.log(`  Σ over the runs, both cores: ${fmt(a.phases)}`);
  console.log(`  Σ over the runs, one after another: ${fmt(b.phases)}`);
  console.log(`  CPU, both cores: server ${a.cpu.server.toFixed(1)} s, children ${a.cpu.children.toFixed(1)} s; one after another: server ${b.cpu.server.toFixed(1)} s, children ${b.cpu.children.toFixed(1)} s`);
}
console.log(`\n${GRID.templateId} ${COMBOS}-combination grid, NQ 1m ${MONTH.startDate}..${MONTH.endDate}, medians of ${ROUNDS}:`);
console.log(`  both cores (2 runners): ${median(both).toFixed(1)} s (${(median(both) / COMBOS).toFixed(2)} s a combination), CPU ${(median(cpuBoth) / COMBOS).toFixed(2)} s a combination`);
console.log(`  one after another (1 runner): ${median(one).toFixed(1)} s (${(median(one) / COMBOS).toFixed(2)} s a combination), CPU ${(median(cpuOne) / COMBOS).toFixed(2)} s a combination`);
console.log(`  speed-up: ${(median(one) / median(both)).toFixed(2)}×`);
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
db.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
