// The playground's execution in process, without HTTP or the store: the server's Execution (bars,
// frames, the ledger's replay) driving a real runner child (Deno + Pyodide from the snapshot), on
// the two speed targets' workloads. Prints wall time and CPU time apart: the child's (from hand-out
// to kill; its spawn, snapshot restore and load-time optimisation are not in it) and the server's (process.cpuUsage), so a
// busy machine still gives a fair A/B.
//
// Run: ./node_modules/.bin/bun bench/playground-child.bench.ts
//   RUNS=n           timed runs of each workload (default 3), after one untimed run that builds rollups
//   ONLY=empty|sma|month  one workload (month: one combination of bench/optimize.bench.ts's grid)
//   ROOT=dir         the server and runner code of another checkout (bench/root.ts; this file stays)
//   AB_BASELINE=dir  this checkout (A) against `dir` (B), in turn A B A B … (AB_ROUNDS pairs, default 3):
//                    medians of each side's per-process medians and of the per-round ratios

import { join, resolve } from 'node:path';
import { serverCpuMs, trackChildren } from './playground-cpu.ts';
import { benchServices, benchUser, executionOf } from './playground-setup.ts';
import { median } from './support.ts';

interface Figures {
  [workload: string]: { bars: number; wallMs: number; childCpuMs: number; serverCpuMs: number };
}

if (process.env.AB_BASELINE) {
  await ab(resolve(join(import.meta.dir, '..')), resolve(process.env.AB_BASELINE), Number(process.env.AB_ROUNDS ?? 3));
  process.exit(0);
}

const RUNS = Number(process.env.RUNS ?? 3);

const WORKLOADS = {
  empty: { instrument: 'NQ', startDate: '2025-03-03', endDate: '2025-03-17', timeframe: '1s', code: 'def on_bar(ctx, bar):\n    pass\n' },
  sma: { instrument: 'NQ', startDate: '2025-01-02', endDate: '2025-12-31', timeframe: '1m', templateId: 'sma_cross', params: { fast: 10, slow: 30, size: 1 } },
  // One combination of bench/optimize.bench.ts's grid: a fresh child's short run.
  month: { instrument: 'NQ', startDate: '2025-02-03', endDate: '2025-02-28', timeframe: '1m', templateId: 'sma_cross', params: { fast: 10, slow: 30, size: 1 } },
} as const;

// Pool size 1, as a server runs: each run takes the child loaded ahead of need (the clock starts once
// it has it), and its successor loads meanwhile (playground-setup.ts).
const { s, close } = await benchServices('rd-bench-playground-child-');
const userId = await benchUser(s);
const pool = s.runner();
await pool.warm();
const children = trackChildren(pool);

interface Once {
  bars: number;
  trades: number;
  wallMs: number;
  childCpuMs: number;
  serverCpuMs: number;
  timings: Record<string, number>;
}

async function once(body: Record<string, unknown>): Promise<Once> {
  const plan = await s.runs.plan(userId, body);
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  const p = plan.value;
  const exec = executionOf(s, userId, p);
  const child = await pool.acquire();
  const c0 = serverCpuMs();
  const t0 = performance.now();
  await exec.run(child);
  const wallMs = performance.now() - t0;
  const server = serverCpuMs() - c0;
  if (exec.status !== 'completed') throw new Error(`${exec.status}: ${exec.error}`);
  return { bars: exec.barsDone, trades: exec.ledger.closedTrades.length, wallMs, childCpuMs: children.take()[0], serverCpuMs: server, timings: { ...exec.timings, ...Object.fromEntries(Object.entries(exec.childTimings ?? {}).map(([k, v]) => [`child.${k}`, v as number])) } };
}

const out: Figures = {};
for (const [name, body] of Object.entries(WORKLOADS)) {
  if (process.env.ONLY && process.env.ONLY !== name) continue;
  await once(body); // rollups, caches
  const rs: Once[] = [];
  for (let i = 0; i < RUNS; i++) rs.push(await once(body));
  const m = (f: (r: Once) => number) => median(rs.map(f));
  out[name] = { bars: rs[0].bars, wallMs: Math.round(m((r) => r.wallMs)), childCpuMs: Math.round(m((r) => r.childCpuMs)), serverCpuMs: Math.round(m((r) => r.serverCpuMs)) };
  const o = out[name];
  console.log(`${name}: ${o.bars} bars, ${rs[0].trades} trades; medians of ${RUNS}: wall ${o.wallMs} ms, child CPU ${o.childCpuMs} ms (${(o.bars / o.childCpuMs / 1000).toFixed(2)} M bars per CPU s), server CPU ${o.serverCpuMs} ms`);
  console.log(`  phases (median ms; child.* as the child reports them): ${Object.keys(rs[0].timings).map((k) => `${k} ${Math.round(m((r) => r.timings[k]))}`).join(', ')}`);
}
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
console.log(`figures ${JSON.stringify(out)}`);
await close();
process.exit(0);

async function ab(rootA: string, rootB: string, rounds: number): Promise<void> {
  const runOnce = (root: string): Figures => {
    const p = Bun.spawnSync([process.execPath, import.meta.path], { env: { ...process.env, AB_BASELINE: '', ROOT: root }, stdout: 'pipe', stderr: 'pipe' });
    const text = p.stdout.toString();
    const line = text.split('\n').find((l) => l.startsWith('figures '));
    if (p.exitCode !== 0 || line === undefined) throw new Error(`bench in ${root} failed (${p.exitCode}):\n${text}\n${p.stderr.toString()}`);
    return JSON.parse(line.slice('figures '.length)) as Figures;
  };
  console.log(`A = ${rootA}\nB = ${rootB}\n${rounds} rounds, A then B in each`);
  const a: Figures[] = [];
  const b: Figures[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(runOnce(rootA));
    b.push(runOnce(rootB));
    console.log(`round ${i + 1}: A ${JSON.stringify(a[i])}\n         B ${JSON.stringify(b[i])}`);
  }
  for (const w of Object.keys(a[0])) {
    for (const k of ['wallMs', 'childCpuMs', 'serverCpuMs'] as const) {
      const ratio = median(a.map((x, i) => b[i][w][k] / x[w][k]));
      console.log(`${w} ${k}: A median ${median(a.map((x) => x[w][k]))}, B median ${median(b.map((x) => x[w][k]))}; B/A per round, median ${ratio.toFixed(2)}×`);
    }
  }
  console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
}
