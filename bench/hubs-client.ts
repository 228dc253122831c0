// Load-generator pieces of bench/hubs.bench.ts: the bench server process (spawn, IPC commands,
// stop by PID), a raw SignalR JSON-protocol client over Bun's WebSocket (cheap enough to hold a
// thousand in one process), the official client for a handful, and small HTTP helpers.

import { join } from 'node:path';
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { Subprocess } from 'bun';
import type { ServerCommand, ServerMessage } from './hubs-server.ts';

const RS = '\x1e';

// ---- The server process. ----

export interface BenchServer {
  readonly pid: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  ask<T>(c: ServerCommand): Promise<T>;
  /** Set by a phase: told when the transport closes a connection for not reading (server clock ms). */
  onSlowClosed: ((atServerMs: number, fields: Record<string, unknown>) => void) | null;
  stop(): Promise<void>;
}

/**
 * Starts bench/hubs-server.ts on 127.0.0.1, port 0, over `dataDir`, and waits until it listens.
 * BENCH_SERVER_FLAGS (space-separated) go to its `bun`, e.g. `--cpu-prof-md --cpu-prof-dir=prof`;
 * BENCH_SERVER_ENV (space-separated NAME=value) to its environment only, e.g. `BUN_JSC_logGC=1`.
 */
/** BENCH_SERVER_ENV's pairs. */
function serverEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(' ').filter((x) => x.includes('='));
  return Object.fromEntries(pairs.map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)]));
}

export async function startServer(dataDir: string, env: Record<string, string>): Promise<BenchServer> {
  const waiters = new Map<string, ((v: unknown) => void)[]>();
  let ready!: (m: { port: number; pid: number }) => void;
  const readyP = new Promise<{ port: number; pid: number }>((r) => (ready = r));
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((x) => x !== '');
  const proc: Subprocess = Bun.spawn([process.execPath, ...flags, join(import.meta.dir, 'hubs-server.ts')], {
    env: { ...process.env, DATA_DIR: dataDir, DATA_START_DATE: '2020-01-06', DATA_END_DATE: '2020-01-07', ...env, ...serverEnv() },
    stdin: 'ignore',
    stdout: 'inherit',
    stderr: 'inherit',
    ipc(m: ServerMessage) {
      if (m.kind === 'ready') ready(m);
      else if (m.kind === 'slow-closed') srv.onSlowClosed?.(m.atMs, m.fields);
      else waiters.get(m.cmd)?.shift()?.(m.value);
    },
  });
  const srv: BenchServer = {
    pid: proc.pid,
    base: '',
    onSlowClosed: null,
    ask<T>(c: ServerCommand): Promise<T> {
      return new Promise<T>((resolve) => {
        const list = waiters.get(c.cmd) ?? [];
        list.push(resolve as (v: unknown) => void);
        waiters.set(c.cmd, list);
        proc.send(c);
      });
    },
    async stop() {
      process.kill(proc.pid, 'SIGTERM');
      const exited = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => null)]);
      if (exited === null) process.kill(proc.pid, 'SIGKILL');
    },
  };
  const started = await Promise.race([
    readyP,
    proc.exited.then((code): never => {
      throw new Error(`bench server exited with ${code} before listening`);
    }),
  ]);
  srv.base = `http://127.0.0.1:${started.port}`;
  return srv;
}

// ---- HTTP. ----

export async function post<T = any>(base: string, path: string, token: string | null, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
  if (!res.ok || json.success !== true) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return json as T;
}

export async function login(base: string, email: string, apiKey: string): Promise<string> {
  return (await post<{ token: string }>(base, 'Auth/loginKey', null, { userName: email, apiKey })).token;
}

// ---- The raw client. ----

const INVOCATION_PREFIX = '{"type":1,"target":"';
/** The official client's keepAliveIntervalInMilliseconds. */
const CLIENT_PING_MS = 15_000;

/**
 * A SignalR JSON-protocol client on a bare WebSocket: handshake, invocations with completions, and
 * counting of what arrives. Event records are not parsed (the target is read from the record's
 * prefix, as the transport writes `{"type":1,"target":…}`), so a thousand of them cost the load
 * generator little CPU on a machine it shares with the server.
 */
export class RawHub {
  readonly counts = new Map<string, number>();
  pings = 0;
  bytes = 0;
  /** Date.now() of the first and the last message received, and of the close. */
  firstMessageWallMs = 0;
  lastMessageWallMs = 0;
  closedWallMs = 0;
  closeRecord: string | null = null;
  closeCode: number | null = null;
  /** Called per event record (not for completions, pings, close). */
  onEvent: ((target: string) => void) | null = null;
  readonly closed: Promise<void>;
  private readonly pending = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private handshake: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private keepAlive: ReturnType<typeof setTimeout> | null = null;

  private constructor(private readonly ws: WebSocket) {
    let closed!: () => void;
    this.closed = new Promise<void>((r) => (closed = r));
    ws.onmessage = (e) => this.received(String(e.data));
    ws.onclose = (e) => {
      if (this.keepAlive !== null) clearTimeout(this.keepAlive);
      this.closedWallMs = Date.now();
      this.closeCode = e.code;
      this.handshake?.reject(new Error(`closed during handshake (${e.code})`));
      for (const p of this.pending.values()) p.reject(new Error('connection closed'));
      this.pending.clear();
      closed();
    };
  }

  /** Opens `hub` at `base` with the token in the query; `negotiate` first (version 1) or direct. */
  static async open(base: string, hub: string, token: string, negotiate: boolean): Promise<RawHub> {
    let url = `${base.replace(/^http/, 'ws')}${hub}?access_token=${encodeURIComponent(token)}`;
    if (negotiate) {
      const res = await fetch(`${base}${hub}/negotiate?negotiateVersion=1&access_token=${encodeURIComponent(token)}`, { method: 'POST' });
      if (!res.ok) throw new Error(`negotiate: HTTP ${res.status}`);
      const n = (await res.json()) as { connectionToken: string };
      url += `&id=${encodeURIComponent(n.connectionToken)}`;
    }
    const c = new RawHub(new WebSocket(url));
    await new Promise<void>((resolve, reject) => {
      c.handshake = { resolve, reject };
      c.ws.onopen = () => c.ws.send(`{"protocol":"json","version":1}${RS}`);
      c.ws.onerror = () => reject(new Error(`WebSocket error on ${hub}`));
    });
    c.startKeepAlive();
    return c;
  }

  /** A ping every CLIENT_PING_MS, as the official client's keep-alive (first one at a random offset, to spread them). */
  private startKeepAlive(): void {
    const tick = () => {
      this.ping();
      this.keepAlive = setTimeout(tick, CLIENT_PING_MS);
    };
    this.keepAlive = setTimeout(tick, Math.random() * CLIENT_PING_MS);
  }

  invoke(target: string, ...args: unknown[]): Promise<void> {
    const invocationId = String(this.nextId++);
    return new Promise<void>((resolve, reject) => {
      this.pending.set(invocationId, { resolve, reject });
      this.ws.send(JSON.stringify({ type: 1, invocationId, target, arguments: args }) + RS);
    });
  }

  ping(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(`{"type":6}${RS}`);
  }

  close(): void {
    if (this.keepAlive !== null) clearTimeout(this.keepAlive);
    this.keepAlive = null;
    this.ws.close();
  }

  count(target: string): number {
    return this.counts.get(target) ?? 0;
  }

  private received(data: string): void {
    this.bytes += data.length;
    this.lastMessageWallMs = Date.now();
    if (this.firstMessageWallMs === 0) this.firstMessageWallMs = this.lastMessageWallMs;
    for (const rec of data.split(RS)) {
      if (rec === '') continue;
      if (rec.startsWith(INVOCATION_PREFIX)) {
        const target = rec.slice(INVOCATION_PREFIX.length, rec.indexOf('"', INVOCATION_PREFIX.length));
        this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
        this.onEvent?.(target);
        continue;
      }
      const m = JSON.parse(rec) as { type?: number; invocationId?: string; error?: string };
      if (this.handshake) {
        const h = this.handshake;
        this.handshake = null;
        if (m.error) h.reject(new Error(`handshake refused: ${m.error}`));
        else h.resolve();
      } else if (m.type === 3 && m.invocationId) {
        const p = this.pending.get(m.invocationId);
        this.pending.delete(m.invocationId);
        if (m.error) p?.reject(new Error(m.error));
        else p?.resolve();
      } else if (m.type === 6) {
        this.pings++;
      } else if (m.type === 7) {
        this.closeRecord = rec;
      }
    }
  }
}

// ---- The official client. ----

/** @microsoft/signalr over WebSockets, counting `targets` as they arrive. */
export async function officialHub(
  base: string,
  hub: string,
  token: string,
  negotiate: boolean,
  targets: readonly string[],
  onEvent: ((target: string) => void) | null,
): Promise<{ conn: HubConnection; counts: Map<string, number> }> {
  const conn = new HubConnectionBuilder()
    .withUrl(`${base}${hub}`, { skipNegotiation: !negotiate, transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
    .configureLogging(LogLevel.None)
    .build();
  const counts = new Map<string, number>();
  for (const t of targets) {
    conn.on(t, () => {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      onEvent?.(t);
    });
  }
  await conn.start();
  return { conn, counts };
}

// ---- Figures. ----

/** The q-quantile by the nearest-rank method (NaN when empty). */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))];
}

/** `p50 … ms, p99 … ms, max … ms (n)` */
export function spread(xs: readonly number[], digits = 2): string {
  if (xs.length === 0) return 'no samples';
  let max = -Infinity;
  for (const x of xs) if (x > max) max = x;
  return `p50 ${quantile(xs, 0.5).toFixed(digits)} ms, p99 ${quantile(xs, 0.99).toFixed(digits)} ms, max ${max.toFixed(digits)} ms (${xs.length.toLocaleString('en-US')} samples)`;
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Runs `f` over `items`, at most `parallel` at a time. */
export async function inBatches<T, R>(items: readonly T[], parallel: number, f: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    range(Math.min(parallel, items.length)).map(async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await f(items[i], i);
    }),
  );
  return out;
}
