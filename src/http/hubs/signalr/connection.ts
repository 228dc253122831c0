// One hub connection over one Bun WebSocket: handshake, inbound records, invocations in order,
// the outbound queue and its frames, keep-alive and the timeouts the transport's sweep checks.
//
// Writing: hub events wait in the queue for the next frame (at most one frame interval), so a burst
// of quotes costs one WebSocket message; completions, pings and close messages flush at once (in a
// microtask, so the completions of one turn share a message). Records are never reordered. While
// the socket reports buffered output the queue waits for Bun's `drain`; when queued plus buffered
// output passes `queueBytesMax` the client is not keeping up and the connection is closed, so one
// slow reader costs a bounded amount of memory and never delays anybody else.
//
// Reading: invocations run one at a time in arrival order (an async method holds the ones behind
// it, as ASP.NET's one-invocation-per-client default does); at most `invocationsQueuedMax` may wait.

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
  parseHandshake,
  parseInbound,
  PING,
} from './messages.ts';
import { OutboundQueue } from './outbound-queue.ts';
import { RecordReader } from './records.ts';

export interface ConnectionSettings {
  keepAliveMs: number;
  clientTimeoutMs: number;
  handshakeTimeoutMs: number;
  frameIntervalMs: number;
  frameBytesMax: number;
  queueBytesMax: number;
  messageBytesMax: number;
  invocationsQueuedMax: number;
  closeGraceMs: number;
}

/** What a connection needs from its transport. */
export interface ConnectionHost {
  readonly settings: ConnectionSettings;
  /** Monotonic milliseconds, for intervals and timeouts. */
  monoMs(): number;
  logError(msg: string, fields?: Record<string, unknown>): void;
  logInfo(msg: string, fields?: Record<string, unknown>): void;
  /** After the socket closed, once. */
  ended(conn: SocketConnection): void;
  /** The measurement hook (HubTransportOptions.onFrameWritten); absent, nothing is timed. */
  readonly onFrameWritten?: (queuedAtMs: readonly number[], writtenAtMs: number, conn: HubConnection) => void;
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
  conn: SocketConnection | null;
}

type Invocation = Extract<Inbound, { kind: 'invocation' | 'stream_invocation' }>;
type Phase = 'handshake' | 'open' | 'closing' | 'ended';

export class SocketConnection implements HubConnection {
  readonly id: string;
  readonly hubPath: string;
  readonly principal: Principal;
  readonly state = new Map<string, unknown>();

  private phase: Phase = 'handshake';
  private handshaken = false;
  private readonly queue = new OutboundQueue();
  private readonly reader: RecordReader;
  private readonly inbox: Invocation[] = [];
  private running = false;
  private frameTimer: ReturnType<typeof setTimeout> | null = null;
  private flushPending = false;
  private readonly openedMs: number;
  private lastSentMs: number;
  private lastReceivedMs: number;
  private closingSinceMs = 0;
  /** Bun's buffered output as of the last write (it only shrinks in between). */
  private bufferedBytes = 0;

  constructor(
    private readonly ws: ServerWebSocket<SocketData>,
    private readonly hub: ServedHub,
    private readonly host: ConnectionHost,
  ) {
    this.id = ws.data.connectionId;
    this.hubPath = hub.definition.path;
    this.principal = ws.data.principal;
    this.reader = new RecordReader(host.settings.messageBytesMax);
    this.openedMs = this.lastSentMs = this.lastReceivedMs = host.monoMs();
  }

  get closed(): boolean {
    return this.phase === 'closing' || this.phase === 'ended';
  }

  /** Past the handshake and not closing. */
  get open(): boolean {
    return this.phase === 'open';
  }

  send(target: string, args: readonly unknown[], opts?: SendOptions): void {
    if (this.phase !== 'open') return;
    const atMs = this.host.onFrameWritten ? this.host.monoMs() : -1;
    if (!this.enqueue(invocationRecord(target, args), opts?.coalesceKey, atMs)) return;
    if (this.frameTimer === null && !this.flushPending) {
      this.frameTimer = setTimeout(() => this.flush(), this.host.settings.frameIntervalMs);
    }
  }

  close(error?: string, allowReconnect?: boolean): void {
    if (this.phase === 'handshake') return this.refuseHandshake(error ?? hubErrors.handshakeCanceled);
    this.closeWith(closeRecord(error, allowReconnect));
  }

  /** A WebSocket message from the client. */
  receive(message: string | Uint8Array): void {
    if (this.closed) return;
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
  drained(): void {
    if (this.phase === 'open' || this.phase === 'closing') this.flush();
  }

  /** Bun's `close`: the socket is gone, however it ended. */
  socketClosed(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    if (this.frameTimer !== null) clearTimeout(this.frameTimer);
    this.frameTimer = null;
    this.queue.clear();
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

  /** The transport's periodic check: timeouts, keep-alive, token expiry. */
  tick(monoMs: number, wallMs: number): void {
    const s = this.host.settings;
    if (this.phase === 'closing') {
      if (monoMs - this.closingSinceMs > s.closeGraceMs) this.ws.terminate();
      return;
    }
    if (this.phase === 'handshake') {
      if (monoMs - this.openedMs > s.handshakeTimeoutMs) this.refuseHandshake(hubErrors.handshakeCanceled);
      return;
    }
    if (this.phase !== 'open') return;
    if (wallMs >= this.principal.expiresMs) return this.close(hubErrors.tokenExpired, false);
    if (monoMs - this.lastReceivedMs > s.clientTimeoutMs) return this.close(hubErrors.clientTimeout(s.clientTimeoutMs), true);
    if (monoMs - this.lastSentMs >= s.keepAliveMs && this.queue.empty) this.enqueueUrgent(PING);
  }

  private handshake(text: string): void {
    const h = parseHandshake(text);
    if (!h.ok) return this.refuseHandshake(h.error);
    this.phase = 'open';
    this.handshaken = true;
    this.enqueueUrgent(HANDSHAKE_OK);
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
    this.ws.sendText(handshakeError(error));
    this.ws.close(1000);
  }

  private handle(m: Inbound): void {
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
        this.ws.close(1000);
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
        if (m.invocationId !== null && this.phase === 'open') this.enqueueUrgent(completionRecord(m.invocationId, error));
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

  /** Queues a record; false (and the connection closed) when the client is too far behind. */
  private enqueue(text: string, key?: string, atMs = -1): boolean {
    this.queue.push(text, key, atMs);
    const bytesMax = this.host.settings.queueBytesMax;
    if (this.queue.bytes + this.bufferedBytes <= bytesMax) return true;
    this.bufferedBytes = this.ws.getBufferedAmount();
    if (this.queue.bytes + this.bufferedBytes <= bytesMax) return true;
    this.dropSlowConsumer();
    return false;
  }

  private enqueueUrgent(text: string): void {
    if (!this.enqueue(text)) return;
    if (this.flushPending) return;
    this.flushPending = true;
    queueMicrotask(() => this.flush());
  }

  /** Writes queued records, one WebSocket message per `frameBytesMax`, until the socket pushes back. */
  private flush(): void {
    this.flushPending = false;
    if (this.frameTimer !== null) clearTimeout(this.frameTimer);
    this.frameTimer = null;
    if (this.phase === 'ended') return;
    const measure = this.host.onFrameWritten;
    this.bufferedBytes = this.ws.getBufferedAmount();
    while (!this.queue.empty && this.bufferedBytes === 0) {
      const stamps: number[] | undefined = measure ? [] : undefined;
      const frame = this.queue.takeFrame(this.host.settings.frameBytesMax, stamps) as string;
      const status = this.ws.sendText(frame);
      this.lastSentMs = this.host.monoMs();
      this.bufferedBytes = this.ws.getBufferedAmount();
      if (status === 0) return this.dropSlowConsumer(); // over Bun's own limit: the frame is lost
      // Written: taken by the kernel, or (-1) by Bun's buffer, which sends it before anything later.
      if (measure && stamps!.length > 0) measure(stamps!, this.lastSentMs, this);
    }
    // Output still buffered: drained() resumes.
  }

  private dropSlowConsumer(): void {
    if (this.closed) return;
    this.host.logInfo('hub client not reading, connection closed', {
      hub: this.hubPath,
      connectionId: this.id,
      userId: this.principal.user.id,
      queuedBytes: this.queue.bytes,
      bufferedBytes: this.ws.getBufferedAmount(),
    });
    this.queue.clear();
    this.closeWith(closeRecord(hubErrors.slowConsumer, true));
  }

  /** Queues the close message after everything already queued, writes what the socket takes, closes. */
  private closeWith(text: string): void {
    if (this.closed) return;
    this.phase = 'closing';
    this.closingSinceMs = this.host.monoMs();
    this.inbox.length = 0;
    this.queue.push(text);
    if (this.frameTimer !== null) clearTimeout(this.frameTimer);
    this.frameTimer = null;
    // Bun buffers what the socket cannot take now and sends its Close frame after it.
    const bytesMax = this.host.settings.frameBytesMax;
    for (let frame = this.queue.takeFrame(bytesMax); frame !== null; frame = this.queue.takeFrame(bytesMax)) {
      if (this.ws.sendText(frame) === 0) break;
    }
    this.queue.clear();
    this.ws.close(1000);
  }
}
