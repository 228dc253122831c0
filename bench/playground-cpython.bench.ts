// The playground's sandbox against plain CPython on the same work (issue 32's target: the loop's CPU
// within 2× of CPython): the SMA crossover template over ~500 k NQ 1 m bars.
// - Playground: the server's Execution driving a real runner child (Deno + Pyodide), as
//   bench/playground-child.bench.ts does; CPU of the child (hand-out to kill) and of the server.
// - CPython: `python3 bench/reference/sma_cross_cpython.py` over the same bars (written to a file as
//   float64 columns), running the template's own source with the playground's own `indicators`;
//   its whole process's CPU (interpreter start included) and its loop's.
// - The same reference in Pyodide under Deno, without the sandbox and the harness
//   (bench/reference/pyodide-run.mjs): what CPython compiled to WebAssembly costs on this very loop,
//   the bound under the playground's own overhead (with the sandbox's V8 flags).
// Trade counts are printed side by side: the same rules give the same number of round trips.
//
// Run: ./node_modules/.bin/bun bench/playground-cpython.bench.ts
//   RUNS=n      timed runs of each side (default 3), after one untimed playground run (rollups)
//   START/END   the span (default 2024-06-03 .. 2025-12-31, about 500 k bars)
//   ROOT=dir    the server and runner code of another checkout (bench/root.ts); the reference stays this one's
//   PYTHON=...  the CPython binary (default python3)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverCpuMs, trackChildren } from './playground-cpu.ts';
import { ROOT } from './root.ts';
import { benchServices, benchUser, executionOf } from './playground-setup.ts';
import { median } from './support.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const START = process.env.START ?? '2024-06-03';
const END = process.env.END ?? '2025-12-31';
const PYTHON = process.env.PYTHON ?? 'python3';
const PARAMS = { fast: 10, slow: 30, size: 1 };

const { dayBatch, firstDay, lastDay } = await import(join(ROOT, 'src/service/playground/feed.ts'));
const { denoBinary, pyodideDir } = await import(join(ROOT, 'runner/host/sandbox.ts'));
const { largestFunctionIndex } = await import(join(ROOT, 'runner/host/wasm-hot.ts'));
// The sandbox's own V8 tuning (runner/host/sandbox.ts): the interpreter loop optimised as it loads.
const HOT = largestFunctionIndex(new Uint8Array(await Bun.file(join(pyodideDir(), 'pyodide.asm.wasm')).arrayBuffer()));

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-cpython-bars-'));
const { s, close } = await benchServices('rd-bench-cpython-');
const userId = await benchUser(s);
const pool = s.runner();
await pool.warm();
const children = trackChildren(pool);
const body = { instrument: 'NQ', startDate: START, endDate: END, timeframe: '1m', templateId: 'sma_cross', params: PARAMS };
const planned = await s.runs.plan(userId, body);
if (!planned.ok) throw new Error(JSON.stringify(planned.error));
const p = planned.value;

/** The run's bars as the playground feeds them, as float64 columns (prices, not ticks). */
function writeBars(path: string): number {
  const span = { inst: p.inst, tf: p.tf, ctx: [], startS: p.startS, endS: p.endS };
  const rows: number[][] = [[], [], [], [], [], []];
  const tick = p.inst.tickSize as number;
  for (let day = firstDay(span); day <= lastDay(span); day++) {
    const b = dayBatch(s.bars, span, day);
    if (b === null) continue;
    const r = b.run;
    for (let i = 0; i < r.length; i++) {
      rows[0].push(r.time[i]);
      rows[1].push(r.open[i] * tick);
      rows[2].push(r.high[i] * tick);
      rows[3].push(r.low[i] * tick);
      rows[4].push(r.close[i] * tick);
      rows[5].push(r.volume[i]);
    }
  }
  const n = rows[0].length;
  const out = new Float64Array(6 * n);
  rows.forEach((col, k) => out.set(col, k * n));
  writeFileSync(path, new Uint8Array(out.buffer));
  return n;
}

async function playground(): Promise<{ bars: number; trades: number; childCpuMs: number; serverCpuMs: number }> {
  const exec = executionOf(s, userId, p);
  const child = await pool.acquire();
  const c0 = serverCpuMs();
  await exec.run(child);
  const server = serverCpuMs() - c0;
  if (exec.status !== 'completed') throw new Error(`${exec.status}: ${exec.error}`);
  return { bars: exec.barsDone, trades: exec.ledger.closedTrades.length, childCpuMs: children.take()[0], serverCpuMs: server };
}

interface Reference {
  bars: number;
  trades: number;
  processCpuS: number | null;
  loopCpuS: number;
  loopWallS: number;
}

const refArgs = () => [String(p.inst.tickSize), String(PARAMS.fast), String(PARAMS.slow), String(PARAMS.size)];

/** The reference under native CPython. */
function cpython(barsPath: string): Reference {
  const script = join(import.meta.dir, 'reference', 'sma_cross_cpython.py');
  const r = Bun.spawnSync([PYTHON, script, join(import.meta.dir, '..'), barsPath, ...refArgs()]);
  if (r.exitCode !== 0) throw new Error(`${PYTHON} failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}

/** The same reference in Pyodide under Deno (no sandbox, no harness): the interpreter's own cost. */
function pyodide(barsPath: string): Reference {
  const script = join(import.meta.dir, 'reference', 'pyodide-run.mjs');
  const r = Bun.spawnSync([denoBinary(), 'run', '--allow-read', `--v8-flags=--max-semi-space-size=2,--wasm-eager-tier-up-function=${HOT}`, script, pyodideDir(), join(import.meta.dir, '..'), barsPath, ...refArgs()]);
  const line = r.stdout.toString().split('\n').find((l) => l.startsWith('{'));
  if (r.exitCode !== 0 || line === undefined) throw new Error(`pyodide reference failed: ${r.stderr.toString()}`);
  return JSON.parse(line);
}

const barsPath = join(dir, 'bars.f64');
const n = writeBars(barsPath);
const version = Bun.spawnSync([PYTHON, '--version']).stdout.toString().trim();
console.log(`NQ 1 m ${START} .. ${END}: ${n} bars; sma_cross ${JSON.stringify(PARAMS)}; ${version}`);
await playground(); // rollups, caches
const pg: Awaited<ReturnType<typeof playground>>[] = [];
const py: Reference[] = [];
const wasm: Reference[] = [];
for (let i = 0; i < RUNS; i++) {
  pg.push(await playground());
  py.push(cpython(barsPath));
  wasm.push(pyodide(barsPath));
}
const pgChild = median(pg.map((r) => r.childCpuMs));
const pgServer = median(pg.map((r) => r.serverCpuMs));
const pyProcess = median(py.map((r) => (r.processCpuS ?? 0) * 1000));
const pyLoop = median(py.map((r) => r.loopCpuS * 1000));
const pyLoopWall = median(py.map((r) => r.loopWallS * 1000));
const wasmLoopWall = median(wasm.map((r) => r.loopWallS * 1000));
console.log(`playground: ${pg[0].bars} bars, ${pg[0].trades} round trips; medians of ${RUNS}: child CPU ${Math.round(pgChild)} ms, server CPU ${Math.round(pgServer)} ms`);
console.log(`CPython:    ${py[0].bars} bars, ${py[0].trades} round trips; medians of ${RUNS}: process CPU ${Math.round(pyProcess)} ms, its loop ${Math.round(pyLoop)} ms`);
console.log(`Pyodide:    ${wasm[0].bars} bars, ${wasm[0].trades} round trips; the same reference loop (no sandbox, no harness): wall ${Math.round(wasmLoopWall)} ms against native ${Math.round(pyLoopWall)} ms, ${(wasmLoopWall / pyLoopWall).toFixed(2)}×`);
console.log(`ratio: sandbox child / CPython process ${(pgChild / pyProcess).toFixed(2)}×; child + server / CPython process ${((pgChild + pgServer) / pyProcess).toFixed(2)}×`);
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
await close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
