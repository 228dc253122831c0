// Server CPU per request, one kind of call at a time (issue 32, "Server CPU per request"): what one
// Status/ping, Replay/step (1 bar of a 1 m session), Order/place (a buy limit far below the market)
// and Order/cancel cost the server process, user + system CPU from /proc, over loopback. One server
// process, ROOT's own `src/main.ts` (bench/servers.ts; ROOT=<checkout>, bench/root.ts) on 127.0.0.1
// over a temp DATA_DIR with a five-week synthetic span; its users are made before it starts through
// ROOT's services (as latency-under-load.bench.ts), then only HTTP is spoken, so any commit since the
// previous release answers. 10 client loops in this process (10 sessions of one Pro user each) run
// each kind in turn: WARMUP calls each untimed, then CALLS each timed (the server's CPU sampled
// before and after). Orders: each loop places 40 working orders, then cancels them, over and over,
// the places and the cancels timed apart (their window is one: the orders phase). The load
// generator shares the machine's 2 cores, so the requests a second say little; the CPU per request is
// the figure (the /proc clock counts 10 ms ticks: a phase is thousands of calls). Each phase's window
// is printed as epoch ms when BENCH_SERVER_FLAGS (as latency-under-load.bench.ts) profile the server.
// A/B: `npm run bench -- --baseline <commit> --only request-cost`.
// Run: ./node_modules/.bin/bun bench/request-cost.bench.ts (CALLS=1000 per loop by default)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, ROOT } from './root.ts';
import { spawnServer } from './servers.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { openInstance } = await load<typeof import('../src/instance.ts')>('src/instance.ts');

const LOOPS = 10;
const CALLS = Number(process.env.CALLS ?? 1000);
const WARMUP = 50;
const FAR_LIMIT_PRICE = 1000;
const SERVER_ENV = { DATA_START_DATE: '2025-02-03', DATA_END_DATE: '2025-03-07', LOG_REQUESTS: 'false', RUNNER_POOL_SIZE: '0' };

/** User + system CPU of a process so far, in ms (Linux /proc; 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function call(base: string, token: string | null, path: string, body: unknown): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = (await (await fetch(`${base}/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as any;
  if (!r.success) throw new Error(`${path}: ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

async function makeUsers(dir: string, n: number): Promise<{ email: string; apiKey: string }[]> {
  const s = await openInstance(defaultConfig({ dataDir: dir, dataStartDate: SERVER_ENV.DATA_START_DATE, dataEndDate: SERVER_ENV.DATA_END_DATE }));
  const out: { email: string; apiKey: string }[] = [];
  for (let i = 0; i < n; i++) {
    const created = await s.users.create({ email: `cost${i}@bench.example.com`, plan: 'pro' });
    if (!created.ok) throw new Error('cannot create a user');
    out.push({ email: `cost${i}@bench.example.com`, apiKey: created.value.apiKey });
  }
  await s.shutdown();
  s.db.close();
  return out;
}

interface Loop {
  token: string;
  accountId: number;
  contractId: string;
  orders: number[];
}

type Kind = { name: string; run: (base: string, l: Loop) => Promise<unknown> };

const PING: Kind = { name: 'Status/ping', run: (base) => fetch(`${base}/api/sim/Status/ping`).then((r) => r.text()) };
const STEP: Kind = { name: 'Replay/step', run: (base, l) => call(base, l.token, 'Replay/step', { accountId: l.accountId, steps: 1 }) };
const PLACE: Kind = {
  name: 'Order/place',
  run: async (base, l) => l.orders.push((await call(base, l.token, 'Order/place', { accountId: l.accountId, contractId: l.contractId, type: 1, side: 0, size: 1, limitPrice: FAR_LIMIT_PRICE })).orderId),
};
const CANCEL: Kind = { name: 'Order/cancel', run: (base, l) => call(base, l.token, 'Order/cancel', { accountId: l.accountId, orderId: l.orders.pop() }) };
/** Working orders a loop holds at most: an account's margin takes 50 NQ orders. */
const ORDERS_HELD = 40;

/** `n` calls of `kind` on every loop at once: the server's CPU ms for them. */
async function timed(base: string, pid: number, loops: Loop[], kind: Kind, n: number): Promise<number> {
  const cpu0 = cpuMs(pid);
  await Promise.all(loops.map(async (l) => { for (let i = 0; i < n; i++) await kind.run(base, l); }));
  return cpuMs(pid) - cpu0;
}

function report(name: string, cpuMsSum: number, n: number, wallMs: number, epoch0: number): void {
  const window = process.env.BENCH_SERVER_FLAGS ? `; window epoch ms ${epoch0} ${Date.now()}` : '';
  console.log(`${name.padEnd(14)} server CPU ${((cpuMsSum * 1000) / n).toFixed(0)} µs a request  (${n} requests, ${(n / (wallMs / 1000)).toFixed(0)}/s, load ${loadavg()[0].toFixed(2)}${window})`);
}

async function phase(base: string, pid: number, loops: Loop[], kind: Kind): Promise<void> {
  await timed(base, pid, loops, kind, WARMUP);
  const t0 = { wall: performance.now(), epoch: Date.now() };
  const cpu = await timed(base, pid, loops, kind, CALLS);
  report(kind.name, cpu, CALLS * LOOPS, performance.now() - t0.wall, t0.epoch);
}

/** Orders placed ORDERS_HELD at a time on every loop, then cancelled, each half timed on its own. */
async function orders(base: string, pid: number, loops: Loop[]): Promise<void> {
  await timed(base, pid, loops, PLACE, ORDERS_HELD);
  await timed(base, pid, loops, CANCEL, ORDERS_HELD);
  const t0 = { wall: performance.now(), epoch: Date.now() };
  const cpu = { place: 0, cancel: 0 };
  const rounds = Math.ceil(CALLS / ORDERS_HELD);
  for (let r = 0; r < rounds; r++) {
    cpu.place += await timed(base, pid, loops, PLACE, ORDERS_HELD);
    cpu.cancel += await timed(base, pid, loops, CANCEL, ORDERS_HELD);
  }
  const n = rounds * ORDERS_HELD * LOOPS;
  const wall = performance.now() - t0.wall;
  report(PLACE.name, cpu.place, n, wall / 2, t0.epoch);
  report(CANCEL.name, cpu.cancel, n, wall / 2, t0.epoch);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-cost-'));
  const users = await makeUsers(dir, LOOPS);
  const flags = process.env.BENCH_SERVER_FLAGS ?? '';
  const server = await spawnServer({ env: { ...SERVER_ENV, DATA_DIR: dir, ...(flags ? { BUN_OPTIONS: flags } : {}) }, timeoutMs: 120_000 });
  try {
    const base = server.base;
    const loops: Loop[] = [];
    for (const u of users) {
      const token = (await call(base, null, 'Auth/loginKey', { userName: u.email, apiKey: u.apiKey })).token;
      const contractId = (await call(base, token, 'Contract/search', { searchText: 'NQ', live: false })).contracts[0].id;
      const r = await call(base, token, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-10', endDate: '2025-03-07', timeframe: '1m' });
      loops.push({ token, accountId: r.accountId, contractId, orders: [] });
    }
    console.log(`Server CPU per request: ${LOOPS} loops × ${CALLS} timed calls a kind (after ${WARMUP} untimed); ROOT ${ROOT}`);
    await phase(base, server.proc.pid, loops, PING);
    await phase(base, server.proc.pid, loops, STEP);
    await orders(base, server.proc.pid, loops);
  } finally {
    server.proc.kill('SIGTERM');
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
