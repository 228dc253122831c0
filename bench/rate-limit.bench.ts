// Cost of one rate-limit take, side by side in one run: in memory (SQLite, one node), in the store on
// SQLite, and in the store on PostgreSQL on loopback (a cluster's path: a transaction with an
// advisory lock); plus two PostgreSQL pools (two "nodes") taking for one key at once.
// Run: ./node_modules/.bin/bun bench/rate-limit.bench.ts   (starts its own throwaway PostgreSQL)
// A/B: ROOT=<checkout> (bench/root.ts) measures that checkout's limiter and stores; the throwaway
// PostgreSQL is this checkout's test/support/postgres.ts (a harness, not code under test).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RateLimiter } from '../src/service/rate-limit.ts';
import { freshDatabase, postgresAvailable } from '../test/support/postgres.ts';
import { median, percentile } from './support.ts';
import { load } from './root.ts';

const { memoryRateLimits, sharedRateLimits } = await load<typeof import('../src/service/rate-limit.ts')>('src/service/rate-limit.ts');
const { openPostgres } = await load<typeof import('../src/store/postgres.ts')>('src/store/postgres.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { SqliteSql } = await load<typeof import('../src/store/sql.ts')>('src/store/sql.ts');

const TAKES = 2000;
const KEYS = 200;

async function timeTakes(l: RateLimiter, label: string): Promise<number> {
  const ms: number[] = [];
  const t0 = 1_000_000;
  for (let i = 0; i < TAKES; i++) {
    const start = performance.now();
    await l.take(String(i % KEYS), t0 + i);
    ms.push(performance.now() - start);
  }
  const m = median(ms);
  console.log(`${label.padEnd(34)} median ${(m * 1000).toFixed(1).padStart(7)} µs   p99 ${(percentile(ms, 0.99) * 1000).toFixed(0).padStart(6)} µs`);
  return m;
}

async function main(): Promise<void> {
  const cpu = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ');
  console.log(`${TAKES} takes over ${KEYS} keys, max 20 a minute each; load average ${cpu}`);
  const mem = await timeTakes(memoryRateLimits().limiter('bench', 20, 60_000), 'memory (SQLite default)');
  // A file database of the checkout under test (test/support/sql-backends.ts builds this checkout's).
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-rate-'));
  const lite = new SqliteSql(openDb(join(dir, 'replaydesk.db')));
  const shLite = await timeTakes(sharedRateLimits(lite).limiter('bench', 20, 60_000), 'store, SQLite');
  await lite.close();
  rmSync(dir, { recursive: true, force: true });
  if (!postgresAvailable()) return console.log('PostgreSQL: not available, skipped');
  const url = await freshDatabase();
  const a = await openPostgres(url);
  const b = await openPostgres(url);
  const pg = await timeTakes(sharedRateLimits(a).limiter('bench', 20, 60_000), 'store, PostgreSQL (loopback)');
  console.log(`ratios: store SQLite / memory ${(shLite / mem).toFixed(0)}×, PostgreSQL / memory ${(pg / mem).toFixed(0)}×`);
  // Two nodes, one key, 40 at once, 10 rounds: wall time per round and the admitted count.
  const la = sharedRateLimits(a).limiter('burst', 20, 60_000);
  const lb = sharedRateLimits(b).limiter('burst', 20, 60_000);
  const rounds: number[] = [];
  for (let r = 0; r < 10; r++) {
    const start = performance.now();
    const d = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? la : lb).take(`k${r}`, 1_000_000)));
    rounds.push(performance.now() - start);
    if (d.filter((x) => x.allowed).length !== 20) throw new Error('admitted other than 20');
  }
  console.log(`two nodes, 40 takes of one key at once: median ${median(rounds).toFixed(1)} ms a round of 40, 20 admitted each round`);
  await a.close();
  await b.close();
}

await main();
process.exit(0);
