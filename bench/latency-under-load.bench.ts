// Latency under load (issue 32): what a bot feels while everything else happens at once on one server.
// One server process, ROOT's own `src/main.ts` (bench/servers.ts; ROOT=<checkout>, bench/root.ts) on
// 127.0.0.1 with embedded SQLite in a temp DATA_DIR and a five-week synthetic span. The Pro users are
// made before it starts through ROOT's services on that DATA_DIR (`openInstance`, `users.create`, as
// hubs.bench.ts and the admin CLI do); after that only HTTP and the hubs are spoken, so any commit
// since the previous release answers. For LUL_SECONDS (default 30), at once:
// - 50 bots, async loops in this process, each on its own NQ 1 m replay session: Replay/step (1 bar),
//   Order/place (a buy limit far below the market), Order/cancel, over and over. The spec caps live
//   sessions at 10 per account (limits.replaySessionsPerAccountMax), so the bots are 5 users × 10.
// - 10 sessions playing NQ 1 s at speed 50 (Replay/play), one user each (as hubs.bench.ts), each with an official
//   @microsoft/signalr market connection (quotes, trades) and user connection (orders, positions,
//   trades); every 2 s each places a market order so user events flow. Events carry replay time only, so
//   hub delay is estimated two ways: the gap between two quotes on one connection (speed 50 is 100 bars
//   a second, one due every 10 ms; quotes coalesce), and a quote's lateness: its arrival less its replay
//   time ÷ 100, less the connection's least such value (how far playback plus delivery fell behind the
//   best pace it kept), beside the pace itself (replay time ÷ wall time between the first and last quote).
// - 4 History readers, the longest span the spec allows: 20,000 × 1 m bars built from 1 s bars, each
//   request on a start day and hour its user never used (the cache never answers); History allows 20
//   requests a minute per account, so each reader moves to a fresh user every 20 (LUL_SECONDS × 1.25 users each).
// - one playground run (POST /api/playground/run with the web cookie, started with the window):
//   `sma_cross` over the span's 1 m (about 33,000 bars; POST → completed is printed).
// A pinger in its own process sends `GET /api/sim/Status/ping` every 10 ms: its round trips are the
// server's event-loop lag as a client feels it (as head-of-line.bench.ts). The load average is printed
// before and after. Prints p50, p99, max per kind of call; asserts nothing.
// A/B: `npm run bench -- --baseline <commit> --only latency-under-load` runs this checkout and <commit> in turn.
// BENCH_SERVER_FLAGS (as hubs.bench.ts) go to the server's `bun` through BUN_OPTIONS, so any commit's
// server takes them, e.g. `BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=prof"`; the window's
// start and end are printed as epoch ms, so a profile's samples can be cut to it.
// Run: LUL_SECONDS=20 ./node_modules/.bin/bun bench/latency-under-load.bench.ts

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubConnection } from '@microsoft/signalr';
import { officialHub } from './hubs-client.ts';
import { load, ROOT } from './root.ts';
import { type ServerProcess, spawnServer } from './servers.ts';
import { median, percentile, pingRoundTrips } from './support.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { openInstance } = await load<typeof import('../src/instance.ts')>('src/instance.ts');

const BOT_USERS = 5;
const BOTS_PER_USER = 10;
const PLAYERS = 10;
const PLAY_SPEED = 50;
/** The spec: speed 1 = two bars a second, 50 = 100; on 1 s bars, replay seconds per wall second. */
const BARS_PER_S = 2 * PLAY_SPEED;
const READERS = 4;
const PING_EVERY_MS = 10;
const ORDER_EVERY_MS = 2000;
const FAR_LIMIT_PRICE = 1000;
const PASSWORD = 'bench password 123';
const SERVER_ENV = { DATA_START_DATE: '2025-02-03', DATA_END_DATE: '2025-03-07', LOG_REQUESTS: 'false', RUNNER_CACHE_DIR: join(tmpdir(), 'replaydesk-test-runner') };

type Samples = Map<string, number[]>;
const samples: Samples = new Map();
const refused = new Map<string, number>();
const record = (kind: string, ms: number) => (samples.get(kind) ?? samples.set(kind, []).get(kind)!).push(ms);


async function runPinger(base: string, seconds: number): Promise<void> {
  console.log(JSON.stringify(await pingRoundTrips(`${base}/api/sim/Status/ping`, PING_EVERY_MS, seconds)));
}

/**
 * The bench's Pro users, made before the server starts through ROOT's services on the same DATA_DIR
 * (as hubs.bench.ts and the admin CLI do): a hundred CLI processes would take a minute here. Answers
 * email → API key.
 */
async function makeUsers(dir: string, emails: string[], webEmail: string): Promise<Map<string, string>> {
  const s = await openInstance(defaultConfig({ dataDir: dir, dataStartDate: SERVER_ENV.DATA_START_DATE, dataEndDate: SERVER_ENV.DATA_END_DATE }));
  const keys = new Map<string, string>();
  for (const email of emails) {
    const created = await s.users.create({ email, plan: 'pro', ...(email === webEmail ? { password: PASSWORD } : {}) });
    if (!created.ok) throw new Error(`cannot create ${email}`);
    keys.set(email, created.value.apiKey);
  }
  await s.shutdown();
  s.db.close();
  return keys;
}

async function call(base: string, token: string | null, path: string, body: unknown, kind?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const t0 = performance.now();
  const res = await fetch(`${base}/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const r = (await res.json()) as any;
  const ms = performance.now() - t0;
  if (kind !== undefined) {
    if (r.success) record(kind, ms);
    else refused.set(kind, (refused.get(kind) ?? 0) + 1);
  } else if (!r.success) throw new Error(`${path}: ${res.status} ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

async function loginKey(base: string, email: string, apiKey: string): Promise<string> {
  return (await call(base, null, 'Auth/loginKey', { userName: email, apiKey })).token;
}

interface Session {
  token: string;
  accountId: number;
  contractId: string;
}

async function startSession(base: string, token: string, timeframe: string, contractId: string): Promise<Session> {
  const r = await call(base, token, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-07', timeframe });
  return { token, accountId: r.accountId, contractId };
}

async function contractOf(base: string, token: string): Promise<string> {
  return (await call(base, token, 'Contract/search', { searchText: 'NQ', live: false })).contracts[0].id;
}

async function bot(base: string, s: Session, endMs: number): Promise<void> {
  while (performance.now() < endMs) {
    const st = await call(base, s.token, 'Replay/step', { accountId: s.accountId, steps: 1 }, 'Replay/step');
    if (st.complete === true) return;
    const placed = await call(base, s.token, 'Order/place', { accountId: s.accountId, contractId: s.contractId, type: 1, side: 0, size: 1, limitPrice: FAR_LIMIT_PRICE }, 'Order/place');
    if (placed.success) await call(base, s.token, 'Order/cancel', { accountId: s.accountId, orderId: placed.orderId }, 'Order/cancel');
  }
}

async function reader(base: string, contractId: string, tokens: string[], firstDay: number, stride: number, endMs: number): Promise<void> {
  let n = 0;
  while (performance.now() < endMs) {
    const token = tokens[Math.floor(n / 20)];
    if (token === undefined) return;
    const day = new Date(Date.UTC(2025, 1, 3) + ((firstDay + n * stride) % 10) * 86_400_000).toISOString().slice(0, 10);
    n++;
    // A new start hour per request too, so no two requests of the bench share a cache key.
    const startTime = `${day}T${String(n % 24).padStart(2, '0')}:00:00Z`;
    const r = await call(base, token, 'History/retrieveBars', { contractId, live: false, unit: 2, unitNumber: 1, startTime, endTime: null, limit: 20_000 }, 'History 20,000 × 1 m');
    if (r.success) historyBars.push(r.bars.length);
  }
}

/**
 * Quote lateness on one connection: a quote's wall time less its replay time ÷ BARS_PER_S, less the
 * least such value seen (the best-kept pace), so a session falling behind its speed shows as growing
 * lateness; a constant delay is not seen (a lower bound).
 */
function lateness(): (q: { timestamp?: string }) => void {
  const own: number[] = [];
  const pace = { firstWall: 0, firstReplay: 0, lastWall: 0, lastReplay: 0 };
  lateSeries.push(own);
  paces.push(pace);
  return (q) => {
    const replayMs = Date.parse(q?.timestamp ?? '');
    if (!playing || Number.isNaN(replayMs)) return;
    const now = performance.now();
    if (pace.firstWall === 0) Object.assign(pace, { firstWall: now, firstReplay: replayMs });
    Object.assign(pace, { lastWall: now, lastReplay: replayMs });
    own.push(now - replayMs / BARS_PER_S);
  };
}
const lateSeries: number[][] = [];
const paces: { firstWall: number; firstReplay: number; lastWall: number; lastReplay: number }[] = [];

/** Ten playing sessions (one user each), each with an official market and user connection. */
async function players(base: string, tokens: string[], contractId: string): Promise<{ sessions: Session[]; conns: HubConnection[]; counts: Map<string, number>[] }> {
  const sessions: Session[] = [];
  for (const token of tokens) sessions.push(await startSession(base, token, '1s', contractId));
  const conns: HubConnection[] = [];
  const counts: Map<string, number>[] = [];
  for (const s of sessions) {
    let last = 0;
    const onQuote = (t: string) => {
      if (t !== 'GatewayQuote') return;
      const now = performance.now();
      if (last !== 0 && playing) record('hub quote gap', now - last);
      last = now;
    };
    const m = await officialHub(base, '/hubs/market', s.token, true, ['GatewayQuote', 'GatewayTrade'], onQuote);
    const late = lateness();
    m.conn.on('GatewayQuote', (_id: string, q: { timestamp?: string }) => late(q));
    await m.conn.invoke('SubscribeContractQuotes', s.contractId);
    await m.conn.invoke('SubscribeContractTrades', s.contractId);
    const u = await officialHub(base, '/hubs/user', s.token, true, ['GatewayUserOrder', 'GatewayUserPosition', 'GatewayUserTrade'], null);
    for (const method of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await u.conn.invoke(method, s.accountId);
    conns.push(m.conn, u.conn);
    counts.push(m.counts, u.counts);
  }
  return { sessions, conns, counts };
}
let playing = false;
const historyBars: number[] = [];

async function orderer(base: string, s: Session, endMs: number): Promise<void> {
  let side = 0;
  while (performance.now() < endMs) {
    await Bun.sleep(ORDER_EVERY_MS * (0.5 + Math.random()));
    await call(base, s.token, 'Order/place', { accountId: s.accountId, contractId: s.contractId, type: 2, side, size: 1 }, 'Order/place (market, playing)');
    side = 1 - side;
  }
}

async function playgroundRun(base: string, email: string): Promise<string> {
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify({ email, password: PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  if (!login.ok || cookie === '') return `web login refused: HTTP ${login.status}`;
  const headers = { 'content-type': 'application/json', cookie, origin: base };
  const t0 = performance.now();
  const body = { instrument: 'NQ', startDate: '2025-02-03', endDate: '2025-03-07', timeframe: '1m', templateId: 'sma_cross', params: { fast: 10, slow: 30, size: 1 } };
  const r: any = await (await fetch(`${base}/api/playground/run`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  if (!r.success) return `refused: ${JSON.stringify(r).slice(0, 200)}`;
  for (;;) {
    const x: any = await (await fetch(`${base}/api/playground/executions/${r.executionId}`, { headers })).json();
    if (x.execution?.status !== 'running') return `${x.execution?.status} in ${(performance.now() - t0).toFixed(0)} ms (POST → done, polled every 100 ms)`;
    await Bun.sleep(100);
  }
}

/** User + system CPU of a process so far, in ms (Linux /proc; 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const f = (x: number) => `${x.toFixed(1)} ms`;
const line = (kind: string, xs: number[]) =>
  console.log(`${kind.padEnd(30)} p50 ${f(median(xs))}  p99 ${f(percentile(xs, 0.99))}  max ${f(Math.max(...xs))}  (n=${xs.length}${refused.get(kind) ? `, refused ${refused.get(kind)}` : ''})`);
const load1 = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const WEB_EMAIL = 'web@bench.example.com';

function emailsFor(usersPerReader: number): string[] {
  return [
    ...Array.from({ length: BOT_USERS }, (_, i) => `bot${i}@bench.example.com`),
    ...Array.from({ length: PLAYERS }, (_, i) => `player${i}@bench.example.com`),
    ...Array.from({ length: READERS * usersPerReader }, (_, i) => `reader${i}@bench.example.com`),
    WEB_EMAIL,
  ];
}

async function loginAll(base: string, keys: Map<string, string>): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  const emails = [...keys.keys()];
  for (let i = 0; i < emails.length; i += 10) {
    await Promise.all(emails.slice(i, i + 10).map(async (e) => tokens.set(e, await loginKey(base, e, keys.get(e)!))));
  }
  return tokens;
}

async function main(): Promise<void> {
  const seconds = Number(process.env.LUL_SECONDS ?? 30);
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-lul-'));
  // History allows 20 requests a minute per account; a reader here makes about 12 a second.
  const usersPerReader = Math.ceil((seconds * 25) / 20);
  const keys = await makeUsers(dir, emailsFor(usersPerReader), WEB_EMAIL);
  const flags = process.env.BENCH_SERVER_FLAGS ?? '';
  const server = await spawnServer({ env: { ...SERVER_ENV, DATA_DIR: dir, ...(flags ? { BUN_OPTIONS: flags } : {}) }, timeoutMs: 120_000 });
  let conns: HubConnection[] = [];
  try {
    const base = server.base;
    const tokens = await loginAll(base, keys);
    const t = (e: string) => tokens.get(e)!;
    const contractId = await contractOf(base, t('bot0@bench.example.com'));
    const bots: Session[] = [];
    for (let u = 0; u < BOT_USERS; u++) for (let k = 0; k < BOTS_PER_USER; k++) bots.push(await startSession(base, t(`bot${u}@bench.example.com`), '1m', contractId));
    const p = await players(base, Array.from({ length: PLAYERS }, (_, i) => t(`player${i}@bench.example.com`)), contractId);
    conns = p.conns;
    for (const s of p.sessions) await call(base, s.token, 'Replay/play', { accountId: s.accountId, speed: PLAY_SPEED });
    const load0 = load1();
    console.log(`Latency under load: ${bots.length} bots, ${PLAYERS} sessions playing at speed ${PLAY_SPEED} with ${conns.length} official hub connections, ${READERS} History readers, one playground run; ${seconds} s; ROOT ${ROOT}`);
    playing = true;
    const cpu0 = { server: cpuMs(server.proc.pid), self: cpuMs(process.pid), wall: performance.now() };
    const endMs = performance.now() + seconds * 1000;
    const ping = Bun.spawn([process.execPath, import.meta.path, 'ping', base, String(seconds)], { stdout: 'pipe', stderr: 'inherit' });
    const pg = playgroundRun(base, WEB_EMAIL).catch((e) => `failed: ${e}`);
    const readerTokens = (r: number) => Array.from({ length: usersPerReader }, (_, k) => t(`reader${r * usersPerReader + k}@bench.example.com`));
    await Promise.all([
      ...bots.map((s) => bot(base, s, endMs)),
      ...p.sessions.map((s) => orderer(base, s, endMs)),
      ...Array.from({ length: READERS }, (_, r) => reader(base, contractId, readerTokens(r), r, READERS, endMs)),
    ]);
    playing = false;
    console.log(`window epoch ms ${Math.round(performance.timeOrigin + cpu0.wall)} ${Date.now()}`);
    const cpu = { server: cpuMs(server.proc.pid) - cpu0.server, self: cpuMs(process.pid) - cpu0.self, wall: performance.now() - cpu0.wall };
    const pings = JSON.parse(await new Response(ping.stdout).text()) as number[];
    await ping.exited;
    report(pings, p.counts, load0, await pg);
    const share = (ms: number) => `${((ms / cpu.wall) * 100).toFixed(0)}% of a core`;
    console.log(`CPU over the window: server ${share(cpu.server)}, this load generator ${share(cpu.self)} (2 cores in all)`);
  } finally {
    await Promise.all(conns.map((c) => c.stop().catch(() => {})));
    server.proc.kill('SIGTERM');
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(pings: number[], counts: Map<string, number>[], load0: string, pg: string): void {
  line('Status/ping (every 10 ms)', pings);
  for (const kind of [...samples.keys()].sort()) line(kind, samples.get(kind)!);
  const late = lateSeries.flatMap((xs) => xs.map((x) => x - Math.min(...xs)));
  if (late.length > 0) line('hub quote lateness', late);
  const rates = paces.filter((x) => x.lastWall > x.firstWall).map((x) => (x.lastReplay - x.firstReplay) / (x.lastWall - x.firstWall));
  if (rates.length > 0) console.log(`playback pace (replay time ÷ wall time, quotes seen): median ${median(rates).toFixed(1)}×, min ${Math.min(...rates).toFixed(1)}×, max ${Math.max(...rates).toFixed(1)}× (speed ${PLAY_SPEED}: ${BARS_PER_S}×)`);
  const events = new Map<string, number>();
  for (const c of counts) for (const [k, v] of c) events.set(k, (events.get(k) ?? 0) + v);
  console.log(`hub events received: ${[...events].map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`);
  console.log(`History bars an answer: median ${median(historyBars)}, min ${Math.min(...historyBars)}`);
  console.log(`playground run: ${pg}`);
  console.log(`load average (1, 5, 15 min): before ${load0}, after ${load1()}`);
}

// Last, so every constant above is initialised before a role runs.
const role = process.argv[2] ?? 'main';
if (role === 'ping') await runPinger(process.argv[3], Number(process.argv[4]));
else await main();
