// The playground end to end over loopback: POST run → completed, through a real listening server,
// the real sandboxed runner (Deno + Pyodide child from the warm pool) and the server's ledger.
//
// 1. SMA(10)/SMA(30) crossover template (`sma_cross`) over one year of NQ 1 m bars (~360 k bars,
//    fills decided on the ~31 M stored 1 s bars behind them). Target: ≤ 2 s with a warm pool, after
//    one untimed run that builds the year's rollups (a server builds them at start-up: main.ts).
// 2. First bar after POST run: warm pool (target ≤ 100 ms) and cold with the snapshot (≤ 1 s).
// 3. An empty on_bar over ~1 M bars (1 s bars): the harness overhead in calls per second
//    (target ≥ 0.6 M bars/s end to end).
// 4. While a year-long run executes: event-loop lag of the server and Replay/step latency of
//    another client.
// Every phase is printed: pool wait, bar preparation (synthetic generation + aggregation), frame
// sending, waiting for the child, the ledger's replay of the actions. Beside wall time, the CPU time
// of each run: the child's from hand-out to kill (its spawn and snapshot restore happen before, in
// the pool) and the server process's over POST → completed (bench/playground-cpu.ts), which a busy
// machine inflates far less than wall time.
//
// Run: ./node_modules/.bin/bun bench/playground.bench.ts
//   TARGETS=1        only 1 and 3, and a last line `targets {"smaYearMs":…,"emptyMbarsPerS":…, CPU ms…}`
//   ROOT=dir         the server and runner of another checkout (bench/root.ts; this file's own code stays);
//                    any commit since the previous release: the run store is built the way that commit's is
//   AB_BASELINE=dir  A/B: this checkout against `dir` (for example a git worktree of main), TARGETS
//                    runs of each in turn (A B A B …, AB_ROUNDS pairs, default 3), medians and B/A

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { abCompare } from './playground-ab.ts';
import { serverCpuMs, trackChildren } from './playground-cpu.ts';
import { ROOT } from './root.ts';
import { median, percentile } from './support.ts';

if (process.env.AB_BASELINE) {
  await abCompare(import.meta.path, join(import.meta.dir, '..'), resolve(process.env.AB_BASELINE), Number(process.env.AB_ROUNDS ?? 3));
  process.exit(0);
}
const TARGETS = process.env.TARGETS === '1';
const { buildApp, silentLogger } = await import(join(ROOT, 'src/app.ts'));
const { defaultConfig } = await import(join(ROOT, 'src/config.ts'));
const { systemClock } = await import(join(ROOT, 'src/lib/clock.ts'));
const { randomSecret } = await import(join(ROOT, 'src/lib/secrets.ts'));
const { createServices } = await import(join(ROOT, 'src/service/services.ts'));
const { createFetch } = await import(join(ROOT, 'src/server.ts'));
const { openDb } = await import(join(ROOT, 'src/store/db.ts'));
const { PlaygroundRunStore } = await import(join(ROOT, 'src/store/playground-runs.ts'));

const RUNS = Number(process.env.RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'rd-bench-playground-'));
const db = openDb(join(dir, 'replaydesk.db'));
const s = await createServices({
  config: defaultConfig({ dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerCacheDir: join(tmpdir(), 'replaydesk-bench-runner'), runnerPoolSize: 1 }),
  clock: systemClock,
  db,
  jwtSecret: new TextEncoder().encode(randomSecret()),
});
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
const base = `http://127.0.0.1:${server.port}`;
// The run store takes the services' Sql since 2026-11-25 (d5b578f), the SQLite database before.
const runs = new PlaygroundRunStore((s as unknown as { sql?: unknown }).sql ?? s.db);
const children = trackChildren(s.runner());

await s.users.create({ email: 'bench@example.com', plan: 'pro', password: 'bench password 123' });
const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 123' }) });
const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
const headers = { 'content-type': 'application/json', cookie };

async function poolReady(): Promise<void> {
  await s.runner().warm();
  // warm() returns once a child is spawning; wait until it has loaded (a short run takes it).
}

async function runToEnd(body: Record<string, unknown>): Promise<{ totalMs: number; id: string; x: any; serverCpuMs: number }> {
  const t0 = performance.now();
  const c0 = serverCpuMs();
  const r: any = await (await fetch(`${base}/api/playground/run`, { method: "POST", headers, body: JSON.stringify(body) })).json() as any;
  if (!r.success) throw new Error(JSON.stringify(r));
  for (;;) {
    const x: any = await (await fetch(`${base}/api/playground/executions/${r.executionId}`, { headers })).json() as any;
    if (x.execution.status !== 'running') {
      const totalMs = performance.now() - t0;
      if (x.execution.status !== 'completed') throw new Error(`${x.execution.status}: ${x.execution.error}`);
      return { totalMs, id: r.executionId, x: x.execution, serverCpuMs: serverCpuMs() - c0 };
    }
    await Bun.sleep(Number(process.env.POLL_MS ?? 20)); // a client polling at 50 Hz
  }
}

async function timingsOf(id: string): Promise<Record<string, number>> {
  const user = (await s.users.list())[0];
  return (((await runs.get(user.id, id))?.result as any)?.timings ?? {}) as Record<string, number>;
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
const YEAR = { instrument: 'NQ', startDate: '2025-01-02', endDate: '2025-12-31', timeframe: '1m' };

console.log('warming the runner (bundle, snapshot, pool)…');
await poolReady();
await runToEnd({ instrument: 'NQ', startDate: '2025-01-06', timeframe: '1h', code: 'def on_bar(ctx, bar):\n    pass\n' });
await Bun.sleep(1500); // the replacement child loads
console.log('building the year\'s rollups (one untimed run)…');
await runToEnd({ ...YEAR, templateId: 'sma_cross', params: { fast: 10, slow: 30, size: 1 } });
await Bun.sleep(1500);

// 1. SMA crossover, one year of 1 m bars.
const sma: number[] = [];
const smaCpu = { child: [] as number[], server: [] as number[] };
const phases: Record<string, number[]> = {};
let bars = 0;
let trades = 0;
children.take(); // the untimed runs'
for (let i = 0; i < RUNS; i++) {
  const r = await runToEnd({ ...YEAR, templateId: 'sma_cross', params: { fast: 10, slow: 30, size: 1 } });
  sma.push(r.totalMs);
  smaCpu.server.push(r.serverCpuMs);
  smaCpu.child.push(...children.take());
  bars = r.x.progress.barsDone;
  trades = r.x.tradesTotal;
  for (const [k, v] of Object.entries(await timingsOf(r.id))) {
    if (typeof v === 'number') (phases[k] ??= []).push(v);
    else for (const [ck, cv] of Object.entries(v as Record<string, number>)) (phases[`child.${ck}`] ??= []).push(cv);
  }
  await Bun.sleep(1500);
}
console.log(`\nsma_cross, NQ 1m, ${YEAR.startDate}..${YEAR.endDate}: ${bars} bars, ${trades} trades`);
console.log(`  POST run → completed: median ${fmt(median(sma))} (min ${fmt(Math.min(...sma))}, max ${fmt(Math.max(...sma))}), ${(bars / (median(sma) / 1000) / 1000).toFixed(0)} k bars/s`);
console.log(`  CPU: child median ${fmt(median(smaCpu.child))}, server median ${fmt(median(smaCpu.server))}`);
for (const [k, v] of Object.entries(phases)) console.log(`  ${k.padEnd(12)} median ${fmt(median(v))}`);

// 2. First bar: warm pool, then cold (pool emptied, snapshot present).
if (!TARGETS) await firstBar();

async function firstBar(): Promise<void> {
const warm: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await runToEnd({ instrument: 'NQ', startDate: '2025-03-03', timeframe: '1m', code: 'def on_bar(ctx, bar):\n    pass\n' });
  warm.push((await timingsOf(r.id)).firstBarMs);
  await Bun.sleep(1500);
}
console.log(`\nfirst bar after POST run, warm pool: median ${fmt(median(warm))} (max ${fmt(Math.max(...warm))})`);
const cold = await createServices({
  config: defaultConfig({ dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerCacheDir: join(tmpdir(), 'replaydesk-bench-runner'), runnerPoolSize: 0 }),
  clock: systemClock,
  db,
  jwtSecret: new TextEncoder().encode(randomSecret()),
});
const coldFirst: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const user = (await s.users.list())[0];
  const r = await cold.runs.start(user.id, { instrument: 'NQ', startDate: '2025-03-03', timeframe: '1m', code: 'def on_bar(ctx, bar):\n    pass\n' });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  for (;;) {
    const v = await cold.runs.get(user.id, r.value.executionId);
    if (v.ok && v.value.status !== 'running') break;
    await Bun.sleep(5);
  }
  coldFirst.push((await timingsOf(r.value.executionId)).firstBarMs);
}
await cold.shutdown();
console.log(`first bar after POST run, cold (spawn + snapshot load): median ${fmt(median(coldFirst))} (max ${fmt(Math.max(...coldFirst))})`);
}

// 3. Empty on_bar over ~1 M one-second bars.
const s2 = await createServices({
  config: defaultConfig({ dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerCacheDir: join(tmpdir(), 'replaydesk-bench-runner'), runnerPoolSize: 1 }),
  clock: systemClock,
  db,
  jwtSecret: new TextEncoder().encode(randomSecret()),
});
const children2 = trackChildren(s2.runner());
await s2.runner().warm();
await Bun.sleep(1500);
const empty: number[] = [];
const emptyCpu = { child: [] as number[], server: [] as number[] };
let emptyBars = 0;
const emptyWait: number[] = [];
for (let i = 0; i < 3; i++) {
  const user = (await s.users.list())[0];
  const t0 = performance.now();
  const c0 = serverCpuMs();
  const r = await s2.runs.start(user.id, { instrument: 'NQ', startDate: '2025-03-03', endDate: '2025-03-17', timeframe: '1s', code: 'def on_bar(ctx, bar):\n    pass\n' });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  for (;;) {
    const v = await s2.runs.get(user.id, r.value.executionId);
    if (v.ok && v.value.status !== 'running') {
      emptyBars = v.value.barsDone;
      break;
    }
    await Bun.sleep(5);
  }
  empty.push(performance.now() - t0);
  emptyCpu.server.push(serverCpuMs() - c0);
  emptyCpu.child.push(...children2.take());
  emptyWait.push((await timingsOf(r.value.executionId)).waitMs);
  await Bun.sleep(1500);
}
await s2.shutdown();
console.log(`\nempty on_bar, NQ 1s: ${emptyBars} bars: median ${fmt(median(empty))} end to end = ${(emptyBars / (median(empty) / 1000) / 1e6).toFixed(2)} M calls/s; waiting on the child ${fmt(median(emptyWait))}`);
console.log(`  CPU: child median ${fmt(median(emptyCpu.child))} (${(emptyBars / median(emptyCpu.child) / 1000).toFixed(2)} M bars per CPU s), server median ${fmt(median(emptyCpu.server))}`);
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
if (TARGETS) {
  const cpu = {
    smaChildCpuMs: Math.round(median(smaCpu.child)), smaServerCpuMs: Math.round(median(smaCpu.server)),
    emptyChildCpuMs: Math.round(median(emptyCpu.child)), emptyServerCpuMs: Math.round(median(emptyCpu.server)),
  };
  console.log(`targets ${JSON.stringify({ smaYearMs: Math.round(median(sma)), emptyMbarsPerS: Number((emptyBars / (median(empty) / 1000) / 1e6).toFixed(3)), ...cpu })}`);
  server.stop(true);
  await s.shutdown();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

// 4. The server beside a year-long run: event-loop lag and another client's Replay/step.
await s.runner().warm();
await Bun.sleep(1500);
await s.users.create({ email: 'bot@example.com', plan: 'pro' }).then(async (u: any) => {
  if (!u.ok) throw new Error('bot user');
  const tok = (await (await fetch(`${base}/api/sim/Auth/loginKey`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: 'bot@example.com', apiKey: u.value.apiKey }) })).json() as any).token;
  const h = { 'content-type': 'application/json', authorization: `Bearer ${tok}` };
  const start = await (await fetch(`${base}/api/sim/Replay/start`, { method: 'POST', headers: h, body: JSON.stringify({ instrumentSymbol: 'ES', startDate: '2025-02-03', endDate: '2025-02-28', timeframe: '1m' }) })).json() as any;
  const lags: number[] = [];
  const steps: number[] = [];
  let done = false;
  const run = runToEnd({ ...YEAR, templateId: 'sma_cross' }).finally(() => (done = true));
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - 10);
    last = now;
  }, 10);
  while (!done) {
    const t0 = performance.now();
    const r = await (await fetch(`${base}/api/sim/Replay/step`, { method: 'POST', headers: h, body: JSON.stringify({ accountId: start.accountId, steps: 10 }) })).json() as any;
    if (r.success) steps.push(performance.now() - t0);
    await Bun.sleep(20);
  }
  clearInterval(timer);
  await run;
  console.log(`\nbeside a year-long sma_cross run: event-loop lag median ${lags.length ? median(lags).toFixed(1) : '-'} ms, p99 ${lags.length ? percentile(lags, 0.99).toFixed(1) : '-'} ms, max ${lags.length ? Math.max(...lags).toFixed(1) : '-'} ms`);
  console.log(`  Replay/step (10 × 1 m) of another client: median ${median(steps).toFixed(1)} ms, p99 ${percentile(steps, 0.99).toFixed(1)} ms over ${steps.length} calls`);
});

await server.stop(true);
await s.shutdown();
db.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
