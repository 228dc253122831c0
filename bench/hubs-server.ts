// The server process of bench/hubs.bench.ts: what src/main.ts serves (the app and both hubs on one
// port, the same services, transport and authentication) plus the bench's instruments, which the
// bench (the parent process) drives over Bun's IPC channel. Not a bench by itself (no .bench.ts).
//
// Instruments, all inside this process:
// - event-loop lag: a setInterval of LAG_TICK_MS; each tick records how late it fired (the gap to
//   the previous tick minus LAG_TICK_MS), between `lag-start` and `lag-stop`;
// - memory: `process.memoryUsage()` after `Bun.gc(true)` (RSS and JS heap in use);
// - frame latency: the transport's onFrameWritten hook (src/http/hubs/signalr/transport.ts): per hub
//   event, from being queued (synchronously when the bar's commit publishes it) to the WebSocket
//   message carrying it being handed to the socket; kept per connection so connections the server
//   closed (the slow consumer) can be left out;
// - Replay/step server time: from the request reaching fetch to its Response (with the synchronous
//   publishing of the step's events), per value of the request's `x-bench-tag` header.
// - backlog: connections with output waiting (the transport's queue, Bun's buffer), read from the
//   transport's private fields: bench-only introspection.
// The slow-consumer close (the transport's info log) is forwarded to the parent as it happens.
//
// Environment: DATA_DIR, DATA_START_DATE, DATA_END_DATE as for src/main.ts; BENCH_KEEPALIVE_MS
// (optional) shortens the hubs' keep-alive for the idle phase.

import type { HubConnection } from '../src/http/hubs/signalr/hub.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { limits, loadConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { hubAuthentication } = await load<typeof import('../src/http/hubs/auth.ts')>('src/http/hubs/auth.ts');
const { gatewayHubs } = await load<typeof import('../src/http/hubs/index.ts')>('src/http/hubs/index.ts');
const { createHubTransport } = await load<typeof import('../src/http/hubs/signalr/transport.ts')>('src/http/hubs/signalr/transport.ts');
const { openInstance } = await load<typeof import('../src/instance.ts')>('src/instance.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');

export const LAG_TICK_MS = 10;

/** What the parent asks. */
export type ServerCommand =
  | { cmd: 'memory' }
  | { cmd: 'lag-start' }
  | { cmd: 'lag-stop' }
  | { cmd: 'frames-start' }
  | { cmd: 'frames-stop' }
  | { cmd: 'step-times'; tags: string[] }
  | { cmd: 'hub-connections' }
  | { cmd: 'cpu' }
  | { cmd: 'backlog' };

/** What this process tells the parent: `ready` once listening, `slow-closed` when it happens, `reply` to a command. */
export type ServerMessage =
  | { kind: 'ready'; port: number; pid: number }
  | { kind: 'slow-closed'; atMs: number; fields: Record<string, unknown> }
  | { kind: 'reply'; cmd: ServerCommand['cmd']; value: unknown };

/** Lag samples (ms) and when each was taken (server's performance.now()). */
export interface LagFigures {
  atMs: number[];
  lagMs: number[];
  /** CPU time (all threads) the process had in each tick's gap, ms: far below the gap, it waited for a core. */
  cpuMs?: number[];
}

/** An open connection with output waiting: in the transport's queue, or buffered by Bun (the kernel took no more). */
export interface Backlog {
  id: string;
  hubPath: string;
  email: string;
  queuedBytes: number;
  bufferedBytes: number;
}

export interface MemoryFigures {
  rssBytes: number;
  heapUsedBytes: number;
}

/** Frame latencies (ms) of the connections still open (with when each was written), and of the others. */
export interface FrameFigures {
  latenciesMs: number[];
  writtenAtMs: number[];
  /** Latencies of the connections that are no longer open (closed by the server or the client). */
  closedLatenciesMs: number[];
  messages: number;
}

if (import.meta.main) await serve();

function reply(cmd: ServerCommand['cmd'], value: unknown): void {
  process.send?.({ kind: 'reply', cmd, value } satisfies ServerMessage);
}

async function serve(): Promise<void> {
  const config = loadConfig(process.env);
  const s = await openInstance(config, { serving: true, logError: (m, f) => console.error(m, JSON.stringify(f)) });

  // Frame latency per connection id, while measuring: [written at, latency] pairs.
  let frames: Map<string, number[]> | null = null;
  let messages = 0;
  const onFrameWritten = (queuedAtMs: readonly number[], writtenAtMs: number, conn: HubConnection) => {
    if (frames === null) return;
    let xs = frames.get(conn.id);
    if (!xs) frames.set(conn.id, (xs = []));
    for (const q of queuedAtMs) xs.push(writtenAtMs, writtenAtMs - q);
    messages++;
  };

  const keepAliveMs = process.env.BENCH_KEEPALIVE_MS ? Number(process.env.BENCH_KEEPALIVE_MS) : undefined;
  const hubs = createHubTransport({
    hubs: gatewayHubs(s),
    ...hubAuthentication(s),
    nowMs: () => s.clock.nowMs(),
    logError: (m, f) => console.error(m, JSON.stringify(f ?? {})),
    logInfo: (m, f) => {
      if (m.startsWith('hub client not reading')) {
        process.send?.({ kind: 'slow-closed', atMs: performance.now(), fields: { ...f, wallMs: Date.now() } } satisfies ServerMessage);
      }
    },
    keepAliveMs,
    onFrameWritten,
    // The bench's one user opens every connection (1,000 idle ones): the per-user cap would refuse them.
    connectionsPerUserMax: limits.hubConnectionsMax,
    negotiatedIdsPerUserMax: limits.hubNegotiatedIdsMax,
  });

  // Replay/step time inside the server, per x-bench-tag.
  const stepMs = new Map<string, number[]>();
  const appFetch = createFetch(buildApp(s, silentLogger), silentLogger, false);
  const timedFetch = async (req: Request, srv: Parameters<typeof appFetch>[1]): Promise<Response> => {
    const tag = req.headers.get('x-bench-tag');
    if (tag === null) return appFetch(req, srv);
    const t0 = performance.now();
    const res = await appFetch(req, srv);
    let xs = stepMs.get(tag);
    if (!xs) stepMs.set(tag, (xs = []));
    xs.push(performance.now() - t0);
    return res;
  };

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    maxRequestBodySize: limits.requestBodyBytesMax,
    fetch: (request, srv) => hubs.handle(request, srv) ?? timedFetch(request, srv),
    websocket: hubs.websocket,
  });

  // The lag sampler runs all the time (its cost is part of every phase); it records only when asked.
  let lags: LagFigures | null = null;
  let lastTickMs = performance.now();
  let lastCpuMs = 0;
  setInterval(() => {
    const now = performance.now();
    const u = process.cpuUsage();
    const cpuMs = (u.user + u.system) / 1000;
    if (lags !== null) {
      lags.atMs.push(now);
      lags.lagMs.push(Math.max(0, now - lastTickMs - LAG_TICK_MS));
      lags.cpuMs?.push(cpuMs - lastCpuMs);
    }
    lastTickMs = now;
    lastCpuMs = cpuMs;
  }, LAG_TICK_MS);

  process.on('message', (m: ServerCommand) => {
    switch (m.cmd) {
      case 'memory': {
        Bun.gc(true);
        const u = process.memoryUsage();
        return reply(m.cmd, { rssBytes: u.rss, heapUsedBytes: u.heapUsed } satisfies MemoryFigures);
      }
      case 'lag-start':
        lags = { atMs: [], lagMs: [], cpuMs: [] };
        return reply(m.cmd, null);
      case 'lag-stop': {
        const out = lags ?? { atMs: [], lagMs: [] };
        lags = null;
        return reply(m.cmd, out);
      }
      case 'frames-start':
        frames = new Map();
        messages = 0;
        return reply(m.cmd, performance.now());
      case 'frames-stop': {
        const open = new Set(hubs.connections().map((c) => c.id));
        const out: FrameFigures = { latenciesMs: [], writtenAtMs: [], closedLatenciesMs: [], messages };
        for (const [id, xs] of frames ?? []) {
          for (let i = 0; i < xs.length; i += 2) {
            if (open.has(id)) {
              out.writtenAtMs.push(xs[i]);
              out.latenciesMs.push(xs[i + 1]);
            } else {
              out.closedLatenciesMs.push(xs[i + 1]);
            }
          }
        }
        frames = null;
        return reply(m.cmd, out);
      }
      case 'step-times':
        return reply(m.cmd, m.tags.map((tag) => stepMs.get(tag) ?? []));
      case 'hub-connections':
        return reply(m.cmd, hubs.connections().length);
      case 'backlog': {
        // Bench-only introspection of the transport's private state: SocketConnection.writer.queuedBytes
        // (since the writer split, writer.ts) or .queue.bytes (before), and .ws (null while detached).
        const out: Backlog[] = [];
        for (const c of hubs.connections()) {
          const x = c as unknown as { writer?: { queuedBytes: number }; queue?: { bytes: number }; ws: { getBufferedAmount(): number } | null };
          const queuedBytes = x.writer?.queuedBytes ?? x.queue?.bytes ?? 0;
          const bufferedBytes = x.ws?.getBufferedAmount() ?? 0;
          if (queuedBytes + bufferedBytes > 0) out.push({ id: c.id, hubPath: c.hubPath, email: c.principal.user.email, queuedBytes, bufferedBytes });
        }
        return reply(m.cmd, out);
      }
      case 'cpu': {
        const u = process.cpuUsage();
        return reply(m.cmd, (u.user + u.system) / 1000);
      }
    }
  });

  let stopping = false;
  process.on('SIGTERM', async () => {
    if (stopping) return;
    stopping = true;
    hubs.shutdown();
    await server.stop(true);
    await s.shutdown();
    s.db.close();
    process.exit(0);
  });

  process.send?.({ kind: 'ready', port: server.port as number, pid: process.pid } satisfies ServerMessage);
}
