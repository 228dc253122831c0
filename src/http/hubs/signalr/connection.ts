// One hub connection: handshake, inbound records, invocations in order, the writer (writer.ts: the
// outbound queue, frames, backpressure), keep-alive and the timeouts the transport's sweep checks.
//
// Reading: invocations run one at a time in arrival order (an async method holds the ones behind
// it, as ASP.NET's one-invocation-per-client default does); at most `invocationsQueuedMax` may wait.
//
// Stateful reconnect (handshake version 2 on a connection negotiated with `useStatefulReconnect`):
// when the socket drops without a WebSocket close (code 1006: a network failure, not a client that
// left), the connection outlives it for `reconnectGraceMs`, as ASP.NET keeps an inactive connection
// for its DisconnectTimeout: subscriptions stay, running invocations finish, events queue. A new
// socket presenting the same connection token resumes it (`resume`): the unacknowledged messages
// are written again behind a Sequence record, then the queue, and the client's own resent messages
// are deduplicated (resend-buffer.ts). A resumed connection keeps its id, state and subscriptions.

import type { ServerWebSocket } from 'bun';
import type { Principal } from '../../../service/auth.ts';
import type { HubConnection, HubDefinition, HubMethod, MethodResult, SendOptions } from './hub.ts';
import {
  closeRecord,
  completionRecord,
  HANDSHAKE_OK,
  handshakeError,
  hubErrors,
  type Inbound,
  invocationRecord,
  isSequenced,
  parseHandshake,
  parseInbound,
  PING,
} from './messages.ts';
import type { FlushScheduler } from './flush-scheduler.ts';
import { RecordReader } from './records.ts';
import { ResendBuffer } from './resend-buffer.ts';
import { FrameWriter, type WriterSettings } from './writer.ts';

export interface ConnectionSettings extends WriterSettings {
  /** How long events wait for their flush: 0 = the end of the event-loop turn (flush-scheduler.ts). */
  frameIntervalMs: number;
  keepAliveMs: number;
  clientTimeoutMs: number;
  handshakeTimeoutMs: number;
  messageBytesMax: number;
  invocationsQueuedMax: number;
  closeGraceMs: number;
  reconnectGraceMs: number;
}

/** What a connection needs from its transport. */
export interface ConnectionHost {
  readonly settings: ConnectionSettings;
  /** Monotonic milliseconds, for intervals and timeouts. */
  monoMs(): number;
  logError(msg: string, fields?: Record<string, unknown>): void;
  logInfo(msg: string, fields?: Record<string, unknown>): void;
  /** After the connection ended (its socket closed, or its reconnect grace ran out), once. */
  ended(conn: SocketConnection): void;
  /** The measurement hook (HubTransportOptions.onFrameWritten); absent, nothing is timed. */
  readonly onFrameWritten?: (queuedAtMs: readonly number[], writtenAtMs: number, conn: HubConnection) => void;
  /** Writes every connection's queued events (one scheduler per transport). */
  readonly frames: FlushScheduler;
}

/** A hub with its methods keyed by lower-cased name (targets match case-insensitively). */
export interface ServedHub {
  readonly definition: HubDefinition;
  readonly methods: ReadonlyMap<string, HubMethod>;
}

/** `ws.data`: what the upgrade learnt, and the connection once the socket opened. */
export interface SocketData {
  hub: ServedHub;
  connectionId: string;
  principal: Principal;
  /** The presented id of a connection negotiated with `useStatefulReconnect`, else null. */
  resumeKey: string | null;
  /** The connection this socket resumes (stateful reconnect), else null: a new connection. */
  resuming: SocketConnection | null;
  conn: SocketConnection | null;
}

type Invocation = Extract<Inbound, { kind: 'invocation' | 'stream_invocation' }>;
type Phase = 'handshake' | 'open' | 'closing' | 'ended';

/** The WebSocket close code of a connection that dropped without a close frame (RFC 6455 §7.1.5). */
const ABNORMAL_CLOSURE = 1006;

export class SocketConnection implements HubConnection {
  readonly id: string;
  readonly hubPath: string;
  readonly state = new Map<string, unknown>();
  readonly resumeKey: string | null;

  private user: Principal;
  private phase: Phase = 'handshake';
  private handshaken = false;
  private ws: ServerWebSocket<SocketData> | null;
  private readonly writer: FrameWriter;
  private reader: RecordReader;
  private readonly inbox: Invocation[] = [];
  private running = false;
  private stateful: ResendBuffer | null = null;
  private readonly openedMs: number;
  private lastReceivedMs: number;
  private closingSinceMs = 0;
  private detachedSinceMs = 0;

  /** `refusal`: the connection may not be opened; after the handshake it gets a close message with this error. */
  constructor(
    ws: ServerWebSocket<SocketData>,
    private readonly hub: ServedHub,
    private readonly host: ConnectionHost,
    private readonly refusal: string | null = null,
  ) {
    this.ws = ws;
    this.id = ws.data.connectionId;
    this.hubPath = hub.definition.path;
    this.user = ws.data.principal;
    this.resumeKey = ws.data.resumeKey;
    this.reader = new RecordReader(host.settings.messageBytesMax);
    this.openedMs = this.lastReceivedMs = host.monoMs();
    const measure = host.onFrameWritten;
    this.writer = new FrameWriter(ws as ServerWebSocket<unknown>, host.settings, {
      monoMs: () => host.monoMs(),
      overflowed: (kind) => this.overflowed(kind),
      frameWritten: measure ? (queued, written) => measure(queued, written, this) : undefined,
      frames: host.frames,
    });
  }

  /** The user and token behind the connection (a resumed socket may bring a newer token of the same user). */
  get principal(): Principal {
    return this.user;
  }

  get closed(): boolean {
    return this.phase === 'closing' || this.phase === 'ended';
  }

  /** Past the handshake and not closing (a stateful connection waiting for its client to come back included). */
  get open(): boolean {
    return this.phase === 'open';
  }

  /** A new socket may take this connection over (stateful reconnect is on and the connection lives). */
  get resumable(): boolean {
    return this.stateful !== null && this.phase === 'open';
  }

  send(target: string, args: readonly unknown[], opts?: SendOptions): void {
    if (this.phase !== 'open') return;
    const atMs = this.host.onFrameWritten ? opts?.sinceMs ?? this.host.monoMs() : -1;
    if (this.writer.push(invocationRecord(target, args), opts?.coalesceKey, atMs, true)) this.writer.schedule();
  }

  close(error?: string, allowReconnect?: boolean): void {
    if (this.phase === 'handshake') return this.refuseHandshake(error ?? hubErrors.handshakeCanceled);
    this.closeWith(closeRecord(error, allowReconnect));
  }

  /** A WebSocket message from the client. */
  receive(ws: ServerWebSocket<SocketData>, message: string | Uint8Array): void {
    if (ws !== this.ws || this.closed) return;
    this.lastReceivedMs = this.host.monoMs();
    const read = this.reader.push(message);
    if (!read.ok) return this.close(hubErrors.messageTooLarge(this.host.settings.messageBytesMax), false);
    for (const text of read.records) {
      if (this.closed) return;
      if (this.phase === 'handshake') this.handshake(text);
      else this.handle(parseInbound(text));
    }
  }

  /** Bun's `drain`: the socket can take more. */
  drained(ws: ServerWebSocket<SocketData>): void {
    if (this.phase === 'open' || this.phase === 'closing') this.writer.drained(ws as ServerWebSocket<unknown>);
  }

  /** Bun's `close`: a socket of this connection is gone, however it ended. */
  socketClosed(ws: ServerWebSocket<SocketData>, code: number): void {
    if (ws !== this.ws || this.phase === 'ended') return; // a socket a resumed one replaced
    if (this.phase === 'open' && this.stateful !== null && code === ABNORMAL_CLOSURE) return this.detach();
    this.finish();
  }

  /** Stateful reconnect: `ws` (same user, same connection token) takes the connection over. */
  resume(ws: ServerWebSocket<SocketData>): void {
    const old = this.ws;
    this.ws = ws;
    ws.data.conn = this;
    this.user = ws.data.principal;
    this.reader = new RecordReader(this.host.settings.messageBytesMax);
    this.lastReceivedMs = this.host.monoMs();
    if (old !== null) {
      // The client came back before the server saw its old socket drop (ASP.NET cancels the old transport too).
      old.data.conn = null;
      this.writer.detach();
      old.terminate();
    }
    this.host.logInfo('hub connection resumed', { hub: this.hubPath, connectionId: this.id, userId: this.user.user.id });
    this.writer.attach(ws as ServerWebSocket<unknown>, (this.stateful as ResendBuffer).replay());
  }

  /** The transport's periodic check: timeouts, keep-alive, acknowledgements, token expiry. */
  tick(monoMs: number, wallMs: number): void {
    const s = this.host.settings;
    if (this.phase === 'closing') {
      if (monoMs - this.closingSinceMs > s.closeGraceMs) this.ws?.terminate();
      return;
    }
    if (this.phase === 'handshake') {
      if (monoMs - this.openedMs > s.handshakeTimeoutMs) this.refuseHandshake(hubErrors.handshakeCanceled);
      return;
    }
    if (this.phase !== 'open') return;
    if (this.ws === null) {
      // Waiting for the client to come back: no socket to write a close message to.
      if (monoMs - this.detachedSinceMs > s.reconnectGraceMs || wallMs >= this.user.expiresMs) this.finish();
      return;
    }
    if (wallMs >= this.user.expiresMs) return this.close(hubErrors.tokenExpired, false);
    if (monoMs - this.lastReceivedMs > s.clientTimeoutMs) return this.close(hubErrors.clientTimeout(s.clientTimeoutMs), true);
    const ack = this.stateful?.ackDue();
    if (ack) this.writer.pushUrgent(ack);
    else if (monoMs - this.writer.lastSentMs >= s.keepAliveMs && this.writer.empty) this.writer.pushUrgent(PING);
  }

  private handshake(text: string): void {
    const h = parseHandshake(text);
    if (!h.ok) return this.refuseHandshake(h.error);
    if (this.refusal !== null) {
      // Refused (a per-user cap): the client learns why from a close message, which needs a handshake first.
      this.writer.pushUrgent(HANDSHAKE_OK);
      return this.closeWith(closeRecord(this.refusal, false));
    }
    this.phase = 'open';
    this.handshaken = true;
    // ASP.NET turns stateful reconnect off for a client that negotiated it but speaks version 0 or 1.
    if (this.resumeKey !== null && h.version >= 2) this.stateful = this.writer.resend = new ResendBuffer();
    this.writer.pushUrgent(HANDSHAKE_OK);
    if (!this.hub.definition.onConnected) return;
    try {
      this.hub.definition.onConnected(this);
    } catch (e) {
      this.host.logError('hub onConnected failed', { hub: this.hubPath, connectionId: this.id, error: String(e) });
      this.close('Connection closed with an error.', false);
    }
  }

  /** The handshake answer `{"error":…}` and the end of the socket; no close message before a handshake. */
  private refuseHandshake(error: string): void {
    this.phase = 'closing';
    this.closingSinceMs = this.host.monoMs();
    this.ws?.sendText(handshakeError(error));
    this.ws?.close(1000);
  }

  private handle(m: Inbound): void {
    // A message the client resent after a reconnect that had arrived before is dropped.
    if (this.stateful !== null && isSequenced(m) && !this.stateful.accept()) return;
    switch (m.kind) {
      case 'invocation':
      case 'stream_invocation':
        if (this.inbox.length >= this.host.settings.invocationsQueuedMax) {
          return this.close(hubErrors.tooManyInvocations(this.host.settings.invocationsQueuedMax), false);
        }
        this.inbox.push(m);
        if (!this.running) void this.runInbox();
        return;
      case 'close':
        // The client is leaving: no close message back (ASP.NET aborts the connection).
        this.phase = 'closing';
        this.closingSinceMs = this.host.monoMs();
        this.ws?.close(1000);
        return;
      case 'ack':
        this.stateful?.acked(m.sequenceId);
        return;
      case 'sequence':
        if (this.stateful !== null && !this.stateful.resetTo(m.sequenceId)) this.close(hubErrors.sequenceTooLarge, false);
        return;
      case 'invalid':
        return this.close(hubErrors.invalidMessage(m.detail), false);
      case 'ping':
      case 'ignored':
        return;
    }
  }

  private async runInbox(): Promise<void> {
    this.running = true;
    try {
      while (this.inbox.length > 0 && this.phase === 'open') {
        const m = this.inbox.shift() as Invocation;
        const pending = this.invoke(m);
        const error = pending instanceof Promise ? await pending : pending;
        if (m.invocationId !== null && this.phase === 'open') this.writer.pushUrgent(completionRecord(m.invocationId, error), true);
      }
    } finally {
      this.running = false;
    }
  }

  /** Runs one invocation; its completion's error text, or undefined on success. */
  private invoke(m: Invocation): string | undefined | Promise<string | undefined> {
    const method = this.hub.methods.get(m.target.toLowerCase());
    if (!method) return hubErrors.unknownMethod(m.target);
    if (m.kind === 'stream_invocation') return hubErrors.streamingInvocation(m.target);
    if (m.streamCount > 0) return hubErrors.clientStreams(m.target, m.streamCount);
    let result: MethodResult | Promise<MethodResult>;
    try {
      result = method(this, m.args);
    } catch (e) {
      return this.failed(m.target, e);
    }
    if (result instanceof Promise) {
      return result.then(
        (r) => this.outcome(m.target, r),
        (e) => this.failed(m.target, e),
      );
    }
    return this.outcome(m.target, result);
  }

  private outcome(target: string, r: MethodResult): string | undefined {
    if (r && r.ok === true) return undefined;
    if (r && r.ok === false && typeof r.error === 'string') return r.error;
    return this.failed(target, new Error(`hub method answered ${JSON.stringify(r)}`));
  }

  private failed(target: string, e: unknown): string {
    const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
    this.host.logError('hub method failed', { hub: this.hubPath, method: target, connectionId: this.id, error });
    return hubErrors.methodFailed(target);
  }

  /** The writer's output passed a bound: the connection is closed (with reconnect: the client may start afresh). */
  private overflowed(kind: 'slow' | 'unacked'): void {
    if (this.closed) return;
    const s = this.host.settings;
    this.host.logInfo(kind === 'slow' ? 'hub client not reading, connection closed' : 'hub client not acknowledging, connection closed', {
      hub: this.hubPath,
      connectionId: this.id,
      userId: this.user.user.id,
      queuedBytes: this.writer.queuedBytes,
      bufferedBytes: this.ws?.getBufferedAmount() ?? 0,
      unackedBytes: this.stateful?.bytes ?? 0,
    });
    this.writer.clear();
    this.closeWith(closeRecord(kind === 'slow' ? hubErrors.slowConsumer : hubErrors.resendBufferFull(s.resendBytesMax), true));
  }

  /** Writes the close message after everything already queued and closes; without a socket, just ends. */
  private closeWith(text: string): void {
    if (this.closed) return;
    this.phase = 'closing';
    this.closingSinceMs = this.host.monoMs();
    this.inbox.length = 0;
    if (this.ws === null) return this.finish();
    this.writer.finalWrite(text);
    this.ws.close(1000);
  }

  /** The socket dropped under a stateful connection: keep it for the client's reconnect. */
  private detach(): void {
    this.ws = null;
    this.writer.detach();
    this.detachedSinceMs = this.host.monoMs();
    this.host.logInfo('hub connection lost, kept for a stateful reconnect', { hub: this.hubPath, connectionId: this.id, userId: this.user.user.id });
  }

  /** The end, however it came: once. */
  private finish(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.ws = null;
    this.writer.clear();
    this.inbox.length = 0;
    if (this.handshaken && this.hub.definition.onDisconnected) {
      try {
        this.hub.definition.onDisconnected(this);
      } catch (e) {
        this.host.logError('hub onDisconnected failed', { hub: this.hubPath, connectionId: this.id, error: String(e) });
      }
    }
    this.host.ended(this);
  }
}
