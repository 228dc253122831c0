// A/B of the playground's two speed targets (bench/playground.bench.ts with TARGETS=1): this
// checkout (A) against another (B, for example `git worktree add --detach ../rd-main main`), each
// run in a process of its own, in turn A B A B …, so both see the same drift of a shared machine.
// Prints every round, the medians of each side and the median of the per-round ratios.

import { median } from './support.ts';

interface Targets {
  smaYearMs: number;
  emptyMbarsPerS: number;
  smaChildCpuMs: number;
  smaServerCpuMs: number;
  emptyChildCpuMs: number;
  emptyServerCpuMs: number;
}

const CPU = ['smaChildCpuMs', 'smaServerCpuMs', 'emptyChildCpuMs', 'emptyServerCpuMs'] as const;

function runOnce(benchPath: string, root: string): Targets {
  const p = Bun.spawnSync([process.execPath, benchPath], {
    env: { ...process.env, AB_BASELINE: '', TARGETS: '1', ROOT: root, RUNS: process.env.RUNS ?? '3' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const out = p.stdout.toString();
  const line = out.split('\n').find((l) => l.startsWith('targets '));
  if (p.exitCode !== 0 || line === undefined) throw new Error(`bench in ${root} failed (${p.exitCode}):\n${out}\n${p.stderr.toString()}`);
  return JSON.parse(line.slice('targets '.length)) as Targets;
}

export async function abCompare(benchPath: string, rootA: string, rootB: string, rounds: number): Promise<void> {
  console.log(`A = ${rootA}\nB = ${rootB}\n${rounds} rounds, A then B in each`);
  const a: Targets[] = [];
  const b: Targets[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(runOnce(benchPath, rootA));
    b.push(runOnce(benchPath, rootB));
    console.log(`round ${i + 1}: A ${JSON.stringify(a[i])}  B ${JSON.stringify(b[i])}`);
  }
  const smaRatio = median(a.map((x, i) => b[i].smaYearMs / x.smaYearMs));
  const emptyRatio = median(a.map((x, i) => x.emptyMbarsPerS / b[i].emptyMbarsPerS));
  console.log(`\nsma_cross, NQ 1 m, a year, POST run → completed: A median ${median(a.map((x) => x.smaYearMs))} ms, B median ${median(b.map((x) => x.smaYearMs))} ms; B/A per round, median ${smaRatio.toFixed(2)}×`);
  console.log(`empty on_bar, NQ 1 s, 910,800 bars: A median ${median(a.map((x) => x.emptyMbarsPerS))} M bars/s, B median ${median(b.map((x) => x.emptyMbarsPerS))} M bars/s; A/B per round, median ${emptyRatio.toFixed(2)}×`);
  // CPU time, which the other agents' load inflates far less than wall time.
  for (const k of CPU) {
    const r = median(a.map((x, i) => b[i][k] / x[k]));
    console.log(`${k}: A median ${median(a.map((x) => x[k]))} ms, B median ${median(b.map((x) => x[k]))} ms; B/A per round, median ${r.toFixed(2)}×`);
  }
  console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
}
