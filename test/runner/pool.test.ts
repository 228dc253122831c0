// The runner pool's bursts (runner/host/pool.ts): while children handed out are running, the pool
// keeps one loaded successor for each, up to `burst`, so an optimisation's next combinations do not
// wait for a spawn. Real children (Deno + Pyodide from the shared test cache).
import { afterAll, expect, it } from 'bun:test';
import { RunnerPool } from '../../runner/host/pool.ts';
import type { RunnerChild } from '../../runner/host/child.ts';
import { RUNNER_TEST_CACHE, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const pools: RunnerPool[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
}, SANDBOX_HOOK_MS);

async function handOutTwo(burst: number | undefined): Promise<{ pool: RunnerPool; a: RunnerChild; b: RunnerChild }> {
  const pool = new RunnerPool({ cacheDir: RUNNER_TEST_CACHE, size: 1, burst });
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
