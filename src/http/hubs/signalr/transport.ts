// The SignalR server transport of the real-time hubs, on Bun's own WebSocket server
// (Bun.serve({ fetch, websocket }), server.upgrade). It speaks what bots written for the ProjectX
// Gateway speak (docs/realtime.md, "Connections, protocol versions and limits"): POST {hub}/negotiate
// (versions 0 and 1, stateful reconnect on request) and a WebSocket at {hub}, with or without a
// negotiated `id`; the JSON hub protocol versions 0 to 2.
//
// HTTP answers, all before any upgrade: 401 (empty body, `WWW-Authenticate: Bearer`) for a missing
// or invalid token, first, as ASP.NET's authorization runs before its dispatcher; 405 for other
// methods; on {hub} without an upgrade 400 "Connection ID required" or 404 "No Connection with that
// ID" (we serve no long polling); 404 for an `id` we did not issue to this user (or a stateful
// connection's token once that connection ended); 503 when `connectionsMax` sockets are open or
// after shutdown. The 101 carries no Sec-WebSocket-Protocol (Bun would echo the client's first one;
// the Rust client refuses any) and no extensions.
//
// Caps, per node: a user holds at most `connectionsPerUserMax` connections (negotiate then answers
// `{"error":…}`, as ASP.NET answers negotiate errors; a WebSocket past the cap gets the handshake and
// then a close message with the error and no reconnect) and `negotiatedIdsPerUserMax` pending ids;
// a negotiation without a bearer token counts against its client address, `negotiationsPerAddressMax`
// per `negotiationWindowMs`, before any authentication work.
//
// Time: intervals use a monotonic clock; token expiry compares `nowMs()` (the service clock) with
// the principal's `expiresMs`. One sweep timer, running while anything is open, checks them all.

import type { Server, ServerWebSocket, WebSocketHandler } from 'bun';
import { limits } from '../../../config.ts';
import { assert } from '../../../lib/assert.ts';
import type { Principal } from '../../../service/auth.ts';
import { SlidingWindowLimiter } from '../../../service/rate-limit.ts';
import { type ConnectionHost, type ConnectionSettings, type ServedHub, type SocketData, SocketConnection } from './connection.ts';
import type { HubConnection, HubDefinition, HubMethod } from './hub.ts';
import { FlushScheduler } from './flush-scheduler.ts';
import { hubErrors } from './messages.ts';
import { type NegotiatedId, NegotiatedIds } from './negotiate.ts';
import { type HubTransportOptions, settingsOf } from './options.ts';

export type { SocketData } from './connection.ts';
export type { HubTransportOptions } from './options.ts';

export interface HubTransport {
  /** The answer for a hub path (a promise of undefined once upgraded); undefined for any other path. */
  handle(req: Request, server: Server<SocketData>): Promise<Response | undefined> | undefined;
  readonly websocket: WebSocketHandler<SocketData>;
  /** Open connections (past the handshake, not closing; a stateful one waiting for its client to come back included). */
  connections(): readonly HubConnection[];
  /** Closes the connections `pred` selects with a close message carrying `error` (no reconnect); their count. */
  closeWhere(pred: (c: HubConnection) => boolean, error: string): number;
  /** Sends `{"type":7,"allowReconnect":true}` to everyone, closes, and refuses new connections. */
  shutdown(): void;
}

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain', ...headers } });

/** The token from `access_token` (browsers, most SDKs) or `Authorization` with or without `Bearer ` (Node clients). */
export function requestToken(req: Request, url: URL): string | null {
  const fromQuery = url.searchParams.get('access_token');
  if (fromQuery) return fromQuery;
  const header = req.headers.get('authorization')?.trim();
  if (!header) return null;
  const m = /^bearer\s+(.*)$/i.exec(header);
  return (m ? m[1].trim() : header) || null;
}

function serveHub(definition: HubDefinition): ServedHub {
  const methods = new Map<string, HubMethod>();
  for (const [name, method] of Object.entries(definition.methods)) {
    assert(!methods.has(name.toLowerCase()), `hub ${definition.path}: methods ${name} clash ignoring case`);
    methods.set(name.toLowerCase(), method);
  }
  return { definition, methods };
}

/** A query parameter by name ignoring case, as ASP.NET reads its query. */
function queryParam(url: URL, name: string): string | null {
  const lower = name.toLowerCase();
  for (const [k, v] of url.searchParams) if (k.toLowerCase() === lower) return v;
  return null;
}

/** .NET's bool.TryParse: `true` in any case, surrounding spaces allowed; anything else is false. */
const isTrue = (v: string | null) => v !== null && v.trim().toLowerCase() === 'true';

export function createHubTransport(opts: HubTransportOptions): HubTransport {
  return new SignalRTransport(opts);
}

/** The transport's state: hubs by path, negotiated ids, live connections and the sweep timer. */
class SignalRTransport implements HubTransport, ConnectionHost {
  readonly settings: ConnectionSettings;
  readonly websocket: WebSocketHandler<SocketData>;
  private readonly connectionsMax: number;
  private readonly connectionsPerUserMax: number;
  private readonly revalidateEveryMs: number;
  private readonly sweepEveryMs: number;
  private readonly wallMs: () => number;
  private readonly byPath: Map<string, ServedHub>;
  private readonly negotiated: NegotiatedIds;
  private readonly negotiationsByAddress: SlidingWindowLimiter;
  private readonly live = new Set<SocketConnection>();
  /** Each user's connections (refused ones are not counted). */
  private readonly byUser = new Map<number, Set<SocketConnection>>();
  /** Stateful connections by the token their client presents to resume them. */
  private readonly resumable = new Map<string, SocketConnection>();
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private lastRevalidateMs: number;
  private revalidating = false;
  private stopped = false;
  readonly onFrameWritten: ConnectionHost['onFrameWritten'];
  readonly frames: FlushScheduler;

  constructor(private readonly opts: HubTransportOptions) {
    this.settings = settingsOf(opts);
    this.connectionsMax = opts.connectionsMax ?? limits.hubConnectionsMax;
    this.connectionsPerUserMax = opts.connectionsPerUserMax ?? limits.hubConnectionsPerUserMax;
    this.revalidateEveryMs = opts.revalidateEveryMs ?? limits.hubRevalidateEveryMs;
    // A quarter of the shortest interval checked, within [5 ms, 1 s]: late by at most that much.
    const s = this.settings;
    const shortestMs = Math.min(s.keepAliveMs, s.clientTimeoutMs, s.handshakeTimeoutMs, s.reconnectGraceMs, this.revalidateEveryMs);
    this.sweepEveryMs = Math.max(5, Math.min(1000, Math.floor(shortestMs / 4)));
    this.wallMs = opts.nowMs ?? Date.now;
    this.byPath = new Map(opts.hubs.map((h) => [h.path, serveHub(h)]));
    this.negotiated = new NegotiatedIds(
      opts.negotiatedIdsMax ?? limits.hubNegotiatedIdsMax,
      opts.negotiatedIdsPerUserMax ?? limits.hubNegotiatedIdsPerUserMax,
      opts.negotiatedIdTtlMs ?? limits.hubNegotiatedIdTtlMs,
    );
    this.negotiationsByAddress = new SlidingWindowLimiter(
      opts.negotiationsPerAddressMax ?? limits.hubNegotiationsPerAddressMax,
      opts.negotiationWindowMs ?? limits.hubNegotiationWindowMs,
    );
    this.lastRevalidateMs = this.monoMs();
    this.onFrameWritten = opts.onFrameWritten?.bind(opts);
    this.frames = new FlushScheduler(s.frameIntervalMs, opts.flushSliceMs ?? limits.hubFlushSliceMs, () => this.monoMs(), (e) =>
      this.logError('hub flush failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    );
    this.websocket = this.socketHandler();
  }

  monoMs(): number {
    return performance.now();
  }

  logError(msg: string, fields?: Record<string, unknown>): void {
    this.opts.logError(msg, fields);
  }

  logInfo(msg: string, fields?: Record<string, unknown>): void {
    this.opts.logInfo?.(msg, fields);
  }

  ended(conn: SocketConnection): void {
    this.live.delete(conn);
    const mine = this.byUser.get(conn.principal.user.id);
    if (mine?.delete(conn) && mine.size === 0) this.byUser.delete(conn.principal.user.id);
    if (conn.resumeKey !== null && this.resumable.get(conn.resumeKey) === conn) this.resumable.delete(conn.resumeKey);
    this.stopSweepWhenIdle();
  }

  handle(req: Request, server: Server<SocketData>): Promise<Response | undefined> | undefined {
    const url = new URL(req.url);
    const path = this.hubPathOf(url.pathname);
    const hub = this.byPath.get(path);
    if (hub) return this.answer(req, url, server, hub, false);
    if (!path.endsWith('/negotiate')) return undefined;
    const negotiating = this.byPath.get(path.slice(0, -'/negotiate'.length));
    return negotiating ? this.answer(req, url, server, negotiating, true) : undefined;
  }

  /** The path without a trailing slash or a served prefix (`/live/hubs/user/` → `/hubs/user`). */
  private hubPathOf(pathname: string): string {
    let path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    const prefix = this.opts.pathPrefixes?.find((p) => path.startsWith(`${p}/`));
    if (prefix !== undefined) path = path.slice(prefix.length);
    return path;
  }

  connections(): readonly HubConnection[] {
    return [...this.live].filter((c) => c.open);
  }

  closeWhere(pred: (c: HubConnection) => boolean, error: string): number {
    let count = 0;
    for (const conn of [...this.live]) {
      if (conn.closed || !pred(conn)) continue;
      conn.close(error, false);
      count++;
    }
    return count;
  }

  shutdown(): void {
    this.stopped = true;
    this.negotiated.clear();
    // The sweep keeps running until the last socket is gone, to cut those that do not close.
    for (const conn of [...this.live]) conn.close(undefined, true);
    this.stopSweepWhenIdle();
  }

  private async answer(req: Request, url: URL, server: Server<SocketData>, hub: ServedHub, isNegotiate: boolean) {
    if (this.stopped) return text(503, 'Server is shutting down');
    const token = requestToken(req, url);
    if (isNegotiate && token === null) {
      const refused = this.negotiationRefused(req, server);
      if (refused) return refused;
    }
    const principal = await this.opts.authenticate(token, req);
    if (!principal) return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
    return isNegotiate ? this.negotiate(req, url, principal) : this.connect(req, url, server, hub, principal);
  }

  /** A negotiation without a token, counted against its client address; the refusal past the cap. */
  private negotiationRefused(req: Request, server: Server<SocketData>): Response | null {
    const fwd = this.opts.trustProxy ? req.headers.get('x-forwarded-for') : null;
    const address = fwd ? fwd.split(',')[0].trim() : (server.requestIP(req)?.address ?? 'local');
    if (this.negotiationsByAddress.take(address, this.monoMs()).allowed) return null;
    const windowS = Math.round((this.opts.negotiationWindowMs ?? limits.hubNegotiationWindowMs) / 1000);
    const max = this.opts.negotiationsPerAddressMax ?? limits.hubNegotiationsPerAddressMax;
    return Response.json({ error: hubErrors.negotiationsPerAddress(max, windowS) });
  }

  private negotiate(req: Request, url: URL, principal: Principal): Response {
    if (req.method !== 'POST') return text(405, '');
    const userId = principal.user.id;
    if (this.connectionsOf(userId) >= this.connectionsPerUserMax) {
      return Response.json({ error: hubErrors.connectionsPerUser(this.connectionsPerUserMax) });
    }
    const request = { version: queryParam(url, 'negotiateVersion'), statefulReconnect: isTrue(queryParam(url, 'useStatefulReconnect')) };
    const body = this.negotiated.issue(request, userId, this.monoMs());
    this.startSweep();
    return Response.json(body);
  }

  private connectionsOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  private connect(req: Request, url: URL, server: Server<SocketData>, hub: ServedHub, principal: Principal): Response | undefined {
    if (req.method !== 'GET') return text(405, '');
    const id = url.searchParams.get('id');
    if (req.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return id ? text(404, 'No Connection with that ID') : text(400, 'Connection ID required');
    }
    const data: SocketData = { hub, connectionId: crypto.randomUUID(), principal, resumeKey: null, resuming: null, conn: null };
    if (id !== null) {
      const issued = this.negotiated.take(id, principal.user.id, this.monoMs());
      if (issued !== null) this.withIssued(data, id, issued);
      else if (!this.withResumable(data, id)) return text(404, 'No Connection with that ID');
    }
    if (data.resuming === null && this.live.size >= this.connectionsMax) return text(503, 'Too many hub connections', { 'retry-after': '5' });
    // An empty Sec-WebSocket-Protocol stops Bun from echoing the client's first subprotocol.
    if (server.upgrade(req, { data, headers: { 'Sec-WebSocket-Protocol': '' } })) return undefined;
    return text(400, 'WebSocket upgrade failed');
  }

  private withIssued(data: SocketData, presented: string, issued: NegotiatedId): void {
    data.connectionId = issued.connectionId;
    if (issued.statefulReconnect) data.resumeKey = presented;
  }

  /** A stateful connection of this user on this hub that `presented` resumes; false when there is none. */
  private withResumable(data: SocketData, presented: string): boolean {
    const conn = this.resumable.get(presented);
    if (!conn || !conn.resumable || conn.principal.user.id !== data.principal.user.id || conn.hubPath !== data.hub.definition.path) return false;
    data.connectionId = conn.id;
    data.resuming = conn;
    return true;
  }

  /** A socket opened: it resumes a stateful connection, or it is a new connection (refused past the user's cap). */
  private opened(ws: ServerWebSocket<SocketData>): void {
    const resuming = ws.data.resuming;
    ws.data.resuming = null;
    if (resuming !== null) {
      if (resuming.resumable) return resuming.resume(ws);
      ws.close(1000); // it ended between the upgrade and now; the client starts afresh
      return;
    }
    const userId = ws.data.principal.user.id;
    const refusal = this.connectionsOf(userId) >= this.connectionsPerUserMax ? hubErrors.connectionsPerUser(this.connectionsPerUserMax) : null;
    const conn = new SocketConnection(ws, ws.data.hub, this, refusal);
    ws.data.conn = conn;
    this.live.add(conn);
    if (refusal === null) {
      let mine = this.byUser.get(userId);
      if (!mine) this.byUser.set(userId, (mine = new Set()));
      mine.add(conn);
      if (conn.resumeKey !== null) this.resumable.set(conn.resumeKey, conn);
    }
    this.startSweep();
    if (this.stopped) conn.close(undefined, true);
  }

  private socketHandler(): WebSocketHandler<SocketData> {
    const s = this.settings;
    return {
      perMessageDeflate: false,
      maxPayloadLength: s.messageBytesMax,
      // Above our own bounds (queued + buffered ≤ queueBytesMax; a resumed socket's resend ≤
      // resendBytesMax; plus one frame and a close message), so Bun never drops a frame before we
      // close the connection ourselves.
      backpressureLimit: s.queueBytesMax + s.resendBytesMax + 2 * s.frameBytesMax + 4096,
      closeOnBackpressureLimit: false,
      // Our keep-alive and client timeout replace Bun's idle timeout; Bun still answers pings.
      idleTimeout: 0,
      open: (ws) => this.opened(ws),
      message: (ws, message) => ws.data.conn?.receive(ws, typeof message === 'string' ? message : new Uint8Array(message)),
      drain: (ws) => ws.data.conn?.drained(ws),
      close: (ws, code) => ws.data.conn?.socketClosed(ws, code),
    };
  }

  private startSweep(): void {
    if (this.sweepTimer !== null) return;
    this.sweepTimer = setInterval(() => this.sweep(), this.sweepEveryMs);
    // The sweep alone must not keep a process (a test, the CLI) alive.
    (this.sweepTimer as { unref?: () => void }).unref?.();
  }

  private stopSweepWhenIdle(): void {
    if (this.sweepTimer !== null && this.live.size === 0 && this.negotiated.size === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
  }

  private sweep(): void {
    const mono = this.monoMs();
    const wall = this.wallMs();
    this.negotiated.sweep(mono);
    for (const conn of this.live) conn.tick(mono, wall);
    const check = this.opts.revalidate;
    if (check && !this.revalidating && mono - this.lastRevalidateMs >= this.revalidateEveryMs) {
      this.lastRevalidateMs = mono;
      void this.revalidateAll(check);
    }
    this.stopSweepWhenIdle();
  }

  /** Asks once per token, closes the connections whose token no longer passes. */
  private async revalidateAll(check: NonNullable<HubTransportOptions['revalidate']>): Promise<void> {
    this.revalidating = true;
    try {
      const verdicts = new Map<string, boolean | Promise<boolean>>();
      for (const conn of [...this.live]) {
        if (!conn.open) continue;
        const key = conn.principal.jtiHash;
        let ok: boolean;
        try {
          if (!verdicts.has(key)) verdicts.set(key, check(conn.principal));
          ok = await (verdicts.get(key) as boolean | Promise<boolean>);
        } catch (e) {
          this.logError('hub revalidation failed', { connectionId: conn.id, error: String(e) });
          continue;
        }
        if (!ok) conn.close(hubErrors.tokenRevoked, false);
      }
    } finally {
      this.revalidating = false;
    }
  }
}
