// The same bot load against two real server processes started side by side: one keeping everything
// in DATA_DIR's SQLite, one with DATABASE_URL on a fresh PostgreSQL database (users, accounts,
// sessions, orders, fills in PostgreSQL; market data still in its DATA_DIR's SQLite).
//
// Each server is `bun <ROOT>/src/main.ts` on 127.0.0.1 (bench/servers.ts; ROOT=<checkout>, bench/root.ts), default settings but
// a two-week synthetic span, no warm playground children, and the shared test runner cache. The bench
// logs in with the demo user's API key, starts an NQ 1 m replay on 2025-03-03 and then, one call at a
// time and alternating the two servers (which goes first flips every round, so both see the same
// noise), times: Replay/step (steps 1), Order/place (a buy limit far below the market) and
// Order/cancel of that order. WARMUP rounds first, untimed.
//
// Printed per call type and backend: the client-observed median and p90 (fetch to parsed JSON), the
// server's own time for the same requests (the `ms=` of its request log line, which the production
// server writes for every request: no response header carries a timing), the PostgreSQL/SQLite
// ratio of the medians, and each server process's CPU per timed call (PostgreSQL's own backend
// processes are not in it).
//
// PostgreSQL: BENCH_PG_ADMIN_URL (default: the tests' throwaway server, test/support/postgres.ts) must allow
// CREATE DATABASE; the bench makes a database of its own and drops it at the end.
//
// Run: ./node_modules/.bin/bun bench/store-backends.bench.ts        (BENCH_N=300 timed rounds by default)

import { SQL } from 'bun';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '../test/support/postgres.ts';
import { type ServerProcess, spawnServer } from './servers.ts';
import { median, percentile } from './support.ts';

const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = 20;
// Without BENCH_PG_ADMIN_URL, the tests' throwaway server (test/support/postgres.ts, a harness): its
// `postgres` database, beside the fresh one it makes.
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? adminOf(await freshDatabase());

function adminOf(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}
const RUNNER_CACHE = process.env.RUNNER_CACHE_DIR ?? join(tmpdir(), 'replaydesk-test-runner');
const SERVER_ENV = {
  DATA_START_DATE: '2025-02-24',
  DATA_END_DATE: '2025-03-07',
  RUNNER_POOL_SIZE: '0',
  RUNNER_CACHE_DIR: RUNNER_CACHE,
  LOG_REQUESTS: 'true',
};
const KINDS = ['Replay/step', 'Order/place', 'Order/cancel'] as const;
type Kind = (typeof KINDS)[number];
const FAR_LIMIT_PRICE = 1000; // NQ trades near 20,000: a buy limit here never fills

interface Backend {
  name: 'SQLite' | 'PostgreSQL';
  server: ServerProcess;
  dir: string;
  token: string;
  accountId: number;
  contractId: string;
  ms: Record<Kind, number[]>;
}

/** One POST to the current family; throws unless the envelope says success. Answers the body and the client's ms. */
async function call(b: { server: ServerProcess; token?: string }, path: string, body: unknown): Promise<{ r: any; ms: number }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (b.token) headers.authorization = `Bearer ${b.token}`;
  const t0 = performance.now();
  const res = await fetch(`${b.server.base}/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const r = (await res.json()) as any;
  const ms = performance.now() - t0;
  if (!r.success) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(r).slice(0, 300)}`);
  return { r, ms };
}

/** User + system CPU of a process so far, in ms (Linux /proc; 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Waits until the process used under 5% of a core over a second (start-up work done), at most 90 s. */
async function waitIdle(pid: number): Promise<void> {
  const deadline = Date.now() + 90_000;
  let before = cpuMs(pid);
  while (Date.now() < deadline) {
    await Bun.sleep(1000);
    const now = cpuMs(pid);
    if (now - before < 50) return;
    before = now;
  }
}

async function waitForLog(server: ServerProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(server.log())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in the server log:\n${server.log().slice(-2000)}`);
    await Bun.sleep(100);
  }
}

async function startBackend(name: Backend['name'], env: Record<string, string>): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-backends-'));
  const server = await spawnServer({ env: { ...SERVER_ENV, ...env, DATA_DIR: dir }, timeoutMs: 120_000 });
  await waitForLog(server, /playground runner (ready|failed)/, 300_000);
  const creds = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
  const { r: login } = await call({ server }, 'Auth/loginKey', { userName: creds.userName, apiKey: creds.apiKey });
  const b = { server, token: login.token as string };
  const { r: start } = await call(b, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-07', timeframe: '1m' });
  const ms = { 'Replay/step': [], 'Order/place': [], 'Order/cancel': [] };
  return { name, server, dir, token: b.token, accountId: start.accountId, contractId: start.instrument.contractId, ms };
}

/** One round on one server: a step, then a far limit order placed and cancelled. */
async function round(b: Backend, timed: boolean): Promise<void> {
  const step = await call(b, 'Replay/step', { accountId: b.accountId, steps: 1 });
  const place = await call(b, 'Order/place', { accountId: b.accountId, contractId: b.contractId, type: 1, side: 0, size: 1, limitPrice: FAR_LIMIT_PRICE });
  const cancel = await call(b, 'Order/cancel', { accountId: b.accountId, orderId: place.r.orderId });
  if (!timed) return;
  b.ms['Replay/step'].push(step.ms);
  b.ms['Order/place'].push(place.ms);
  b.ms['Order/cancel'].push(cancel.ms);
}

/** The server's own ms for the last `n` requests to each path, from its request log lines. */
function serverMs(b: Backend, n: number): Record<Kind, number[]> {
  const out = { 'Replay/step': [], 'Order/place': [], 'Order/cancel': [] } as Record<Kind, number[]>;
  for (const m of b.server.log().matchAll(/ INFO request method=POST path=\/api\/sim\/(\S+) status=\d+ ms=([\d.]+)/g)) {
    if (m[1] in out) out[m[1] as Kind].push(Number(m[2]));
  }
  for (const k of KINDS) out[k] = out[k].slice(-n);
  return out;
}

function report(backends: Backend[], cpu: number[]): void {
  const [lite, pg] = backends;
  const server = backends.map((b) => serverMs(b, N));
  const f = (x: number) => x.toFixed(2).padStart(7);
  console.log(`${N} timed rounds per server after ${WARMUP} warm-up rounds, one call at a time, the servers alternating`);
  console.log(`${'call'.padEnd(13)} ${'backend'.padEnd(10)}  client median     p90   server median     p90`);
  for (const k of KINDS) {
    for (const [i, b] of backends.entries()) {
      console.log(`${k.padEnd(13)} ${b.name.padEnd(10)}  ${f(median(b.ms[k]))} ms ${f(percentile(b.ms[k], 0.9))} ms  ${f(median(server[i][k]))} ms ${f(percentile(server[i][k], 0.9))} ms`);
    }
    const clientRatio = median(pg.ms[k]) / median(lite.ms[k]);
    const serverRatio = median(server[1][k]) / median(server[0][k]);
    console.log(`${k.padEnd(13)} PG/SQLite   client ${clientRatio.toFixed(2)}×, server ${serverRatio.toFixed(2)}×`);
  }
  for (const [i, b] of backends.entries()) {
    console.log(`server process CPU per timed round (step + place + cancel), ${b.name}: ${((cpu[i] / N) * 1000).toFixed(0)} µs`);
  }
}

/** Commits + rollbacks so far in the database (the PostgreSQL server's cumulative statistics). */
async function transactions(admin: SQL, dbName: string): Promise<number> {
  const [row] = await admin.unsafe(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = '${dbName}'`);
  return Number(row.n);
}

async function main(): Promise<void> {
  const admin = new SQL(ADMIN_URL, { max: 1 });
  const dbName = `replaydesk_bench_${process.pid}_${Date.now().toString(36)}`;
  await admin.unsafe(`CREATE DATABASE ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const backends: Backend[] = [];
  try {
    // One after the other: the first may build the runner cache the second then reads.
    backends.push(await startBackend('SQLite', {}));
    backends.push(await startBackend('PostgreSQL', { DATABASE_URL: url.toString() }));
    await Promise.all(backends.map((b) => waitIdle(b.server.proc.pid)));
    for (let i = 0; i < WARMUP; i++) for (const b of i % 2 ? backends.toReversed() : backends) await round(b, false);
    const cpu0 = backends.map((b) => cpuMs(b.server.proc.pid));
    const xact0 = await transactions(admin, dbName);
    for (let i = 0; i < N; i++) for (const b of i % 2 ? backends.toReversed() : backends) await round(b, true);
    const cpu = backends.map((b, i) => cpuMs(b.server.proc.pid) - cpu0[i]);
    report(backends, cpu);
    await Bun.sleep(1500); // PostgreSQL publishes its counters at most once a second
    const xacts = (await transactions(admin, dbName)) - xact0;
    console.log(`PostgreSQL transactions per timed round (step + place + cancel): ${(xacts / N).toFixed(1)} (pg_stat_database commits + rollbacks)`);
  } finally {
    for (const b of backends) {
      b.server.proc.kill('SIGTERM');
      await b.server.proc.exited;
      rmSync(b.dir, { recursive: true, force: true });
    }
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.close();
  }
}

await main();
