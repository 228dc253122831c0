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
