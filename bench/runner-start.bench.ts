// A runner child's start: spawn to `ready` (Deno, Pyodide, the snapshot restored), wall and CPU time,
// for a child a run is waiting for (the pool spawns it at normal priority, without the load-time
// optimisation: runner/host/pool.ts). This is what a cold run waits for and what each combination
// of an optimisation's grid pays before its run.
//
// Run: ./node_modules/.bin/bun bench/runner-start.bench.ts
//   ROOT=dir   another checkout's runner (bench/root.ts; a git worktree of any commit), this file's code stays
//   RUNS=n     children started one after another (default 6); prints [wall ms, CPU ms] each and medians

import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { treeCpuMs } from './playground-cpu.ts';
import { ROOT } from './root.ts';
import { median } from './support.ts';

const root = process.argv[2] ? resolve(process.argv[2]) : ROOT;
const RUNS = Number(process.env.RUNS ?? 6);
const { RunnerPool } = await import(join(root, 'runner/host/pool.ts'));
const pool = new RunnerPool({ cacheDir: join(tmpdir(), 'replaydesk-bench-runner'), size: 0 });
await pool.warm(); // the bundle and the snapshot
const out: [number, number][] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const c = await pool.acquire();
  out.push([Math.round(performance.now() - t0), treeCpuMs(c.pid)]);
  c.kill();
  await c.exited;
}
await pool.close();
console.log(`${root}: ${JSON.stringify(out)}`);
console.log(`median wall ${median(out.map((x) => x[0]))} ms, CPU ${median(out.map((x) => x[1]))} ms; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
