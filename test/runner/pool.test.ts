// The runner pool's bursts (runner/host/pool.ts): while children handed out are running, the pool
// keeps one loaded successor for each, up to `burst`, so an optimisation's next combinations do not
// wait for a spawn. Real children (Deno + Pyodide from the shared test cache).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'bun:test';
import { join } from 'node:path';
import { RunnerPool } from '../../runner/host/pool.ts';
import { PREFAULT_MB, pyodideDir } from '../../runner/host/sandbox.ts';
import { largestFunctionIndex } from '../../runner/host/wasm-hot.ts';
import type { RunnerChild } from '../../runner/host/child.ts';
import { RUNNER_TEST_CACHE, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const pools: RunnerPool[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
}, SANDBOX_HOOK_MS);

/** What the pools of this file logged as failures: a child that died while loading, a refill that failed. */
const failures: string[] = [];
const logError = (msg: string, fields?: Record<string, unknown>) => failures.push(`${msg} ${JSON.stringify(fields)}`);

async function handOutTwo(burst: number | undefined): Promise<{ pool: RunnerPool; a: RunnerChild; b: RunnerChild }> {
  const pool = new RunnerPool({ cacheDir: RUNNER_TEST_CACHE, size: 1, burst, logError });
  pools.push(pool);
  await pool.warm();
  const a = await pool.acquire();
  const b = await pool.acquire();
  return { pool, a, b };
}

it('keeps a loaded successor for each running child, up to burst, and no more once they exit', async () => {
  const { pool, a, b } = await handOutTwo(2);
  expect(pool.counts).toEqual({ busy: 2, waiting: 2 });
  a.kill();
  b.kill();
  await Promise.all([a.exited, b.exited]);
  expect(pool.counts).toEqual({ busy: 0, waiting: 2 });
  // The successors are loaded children: the next two runs take them without a spawn.
  const c = await pool.acquire();
  expect(pool.counts).toEqual({ busy: 1, waiting: 1 });
  c.kill();
  await c.exited;
}, SANDBOX_TEST_MS);

it('without a burst keeps `size` ready however many run', async () => {
  const { pool, a, b } = await handOutTwo(undefined);
  expect(pool.counts).toEqual({ busy: 2, waiting: 1 });
  a.kill();
  b.kill();
  await Promise.all([a.exited, b.exited]);
  expect(pool.counts.busy).toBe(0);
}, SANDBOX_TEST_MS);

it('close ends a child still loading (killed, not waited for): no child of the pool is left alive, and acquire refuses', async () => {
  const pool = new RunnerPool({ cacheDir: RUNNER_TEST_CACHE, size: 1 });
  await pool.warm();
  const a = await pool.acquire();
  // The successor was spawned as `a` was handed out; it cannot have loaded yet (no I/O turn since).
  const loading = pool.loadingPids;
  expect(loading.length).toBe(1);
  a.kill();
  await a.exited;
  await pool.close();
  for (const pid of [...loading, a.pid]) expect(() => process.kill(pid, 0)).toThrow();
  expect(pool.counts).toEqual({ busy: 0, waiting: 0 });
  await expect(pool.acquire()).rejects.toThrow('runner pool closed');
}, SANDBOX_TEST_MS);

/**
 * Waits until a just-spawned child has exec'd its command (between fork and exec its cmdline is still
 * the test runner's, where every flag would read as absent) and answers the command lines of its tree
 * as read then: one read, so a child that ends later (a zombie's cmdline is empty) is still seen as it
 * was spawned. A child never seen exec'd fails with its state and what the pool logged.
 */
async function execd(pid: number): Promise<string[]> {
  for (let i = 0; i < 2000; i++) {
    const seen = readTree(pid);
    if (seen?.some((c) => c.includes('--no-prompt'))) return seen;
    await Bun.sleep(5);
  }
  throw new Error(`child ${pid} never seen exec'd: ${JSON.stringify({ state: procState(pid), failures })}`);
}

/** The command lines of a process tree, or null when a process of it ended while being read. */
function readTree(pid: number): string[] | null {
  try {
    return treeCmdlines(pid);
  } catch {
    return null;
  }
}

function procState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
  } catch {
    return 'gone';
  }
}

/** The command lines of a process tree. */
function treeCmdlines(pid: number): string[] {
  const out = [readFileSync(`/proc/${pid}/cmdline`, 'utf8')];
  for (const k of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ')) if (k.trim() !== '') out.push(...treeCmdlines(Number(k)));
  return out;
}

/** The niceness of every thread in a process tree (bubblewrap runs Deno below the spawned pid). */
function treeNices(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number) => {
    for (const tid of readdirSync(`/proc/${p}/task`)) {
      const stat = readFileSync(`/proc/${p}/task/${tid}/stat`, 'utf8');
      out.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
      for (const k of readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ')) if (k.trim() !== '') visit(Number(k));
    }
  };
  visit(pid);
  return out;
}

it('loads a child ahead of need at nice 19, and every thread of it runs at nice 0 once handed out', async () => {
  const pool = new RunnerPool({ cacheDir: RUNNER_TEST_CACHE, size: 1 });
  pools.push(pool);
  await pool.warm();
  // The pool's child is spawned on the next turn after warm; it loads for a second or more.
  expect(pool.isolation.nice).not.toBeNull(); // CI runs as root, with CAP_SYS_NICE
  for (let i = 0; i < 2000 && pool.loadingPids.length === 0; i++) await Bun.sleep(5);
  const [pid] = pool.loadingPids;
  expect(pid).toBeGreaterThan(0);
  // Until `nice` has set itself and exec'd down to Deno (a process below bubblewrap), the tree is young.
  for (let i = 0; i < 2000 && (treeNices(pid).length < 3 || treeNices(pid)[0] !== 19); i++) await Bun.sleep(5);
  expect(new Set(treeNices(pid))).toEqual(new Set([19]));
  // …and has V8 optimise Python's interpreter loop as it loads (runner/host/wasm-hot.ts).
  const hot = largestFunctionIndex(readFileSync(join(pyodideDir(), 'pyodide.asm.wasm')));
  expect(treeCmdlines(pid).some((c) => c.includes(`--wasm-eager-tier-up-function=${hot}`))).toBe(true);
  // …and maps the memory a long run's heap grows into (its last argument: MB).
  expect(treeCmdlines(pid).some((c) => c.endsWith(`\0${PREFAULT_MB}\0`))).toBe(true);
  const child = await pool.acquire();
  expect(child.pid).toBe(pid);
  const nices = treeNices(child.pid);
  expect(nices.length).toBeGreaterThan(1);
  expect(new Set(nices)).toEqual(new Set([0]));
  child.kill();
  await child.exited;
}, SANDBOX_TEST_MS);

it('spawns a child a run is already waiting for without the load-time optimisation, at normal priority', async () => {
  const pool = new RunnerPool({ cacheDir: RUNNER_TEST_CACHE, size: 0 });
  pools.push(pool);
  await pool.warm();
  const waiting = pool.acquire();
  for (let i = 0; i < 2000 && pool.loadingPids.length === 0; i++) await Bun.sleep(5);
  const [pid] = pool.loadingPids;
  const cmdlines = await execd(pid);
  expect(cmdlines.some((c) => c.includes('--wasm-eager-tier-up-function'))).toBe(false);
  expect(cmdlines.some((c) => c.includes('nice'))).toBe(false);
  expect(cmdlines.some((c) => c.endsWith(`\0${PREFAULT_MB}\0`))).toBe(false);
  const child = await waiting;
  expect(child.pid).toBe(pid);
  child.kill();
  await child.exited;
}, SANDBOX_TEST_MS);

it("optimises the interpreter loop only in the `size` children kept for single runs, not in a burst's", async () => {
  const { pool, a, b } = await handOutTwo(2);
  // Two successors wait (one a running child): the first is the one kept for single runs. Each is
  // read from its own command line, loaded or not; a child that died on the way shows in `failures`.
  // A successor's process exists once the pool's prepared bundle is read (a turn after the refill).
  for (let i = 0; i < 2000 && !pool.waitingChildren.every((w) => w.pid > 0); i++) await Bun.sleep(5);
  const waiting = pool.waitingChildren;
  expect(waiting.map((w) => w.optimise)).toEqual([true, false]);
  const trees: string[][] = [];
  for (const w of waiting) trees.push(await execd(w.pid));
  const seen = trees.map((cmdlines) => {
    return {
      eager: cmdlines.some((c) => c.includes('--wasm-eager-tier-up-function=')),
      // …and maps memory ahead of the run; the burst's does not.
      prefault: cmdlines.some((c) => c.endsWith(`\0${PREFAULT_MB}\0`)),
    };
  });
  expect({ seen, failures }).toEqual({ seen: [{ eager: true, prefault: true }, { eager: false, prefault: false }], failures: [] });
  for (const c of [a, b]) c.kill();
  await Promise.all([a.exited, b.exited]);
}, SANDBOX_TEST_MS);
