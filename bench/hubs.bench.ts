// ## Hubs
// The real-time hubs (/hubs/market, /hubs/user) under load, on this machine (2 cores shared by the
// server process and the load generator: every figure is for both on one small box, and each phase
// prints the machine's load average and CPU pressure at its start, since other work on the box shows).
// A/B: ROOT=<checkout> runs the server child (bench/hubs-server.ts) on that checkout's src/
// (bench/root.ts; the load speaks HTTP and SignalR only); `npm run bench -- --baseline <commit>
// --only hubs` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/hubs.bench.ts   (about 2 minutes; prints figures, asserts nothing;
// BENCH_PHASES=2 runs one phase). Part of `npm run bench` (bench/run-all.ts).
//
// Processes: this file is the load generator and the orchestrator. Each phase starts its own server
// process (bench/hubs-server.ts: src/main.ts's app, services, transport and hub authentication, on
// 127.0.0.1 port 0, over a temp DATA_DIR holding 44 days of generated NQ 1 s bars and 5 of ES, MNQ and
// MES, stored as imported chunks, and the bench's Pro users), drives it over HTTP and WebSocket
// (bench/hubs-client.ts), asks it over Bun's IPC channel for what it measured inside, and stops it by
// PID (SIGTERM). Measured inside the server:
// - event-loop lag: a setInterval(10 ms); lag = the gap between ticks minus 10 ms;
// - memory: process.memoryUsage() after Bun.gc(true): RSS and JS heap in use;
// - frame latency: the transport's onFrameWritten hook, per event: from being queued (synchronously,
//   when the commit of a playback tick publishes its bars; since the deferred fan-out, from the commit
//   handing its events over, service/events/fanout.ts, so the wait for the fan-out counts) to the
//   WebSocket message carrying it being handed to the socket (the kernel, or Bun's send buffer);
// - Replay/step server time: fetch entry to Response, with the step's synchronous publishing;
// - CPU time of the process (process.cpuUsage), and the connections with output waiting.
//
// 1. Idle: 1,000 market-hub connections (498 raw negotiate, 498 raw direct, 4 @microsoft/signalr,
//    2 of each style; 10 users), each subscribed to NQ quotes; no session plays, so only pings flow.
//    Keep-alive is shortened to 2 s (BENCH_KEEPALIVE_MS, a transport option) so a 10 s idle window
//    sees pings; the sweep then runs every 500 ms instead of 1 s. Raw clients ping every 15 s, as the
//    official client does. A 1,001st connection must get 503 (hubConnectionsMax).
// 2. Playback: 50 users, each with one NQ 1 s session playing at speed 50 (100 bars/s each, 5,000
//    bars/s in all), a market connection (quotes, trades) and a user connection (orders, positions,
//    trades); 5 users' pairs use @microsoft/signalr, the others raw clients. Every 2 s every session
//    places a market order with 20-tick brackets (user events from placements and from fills inside
//    bars). Window: 25 s. The slow consumer is a raw market connection of a 51st user in its own
//    process, stopped (SIGSTOP) so its socket is never read; that user plays 4 sessions (NQ, ES, MNQ,
//    MES) subscribed to quotes, trades, depth and ReplayDeskBars each, because a stopped reader first
//    fills the kernel's socket buffers (~4 MiB, mostly the server's send queue) before the transport
//    sees any backpressure, which one session's feed takes over a minute to do. Its sessions play alone
//    until the kernel takes no more (read from /proc/net/tcp and the transport's backlog), then the
//    window starts; when the server closes the connection the process is continued and reports what
//    it finally read. Figures for the window, and split at the moment of the close.
// 3. Replay/step (HTTP, 100 × 1 m NQ bars a step): sessions A and B of two users, identical orders;
//    B has 10 market (quotes, trades, depth) and 10 user (accounts, orders, positions, trades)
//    subscribers (raw clients). Steps alternate A, B; after each B step the bench waits until every
//    market subscriber holds the step's 100 trade batches, so B's fan-out does not land in A's step.
//    Client and server medians, and the ratio B / A.

import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubConnection } from '@microsoft/signalr';
import type { Subprocess } from 'bun';
import type { Instrument } from '../src/domain/instrument.ts';
import { type BenchServer, inBatches, login, officialHub, post, quantile, range, RawHub, spread, startServer } from './hubs-client.ts';
import type { Backlog, FrameFigures, LagFigures, MemoryFigures } from './hubs-server.ts';
import { storeGeneratedDays } from './support.ts';
import { load } from './root.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { openInstance } = await load<typeof import('../src/instance.ts')>('src/instance.ts');
const { dayToDateString } = await load<typeof import('../src/lib/iso-time.ts')>('src/lib/iso-time.ts');

const NQ = findInstrument('NQ') as Instrument;
const START_DAY = daysFromCivil(2025, 3, 3); // a Monday
const STORE_FIRST_DAY = START_DAY - 3;
const STORE_LAST_DAY = START_DAY + 40;
const START_DATE = dayToDateString(START_DAY);

const IDLE_CONNECTIONS = 1000;
const IDLE_OFFICIAL = 4;
const IDLE_USERS = 10;
const IDLE_KEEPALIVE_MS = 2000;
const IDLE_MS = 10_000;
const BASELINE_MS = 3000;

const PLAY_SESSIONS = 50;
const PLAY_OFFICIAL = 5;
const PLAY_SPEED = 50;
const PLAY_MS = 25_000;
const PREROLL_MAX_MS = 60_000;
/** The slow consumer's user plays one session on each (its connection gets four feeds, so it fills in seconds). */
const SLOW_SYMBOLS = ['NQ', 'ES', 'MNQ', 'MES'];
const ORDER_EVERY_MS = 2000;
const SETTLE_S = 2;

const STEP_SUBSCRIBERS = 10;
const STEP_WARMUP = 20;
const STEP_TIMED = 200;
const STEP_BARS = 100;
const ORDER_EVERY_STEPS = 10;

type Keys = Map<string, string>; // email → API key
const email = (group: string, k: number) => `${group}${k}@bench.example.com`;
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-hubs-'));
  const t0 = performance.now();
  try {
    const keys = await prepare(dir);
    console.log(`machine: ${navigator.hardwareConcurrency} cores, shared by the server process and this load generator (separate processes)`);
    // BENCH_PHASES=1,3 runs some phases only (while working on one).
    const phases = (process.env.BENCH_PHASES ?? '1,2,3').split(',');
    if (phases.includes('1')) await idlePhase(dir, keys);
    if (phases.includes('2')) await playPhase(dir, keys);
    if (phases.includes('3')) await stepPhase(dir, keys);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`total wall time ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** Generated NQ days as imported chunks, and the bench's Pro users (their API keys). */
async function prepare(dir: string): Promise<Keys> {
  const t0 = performance.now();
  const s = await openInstance(defaultConfig({ dataDir: dir, dataStartDate: '2020-01-06', dataEndDate: '2020-01-07' }));
  const r = storeGeneratedDays(s, NQ, STORE_FIRST_DAY, STORE_LAST_DAY);
  for (const symbol of SLOW_SYMBOLS.filter((x) => x !== 'NQ')) storeGeneratedDays(s, findInstrument(symbol) as Instrument, STORE_FIRST_DAY, START_DAY + 1);
  const keys: Keys = new Map();
  const groups: [string, number][] = [['idle', IDLE_USERS], ['play', PLAY_SESSIONS], ['slow', 1], ['step', 2]];
  for (const [group, n] of groups) {
    for (const k of range(n)) {
      const created = await s.users.create({ email: email(group, k), plan: 'pro' });
      if (!created.ok) throw new Error(`cannot create ${email(group, k)}`);
      keys.set(email(group, k), created.value.apiKey);
    }
  }
  await s.shutdown();
  s.db.close();
  console.log(
    `data: ${r.stored.toLocaleString('en-US')} NQ 1 s bars (${dayToDateString(STORE_FIRST_DAY)}..${dayToDateString(STORE_LAST_DAY)}), ` +
      `${SLOW_SYMBOLS.filter((x) => x !== 'NQ').join(', ')} to ${dayToDateString(START_DAY + 1)}, ` +
      `and ${keys.size} Pro users, prepared in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return keys;
}

// ---- 1. Idle connections. ----

async function idlePhase(dir: string, keys: Keys): Promise<void> {
  const srv = await startServer(dir, { BENCH_KEEPALIVE_MS: String(IDLE_KEEPALIVE_MS) });
  const raw: RawHub[] = [];
  const official: HubConnection[] = [];
  try {
    const tokens = await Promise.all(range(IDLE_USERS).map((k) => login(srv.base, email('idle', k), keys.get(email('idle', k))!)));
    const contractId = (await post<{ contracts: { id: string }[] }>(srv.base, 'Contract/search', tokens[0], { searchText: 'NQ', live: false })).contracts[0].id;
    const load0 = machineLoad();
    await srv.ask({ cmd: 'lag-start' });
    await Bun.sleep(BASELINE_MS);
    const baselineLag = await srv.ask<LagFigures>({ cmd: 'lag-stop' });
    const mem0 = await srv.ask<MemoryFigures>({ cmd: 'memory' });

    const rawCount = IDLE_CONNECTIONS - IDLE_OFFICIAL;
    const opened0 = performance.now();
    raw.push(
      ...(await inBatches(range(rawCount), 50, async (i) => {
        const c = await RawHub.open(srv.base, '/hubs/market', tokens[i % IDLE_USERS], i % 2 === 1);
        await c.invoke('SubscribeContractQuotes', contractId);
        return c;
      })),
    );
    for (const i of range(IDLE_OFFICIAL)) {
      const { conn } = await officialHub(srv.base, '/hubs/market', tokens[i % IDLE_USERS], i % 2 === 1, [], null);
      await conn.invoke('SubscribeContractQuotes', contractId);
      official.push(conn);
    }
    const openedMs = performance.now() - opened0;
    const open = await srv.ask<number>({ cmd: 'hub-connections' });
    const refused = await upgradeStatus(srv.base, `/hubs/market?access_token=${tokens[0]}`);
    const mem1 = await srv.ask<MemoryFigures>({ cmd: 'memory' });

    for (const c of raw) c.pings = 0;
    await srv.ask({ cmd: 'lag-start' });
    const cpu0 = await srv.ask<number>({ cmd: 'cpu' });
    await Bun.sleep(IDLE_MS);
    const cpu = ((await srv.ask<number>({ cmd: 'cpu' })) - cpu0) / IDLE_MS;
    const lag = await srv.ask<LagFigures>({ cmd: 'lag-stop' });
    const mem2 = await srv.ask<MemoryFigures>({ cmd: 'memory' });
    const pings = raw.map((c) => c.pings);
    const stillOpen = await srv.ask<number>({ cmd: 'hub-connections' });
    reportIdle({ rawCount, load0, openedMs, open, refused, mem0, mem1, mem2, pings, stillOpen, baselineLag, lag, cpu });
  } finally {
    for (const c of raw) c.close();
    await Promise.all(official.map((c) => c.stop().catch(() => {})));
    await srv.stop();
  }
}

function reportIdle(r: {
  rawCount: number;
  load0: string;
  openedMs: number;
  open: number;
  refused: number;
  mem0: MemoryFigures;
  mem1: MemoryFigures;
  mem2: MemoryFigures;
  pings: number[];
  stillOpen: number;
  baselineLag: LagFigures;
  lag: LagFigures;
  cpu: number;
}): void {
  const { rawCount, load0, openedMs, open, refused, mem0, mem1, mem2, pings, stillOpen, baselineLag, lag } = r;
  console.log(`\n1. ${IDLE_CONNECTIONS.toLocaleString('en-US')} idle market-hub connections (${rawCount / 2} raw negotiate + ${rawCount / 2} raw direct + ${IDLE_OFFICIAL} @microsoft/signalr; keep-alive shortened to ${IDLE_KEEPALIVE_MS} ms)`);
  console.log(`   machine at the start: ${load0}`);
  console.log(`   opened, handshaken and subscribed in ${(openedMs / 1000).toFixed(1)} s (50 at a time); server counts ${open} open; a 1,001st upgrade: HTTP ${refused}`);
  const per = (a: number, b: number) => `${((b - a) / IDLE_CONNECTIONS / 1024).toFixed(1)} KiB`;
  console.log(`   server memory per connection (after GC, delta / ${IDLE_CONNECTIONS}): RSS ${per(mem0.rssBytes, mem1.rssBytes)}, JS heap ${per(mem0.heapUsedBytes, mem1.heapUsedBytes)}`);
  console.log(`     (RSS ${mib(mem0.rssBytes)} → ${mib(mem1.rssBytes)} open → ${mib(mem2.rssBytes)} after ${IDLE_MS / 1000} s idle; heap ${mib(mem0.heapUsedBytes)} → ${mib(mem1.heapUsedBytes)} → ${mib(mem2.heapUsedBytes)})`);
  console.log(`   pings received per raw connection in ${IDLE_MS / 1000} s: median ${quantile(pings, 0.5)}, min ${Math.min(...pings)}, max ${Math.max(...pings)} (expected ~${IDLE_MS / IDLE_KEEPALIVE_MS}); still open: ${stillOpen}`);
  console.log(`   server event-loop lag (a setInterval of 10 ms in the server process; lag = gap − 10 ms), no connections (${BASELINE_MS / 1000} s): ${spread(baselineLag.lagMs)}`);
  console.log(`   server event-loop lag, ${IDLE_CONNECTIONS.toLocaleString('en-US')} idle (${IDLE_MS / 1000} s): ${spread(lag.lagMs)}; server CPU ${(r.cpu * 100).toFixed(1)}% of one core`);
}

/** The HTTP status a WebSocket upgrade request for `path` gets (raw TCP: fetch cannot ask for an upgrade). */
async function upgradeStatus(base: string, path: string): Promise<number> {
  const url = new URL(base);
  let text = '';
  const { promise, resolve } = Promise.withResolvers<number>();
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: {
      data(_s, chunk) {
        text += chunk.toString();
        const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (m) resolve(Number(m[1]));
      },
      close() {
        resolve(0);
      },
    },
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const status = await promise;
  socket.end();
  return status;
}

// ---- 2. Playback. ----

interface PlaySession {
  email: string;
  token: string;
  accountId: number;
  contractId: string;
}

/** Events counted at the clients by kind and by second of the window. */
class Tally {
  startMs = Number.POSITIVE_INFINITY;
  readonly bySecond: Map<string, number>[] = [];
  add(target: string): void {
    const now = performance.now();
    if (now < this.startMs) return;
    const sec = Math.floor((now - this.startMs) / 1000);
    let m = this.bySecond[sec];
    if (!m) this.bySecond[sec] = m = new Map();
    const kind = target === 'GatewayQuote' ? 'quotes' : target === 'GatewayTrade' ? 'trades' : 'user';
    m.set(kind, (m.get(kind) ?? 0) + 1);
  }
  /** Events a second of `kind` ('all' for every kind) over the whole seconds in [fromS, toS). */
  rate(kind: string, fromS: number, toS: number): number {
    let n = 0;
    for (let s = fromS; s < toS; s++) {
      for (const [k, v] of this.bySecond[s] ?? []) if (kind === 'all' || k === kind) n += v;
    }
    return toS > fromS ? n / (toS - fromS) : Number.NaN;
  }
}

const MARKET_TARGETS = ['GatewayQuote', 'GatewayTrade'];
const USER_TARGETS = ['GatewayUserOrder', 'GatewayUserPosition', 'GatewayUserTrade'];

interface Played {
  sessions: PlaySession[];
  tally: Tally;
  raw: RawHub[];
  official: HubConnection[];
  /** Per session: GatewayTrade batches its market client has (one per played bar). */
  tradeCounts: (() => number)[];
}

async function playPhase(dir: string, keys: Keys): Promise<void> {
  const srv = await startServer(dir, {});
  const p: Played = { sessions: [], tally: new Tally(), raw: [], official: [], tradeCounts: [] };
  let slow: Subprocess | null = null;
  let everyone: PlaySession[] = [];
  try {
    await connectPlayers(srv, keys, p);
    const slowUser = await startSlowSessions(srv, keys);
    const slowClient = startSlowClient(srv, slowUser);
    slow = (await slowClient.ready).proc;
    slow.kill('SIGSTOP');
    let slowClosed: SlowClosed | null = null;
    srv.onSlowClosed = (serverMs, fields) => {
      const kernel = kernelQueued(slow!.pid, srv);
      slow?.kill('SIGCONT');
      slowClosed = { continuedWallMs: Date.now(), parentMs: performance.now(), serverMs, fields, kernel };
    };
    const preroll = await fillBuffers(srv, slowUser, slow.pid);
    everyone = [...p.sessions, ...slowUser.sessions];

    const load0 = machineLoad();
    const trades0 = p.tradeCounts.map((f) => f());
    const serverStartMs = await srv.ask<number>({ cmd: 'frames-start' });
    await srv.ask({ cmd: 'lag-start' });
    const cpu0 = { server: await srv.ask<number>({ cmd: 'cpu' }), client: cpuMs() };
    p.tally.startMs = performance.now();
    await Promise.all(p.sessions.map((x) => post(srv.base, 'Replay/play', x.token, { accountId: x.accountId, speed: PLAY_SPEED })));
    const orders = placeOrdersEvery(srv, p.sessions);
    await Bun.sleep(PLAY_MS);
    const endMs = performance.now();
    const played = p.tradeCounts.map((f, i) => f() - trades0[i]);
    const cpu = { server: (await srv.ask<number>({ cmd: 'cpu' })) - cpu0.server, client: cpuMs() - cpu0.client };
    // The lag window ends first: handing over the frame samples (about 250,000 numbers over IPC) holds
    // the server's loop for 200–270 ms, the bench's own work, which the window used to end with.
    const lags = await srv.ask<LagFigures>({ cmd: 'lag-stop' });
    const frames = await srv.ask<FrameFigures>({ cmd: 'frames-stop' });
    const placed = await orders.stop();
    await Promise.all(everyone.map((x) => post(srv.base, 'Replay/pause', x.token, { accountId: x.accountId })));
    if (slowClosed === null) slow.kill('SIGCONT');
    const slowReport = await Promise.race([slowClient.done, Bun.sleep(20_000).then(() => null)]);

    const windowMs = endMs - p.tally.startMs;
    reportPlay({ tally: p.tally, serverStartMs, windowMs, placed, frames, lags, played, preroll, slowClosed, slowReport, cpu, load0 });
    await Promise.all(everyone.map((x) => post(srv.base, 'Replay/end', x.token, { accountId: x.accountId })));
  } finally {
    for (const c of p.raw) c.close();
    await Promise.all(p.official.map((c) => c.stop().catch(() => {})));
    if (slow) {
      slow.kill('SIGCONT');
      slow.kill('SIGKILL');
    }
    await srv.stop();
  }
}

/** Logs in the play users, starts their sessions and connects their market and user clients. */
async function connectPlayers(srv: BenchServer, keys: Keys, p: Played): Promise<void> {
  p.sessions = await inBatches(range(PLAY_SESSIONS), 10, async (k): Promise<PlaySession> => {
    const e = email('play', k);
    const token = await login(srv.base, e, keys.get(e)!);
    const x = await post(srv.base, 'Replay/start', token, { instrumentSymbol: 'NQ', startDate: START_DATE, timeframe: '1s' });
    return { email: e, token, accountId: x.accountId, contractId: x.instrument.contractId };
  });
  const onEvent = (t: string) => p.tally.add(t);
  await inBatches(p.sessions, 10, async (x, k) => {
    const negotiate = k % 2 === 1;
    if (k < PLAY_OFFICIAL) {
      const m = await officialHub(srv.base, '/hubs/market', x.token, negotiate, MARKET_TARGETS, onEvent);
      const u = await officialHub(srv.base, '/hubs/user', x.token, negotiate, USER_TARGETS, onEvent);
      await m.conn.invoke('SubscribeContractQuotes', x.contractId);
      await m.conn.invoke('SubscribeContractTrades', x.contractId);
      for (const method of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await u.conn.invoke(method, x.accountId);
      p.official.push(m.conn, u.conn);
      p.tradeCounts.push(() => m.counts.get('GatewayTrade') ?? 0);
      return;
    }
    const m = await RawHub.open(srv.base, '/hubs/market', x.token, negotiate);
    const u = await RawHub.open(srv.base, '/hubs/user', x.token, negotiate);
    m.onEvent = u.onEvent = onEvent;
    await m.invoke('SubscribeContractQuotes', x.contractId);
    await m.invoke('SubscribeContractTrades', x.contractId);
    for (const method of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await u.invoke(method, x.accountId);
    p.raw.push(m, u);
    p.tradeCounts.push(() => m.count('GatewayTrade'));
  });
}

/** The slow consumer's user: one 1 s session on each of SLOW_SYMBOLS. */
async function startSlowSessions(srv: BenchServer, keys: Keys): Promise<SlowUser> {
  const e = email('slow', 0);
  const token = await login(srv.base, e, keys.get(e)!);
  const sessions: PlaySession[] = [];
  for (const symbol of SLOW_SYMBOLS) {
    const x = await post(srv.base, 'Replay/start', token, { instrumentSymbol: symbol, startDate: START_DATE, timeframe: '1s' });
    sessions.push({ email: e, token, accountId: x.accountId, contractId: x.instrument.contractId });
  }
  return { email: e, token, sessions };
}

interface SlowUser {
  email: string;
  token: string;
  sessions: PlaySession[];
}

/**
 * Plays the slow user's sessions alone until Bun buffers output for the stopped client: the kernel
 * takes no more (for a reader that does not read it holds a few MiB, mostly the server's send queue,
 * before the transport sees any backpressure). The window then starts with the transport's own bound
 * (hubQueueBytesMax) left to fill; the slow user's sessions keep playing into it.
 */
async function fillBuffers(srv: BenchServer, slow: SlowUser, slowPid: number): Promise<Preroll> {
  const t0 = performance.now();
  await Promise.all(slow.sessions.map((x) => post(srv.base, 'Replay/play', x.token, { accountId: x.accountId, speed: PLAY_SPEED })));
  let backlog: Backlog | null = null;
  while (performance.now() - t0 < PREROLL_MAX_MS) {
    await Bun.sleep(100);
    const all = await srv.ask<Backlog[]>({ cmd: 'backlog' });
    backlog = all.find((b) => b.email === slow.email && b.bufferedBytes > 0) ?? null;
    if (backlog) break;
  }
  return { ms: performance.now() - t0, kernel: kernelQueued(slowPid, srv), backlog };
}

interface Preroll {
  ms: number;
  kernel: KernelQueued | null;
  backlog: Backlog | null;
}

interface KernelQueued {
  /** Bytes in the slow client's receive queue (arrived, not read). */
  clientRx: number;
  /** Bytes in the server's send queue to it (written by Bun, not yet taken by the client's kernel). */
  serverTx: number;
}

/** The slow client's socket queues from /proc/net/tcp (its socket inode from /proc/<pid>/fd); null when not found. */
function kernelQueued(pid: number, srv: BenchServer): KernelQueued | null {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    }
    const serverPort = Number(new URL(srv.base).port);
    const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
    const port = (addr: string) => Number.parseInt(addr.split(':')[1], 16);
    const client = rows.find((r) => inodes.has(r[9]) && port(r[2]) === serverPort);
    if (!client) return null;
    const server = rows.find((r) => port(r[1]) === serverPort && port(r[2]) === port(client[1]));
    const queue = (r: string[] | undefined, i: 0 | 1) => (r ? Number.parseInt(r[4].split(':')[i], 16) : 0);
    return { clientRx: queue(client, 1), serverTx: queue(server, 0) };
  } catch {
    return null;
  }
}

/** The machine's 1-minute load average and CPU pressure (the share of time some task waited for a CPU). */
/** Lag ticks late by over 50 ms (stalls): how many, and the share of such a gap the server was on a CPU (median). */
function lateTicks(l: LagFigures): string {
  const cpu = l.cpuMs;
  if (!cpu) return 'stalls over 50 ms: (no CPU time per tick from this server)';
  const late = l.lagMs.map((lag, i) => ({ gap: lag + 10, cpu: cpu[i], atS: (l.atMs[i] - l.atMs[0]) / 1000 })).filter((x) => x.gap - 10 > 50);
  if (late.length === 0) return 'stalls over 50 ms: none';
  const share = quantile(late.map((x) => x.cpu / x.gap), 0.5);
  const when = late.slice(0, 5).map((x) => `${x.atS.toFixed(1)} s`).join(', ');
  return `stalls over 50 ms: ${late.length}; the server process was on a CPU for a median ${(share * 100).toFixed(0)}% of such a gap (below 100%: waiting for a core); ending at ${when}${late.length > 5 ? ', …' : ''} into the window`;
}

function machineLoad(): string {
  let pressure = '';
  try {
    const m = /some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    if (m) pressure = `, CPU pressure ${m[1]}% (avg10)`;
  } catch {
    // not Linux, or no PSI
  }
  return `load average ${loadavg()[0].toFixed(1)}${pressure}`;
}

/** CPU time of this process, ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Every ORDER_EVERY_MS, a market order with 20-tick brackets on every session (sides alternate). */
function placeOrdersEvery(srv: BenchServer, sessions: PlaySession[]) {
  let round = 0;
  let placed = 0;
  const failures: string[] = [];
  const inFlight: Promise<unknown>[] = [];
  const timer = setInterval(() => {
    const side = round++ % 2;
    for (const x of sessions) {
      const p = post(srv.base, 'Order/place', x.token, {
        accountId: x.accountId, contractId: x.contractId, type: 2, side, size: 1,
        stopLossBracket: { ticks: 20 }, takeProfitBracket: { ticks: 20 },
      }).then(
        () => placed++,
        (e) => failures.push(String(e)),
      );
      inFlight.push(p);
    }
  }, ORDER_EVERY_MS);
  return {
    async stop(): Promise<{ placed: number; failures: string[] }> {
      clearInterval(timer);
      await Promise.all(inFlight);
      return { placed, failures };
    },
  };
}

interface SlowReport {
  /** Date.now() when the first message after subscribing arrived, and when the socket closed. */
  firstAfterReadyWallMs: number;
  closedWallMs: number;
  bytes: number;
  events: number;
  closeRecord: string | null;
  closeCode: number | null;
}

/** The slow consumer in its own process (this file with --slow-client), so it can be stopped. */
function startSlowClient(srv: BenchServer, x: SlowUser) {
  let ready!: (v: { proc: Subprocess }) => void;
  let done!: (r: SlowReport) => void;
  const readyP = new Promise<{ proc: Subprocess }>((r) => (ready = r));
  const doneP = new Promise<SlowReport>((r) => (done = r));
  const proc: Subprocess = Bun.spawn([process.execPath, import.meta.path, '--slow-client'], {
    env: {
      ...process.env, BENCH_BASE: srv.base, BENCH_TOKEN: x.token,
      BENCH_ACCOUNTS: x.sessions.map((y) => y.accountId).join(','), BENCH_CONTRACTS: x.sessions.map((y) => y.contractId).join(','),
    },
    stdin: 'ignore',
    stdout: 'inherit',
    stderr: 'inherit',
    ipc(m: { kind: 'ready' } | ({ kind: 'done' } & SlowReport)) {
      if (m.kind === 'ready') ready({ proc });
      else done(m);
    },
  });
  return { ready: readyP, done: doneP };
}

async function slowClient(): Promise<void> {
  const env = process.env as Record<string, string>;
  const c = await RawHub.open(env.BENCH_BASE, '/hubs/market', env.BENCH_TOKEN, false);
  for (const contractId of env.BENCH_CONTRACTS.split(',')) {
    for (const method of ['SubscribeContractQuotes', 'SubscribeContractTrades', 'SubscribeContractMarketDepth']) await c.invoke(method, contractId);
  }
  for (const accountId of env.BENCH_ACCOUNTS.split(',')) await c.invoke('SubscribeReplayBars', Number(accountId));
  c.firstMessageWallMs = 0;
  process.send?.({ kind: 'ready' });
  await c.closed;
  let events = 0;
  for (const n of c.counts.values()) events += n;
  process.send?.({
    kind: 'done', firstAfterReadyWallMs: c.firstMessageWallMs, closedWallMs: c.closedWallMs, bytes: c.bytes, events, closeRecord: c.closeRecord, closeCode: c.closeCode,
  } satisfies { kind: 'done' } & SlowReport);
  await Bun.sleep(50); // let the message leave
  process.exit(0);
}

interface SlowClosed {
  /** Date.now() when the parent continued the slow client. */
  continuedWallMs: number;
  parentMs: number;
  serverMs: number;
  fields: Record<string, unknown>;
  kernel: KernelQueued | null;
}

function reportPlay(r: {
  tally: Tally;
  /** The window's start on the server's clock. */
  serverStartMs: number;
  windowMs: number;
  placed: { placed: number; failures: string[] };
  frames: FrameFigures;
  lags: LagFigures;
  played: number[];
  preroll: Preroll;
  slowClosed: SlowClosed | null;
  slowReport: SlowReport | null;
  cpu: { server: number; client: number };
  load0: string;
}): void {
  const { tally } = r;
  const seconds = Math.floor(r.windowMs / 1000);
  const barsPerS = r.played.map((n) => n / (r.windowMs / 1000));
  const pct = (ms: number) => `${((ms / r.windowMs) * 100).toFixed(0)}%`;
  console.log(`\n2. ${PLAY_SESSIONS} sessions playing NQ 1 s bars at speed ${PLAY_SPEED} for ${PLAY_MS / 1000} s, each with a market (quotes, trades) and a user (orders, positions, trades) connection (${PLAY_OFFICIAL} of each with @microsoft/signalr), + 1 slow consumer`);
  console.log(`   CPU over the window: server ${pct(r.cpu.server)} of one core, load generator ${pct(r.cpu.client)}; machine at the start: ${r.load0}`);
  console.log(`   bars played per session per second (GatewayTrade batches counted at its market client): median ${quantile(barsPerS, 0.5).toFixed(1)}, min ${Math.min(...barsPerS).toFixed(1)} (target ${2 * PLAY_SPEED})`);
  console.log(`   orders placed during play: ${r.placed.placed} (${r.placed.failures.length} failed${r.placed.failures.length ? `: ${r.placed.failures[0].slice(0, 160)}` : ''})`);
  const perSecond = range(seconds).map((s) => Math.round(tally.rate('all', s, s + 1)));
  console.log(
    `   events delivered (counted at the clients), ${seconds} whole seconds: ${Math.round(tally.rate('all', 0, seconds)).toLocaleString('en-US')}/s ` +
      `(quotes ${Math.round(tally.rate('quotes', 0, seconds))}/s, trade batches ${Math.round(tally.rate('trades', 0, seconds))}/s, user events ${Math.round(tally.rate('user', 0, seconds))}/s)`,
  );
  console.log(`     per second: ${perSecond.join(' ')}`);
  console.log(`   frame latency, event queued → its message written (server, ${r.frames.messages.toLocaleString('en-US')} messages): ${spread(r.frames.latenciesMs)}`);
  console.log(`   server event-loop lag (setInterval 10 ms drift): ${spread(r.lags.lagMs)}`);
  console.log(`   ${lateTicks(r.lags)}`);
  const kernel = (k: KernelQueued | null) => (k ? `${kib(k.clientRx)} in its receive queue + ${kib(k.serverTx)} in the server's send queue` : 'kernel queues not found');
  const pre = r.preroll;
  console.log(
    `   slow consumer (its own user, ${SLOW_SYMBOLS.length} sessions ${SLOW_SYMBOLS.join(', ')} at speed ${PLAY_SPEED}, quotes, trades, depth and ReplayDeskBars of each): ` +
      `stopped before play; its sessions played alone for ${(pre.ms / 1000).toFixed(1)} s until the kernel took no more ` +
      `(${kernel(pre.kernel)}; the transport then held ${pre.backlog ? kib(pre.backlog.queuedBytes + pre.backlog.bufferedBytes) : '?'})`,
  );
  if (r.slowClosed === null) {
    console.log(`   slow consumer: NOT closed by the server within the window`);
  } else {
    const at = r.slowClosed;
    const closeS = (at.parentMs - tally.startMs) / 1000;
    console.log(
      `   slow consumer: closed by the server ${closeS.toFixed(1)} s into the window (transport: queued ${kib(Number(at.fields.queuedBytes))} + ` +
        `Bun-buffered ${kib(Number(at.fields.bufferedBytes))}; kernel: ${kernel(at.kernel)})`,
    );
    const rep = r.slowReport;
    const after = (wallMs: number | undefined) => (wallMs ? `${((wallMs - Number(at.fields.wallMs)) / 1000).toFixed(2)} s` : '?');
    console.log(
      `     continued ${after(at.continuedWallMs)} after the close, its client read ${kib(rep?.bytes ?? 0)} (${rep?.events ?? 0} events; ` +
        `first at ${after(rep?.firstAfterReadyWallMs)}, socket closed at ${after(rep?.closedWallMs)}), ending with the close message ` +
        `${rep?.closeRecord ?? '(none)'} and WebSocket close code ${rep?.closeCode ?? '?'}`,
    );
    // The first SETTLE_S seconds (50 sessions starting at once) are left out of the "before".
    const cut = Math.floor(closeS);
    const from = r.serverStartMs + SETTLE_S * 1000;
    const split = (xs: number[], atMs: number[]) => [
      xs.filter((_, i) => atMs[i] >= from && atMs[i] < at.serverMs),
      xs.filter((_, i) => atMs[i] >= at.serverMs),
    ];
    const [lagBefore, lagAfter] = split(r.lags.lagMs, r.lags.atMs);
    const [latBefore, latAfter] = split(r.frames.latenciesMs, r.frames.writtenAtMs);
    const p = (xs: number[], q: number) => quantile(xs, q).toFixed(2);
    console.log(
      `   the others, before the close (s ${SETTLE_S}–${cut}) vs after (s ${cut + 1}–${seconds}): events ${Math.round(tally.rate('all', SETTLE_S, cut)).toLocaleString('en-US')}/s vs ` +
        `${Math.round(tally.rate('all', cut + 1, seconds)).toLocaleString('en-US')}/s; frame latency p50 ${p(latBefore, 0.5)} vs ${p(latAfter, 0.5)} ms, ` +
        `p99 ${p(latBefore, 0.99)} vs ${p(latAfter, 0.99)} ms; server lag p99 ${p(lagBefore, 0.99)} vs ${p(lagAfter, 0.99)} ms`,
    );
    console.log(`     (before the close the server also presents and queues the slow user's 4 feeds for it; after, nobody listens to them)`);
  }
  if (r.frames.closedLatenciesMs.length > 0) {
    console.log(`   (frame latencies of closed connections, left out above: ${spread(r.frames.closedLatenciesMs)})`);
  }
}

// ---- 3. Replay/step with and without subscribers. ----

interface StepSession {
  tag: 'A' | 'B';
  token: string;
  accountId: number;
  contractId: string;
}

async function stepPhase(dir: string, keys: Keys): Promise<void> {
  const srv = await startServer(dir, {});
  const subscribers: RawHub[] = [];
  try {
    const [a, b] = await Promise.all(
      range(2).map(async (k): Promise<StepSession> => {
        const e = email('step', k);
        const token = await login(srv.base, e, keys.get(e)!);
        const x = await post(srv.base, 'Replay/start', token, {
          instrumentSymbol: 'NQ', startDate: START_DATE, endDate: dayToDateString(STORE_LAST_DAY), timeframe: '1m',
        });
        return { tag: k === 0 ? 'A' : 'B', token, accountId: x.accountId, contractId: x.instrument.contractId };
      }),
    );
    const market: RawHub[] = [];
    for (const k of range(STEP_SUBSCRIBERS)) {
      const m = await RawHub.open(srv.base, '/hubs/market', b.token, k % 2 === 1);
      for (const method of ['SubscribeContractQuotes', 'SubscribeContractTrades', 'SubscribeContractMarketDepth']) await m.invoke(method, b.contractId);
      const u = await RawHub.open(srv.base, '/hubs/user', b.token, k % 2 === 1);
      await u.invoke('SubscribeAccounts');
      for (const method of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await u.invoke(method, b.accountId);
      market.push(m);
      subscribers.push(m, u);
    }
    const load0 = machineLoad();
    const cpu0 = await srv.ask<number>({ cmd: 'cpu' });
    const t0 = performance.now();
    const r = await runSteps(srv, a, b, market);
    const cpu = ((await srv.ask<number>({ cmd: 'cpu' })) - cpu0) / (performance.now() - t0);
    const [serverA, serverB] = (await srv.ask<number[][]>({ cmd: 'step-times', tags: ['A', 'B'] })).map((xs) => xs.slice(STEP_WARMUP));
    reportSteps({ ...r, serverA, serverB, subscribers, load0, cpu });
    for (const x of [a, b]) await post(srv.base, 'Replay/end', x.token, { accountId: x.accountId });
  } finally {
    for (const c of subscribers) c.close();
    await srv.stop();
  }
}

/**
 * Steps A and B in turn; every ORDER_EVERY_STEPS a market order with 40-tick brackets on both
 * (untimed). After a B step, waits until every market subscriber holds the step's trade batches.
 */
async function runSteps(srv: BenchServer, a: StepSession, b: StepSession, market: RawHub[]) {
  const client = { A: [] as number[], B: [] as number[] };
  const delivered: number[] = [];
  let bSteps = 0;
  for (const k of range(STEP_WARMUP + STEP_TIMED)) {
    for (const x of [a, b]) {
      if (k % ORDER_EVERY_STEPS === 0) {
        await post(srv.base, 'Order/place', x.token, {
          accountId: x.accountId, contractId: x.contractId, type: 2, side: (k / ORDER_EVERY_STEPS) % 2, size: 1,
          stopLossBracket: { ticks: 40 }, takeProfitBracket: { ticks: 40 },
        });
      }
      const t0 = performance.now();
      const r = await post(srv.base, 'Replay/step', x.token, { accountId: x.accountId, steps: STEP_BARS }, { 'x-bench-tag': x.tag });
      const ms = performance.now() - t0;
      if (r.barsProcessed !== STEP_BARS) throw new Error(`Replay/step played ${r.barsProcessed}`);
      if (x === b) {
        const want = ++bSteps * STEP_BARS;
        const deadline = performance.now() + 10_000;
        while (market.some((m) => m.count('GatewayTrade') < want)) {
          if (performance.now() > deadline) {
            const seen = market.map((m) => `${m.count('GatewayTrade')}${m.closeRecord ? ` ${m.closeRecord}` : ''}`).join(', ');
            throw new Error(`subscribers did not get step ${bSteps}'s trades within 10 s (want ${want}; have ${seen})`);
          }
          await Bun.sleep(0);
        }
        if (k >= STEP_WARMUP) delivered.push(performance.now() - t0);
      }
      if (k >= STEP_WARMUP) client[x.tag].push(ms);
    }
  }
  return { client, delivered };
}

function reportSteps(r: {
  client: { A: number[]; B: number[] };
  serverA: number[];
  serverB: number[];
  delivered: number[];
  subscribers: RawHub[];
  load0: string;
  cpu: number;
}): void {
  const { client, serverA, serverB, delivered, subscribers } = r;
  const med = (xs: number[]) => quantile(xs, 0.5);
  const events = new Map<string, number>();
  for (const c of subscribers) for (const [t, n] of c.counts) events.set(t, (events.get(t) ?? 0) + n);
  const steps = STEP_WARMUP + STEP_TIMED;
  console.log(`\n3. Replay/step, ${STEP_BARS} × 1 m NQ bars a step, ${STEP_TIMED} timed steps per session (after ${STEP_WARMUP}), A and B alternating, market orders with 40-tick brackets every ${ORDER_EVERY_STEPS} steps on both`);
  console.log(`   machine at the start: ${r.load0}; server CPU over the steps ${(r.cpu * 100).toFixed(0)}% of one core`);
  console.log(`   B's ${STEP_SUBSCRIBERS} market + ${STEP_SUBSCRIBERS} user subscribers received per step (all of them): ${[...events].map(([t, n]) => `${t} ${(n / steps).toFixed(1)}`).join(', ')}`);
  console.log(`   client latency   A (no subscribers): median ${med(client.A).toFixed(2)} ms, p99 ${quantile(client.A, 0.99).toFixed(2)} ms`);
  console.log(`                    B (${2 * STEP_SUBSCRIBERS} subscribers):  median ${med(client.B).toFixed(2)} ms, p99 ${quantile(client.B, 0.99).toFixed(2)} ms;  ratio of medians B/A ${(med(client.B) / med(client.A)).toFixed(2)}`);
  console.log(`   server time      A: median ${med(serverA).toFixed(2)} ms, p99 ${quantile(serverA, 0.99).toFixed(2)} ms`);
  console.log(`                    B: median ${med(serverB).toFixed(2)} ms, p99 ${quantile(serverB, 0.99).toFixed(2)} ms;  ratio of medians B/A ${(med(serverB) / med(serverA)).toFixed(2)}`);
  console.log(`   B step sent → all ${STEP_SUBSCRIBERS} market subscribers hold its ${STEP_BARS} trade batches: median ${med(delivered).toFixed(2)} ms, p99 ${quantile(delivered, 0.99).toFixed(2)} ms`);
}

// Last, so every constant above is initialized before a phase runs.
if (process.argv[2] === '--slow-client') await slowClient();
else await main();
