// What the SignalR transport (transport.ts) is built with: the hubs, the authentication and
// revalidation hooks, the logger, the clock, and every interval and cap, each defaulting to its
// `limits` entry in src/config.ts when absent.

import { limits } from '../../../config.ts';
import type { Principal } from '../../../service/auth.ts';
import type { ConnectionSettings } from './connection.ts';
import type { HubConnection, HubDefinition } from './hub.ts';

export interface HubTransportOptions {
  hubs: readonly HubDefinition[];
  /** The bearer token's principal, or null when it is missing, bad, expired or revoked. */
  authenticate(token: string | null, request: Request): Promise<Principal | null>;
  /** Asked every `revalidateEveryMs` per open connection; false closes it (logout, key rotation, plan, disabled user). */
  revalidate?(principal: Principal): boolean | Promise<boolean>;
  logError(msg: string, fields?: Record<string, unknown>): void;
  logInfo?(msg: string, fields?: Record<string, unknown>): void;
  /** Wall clock compared with `principal.expiresMs` (default Date.now). */
  nowMs?(): number;
  keepAliveMs?: number;
  clientTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  /** 0 (the default): events leave at the end of the event-loop turn; above 0, that much later. */
  frameIntervalMs?: number;
  /** How long one flush writes to connections before the rest wait for the next turn. */
  flushSliceMs?: number;
  frameBytesMax?: number;
  queueBytesMax?: number;
  messageBytesMax?: number;
  invocationsQueuedMax?: number;
  connectionsMax?: number;
  revalidateEveryMs?: number;
  negotiatedIdsMax?: number;
  negotiatedIdTtlMs?: number;
  closeGraceMs?: number;
  connectionsPerUserMax?: number;
  negotiatedIdsPerUserMax?: number;
  negotiationsPerAddressMax?: number;
  negotiationWindowMs?: number;
  resendBytesMax?: number;
  reconnectGraceMs?: number;
  /** Take the client address from `X-Forwarded-For` (behind a proxy), else the socket's (config.trustProxy). */
  trustProxy?: boolean;
  /**
   * Path prefixes under which every hub is served again (`/live` serves `/live/hubs/user`): the
   * request keeps its URL, so `authenticate` can read the prefix (an API profile named by the URL).
   */
  pathPrefixes?: readonly string[];
  /**
   * Measurement hook (bench/hubs.bench.ts), off when absent: after each WebSocket message that
   * carried hub events (`send`), the `performance.now()` at which each of those events was queued
   * and the one at which the message was handed to the socket. Completions, pings and close
   * messages are not timed; a coalesced quote that was replaced is not reported.
   */
  onFrameWritten?(queuedAtMs: readonly number[], writtenAtMs: number, conn: HubConnection): void;
}

/** The settings every connection reads (connection.ts), defaults filled in. */
export function settingsOf(o: HubTransportOptions): ConnectionSettings {
  return {
    keepAliveMs: o.keepAliveMs ?? limits.hubKeepAliveMs,
    clientTimeoutMs: o.clientTimeoutMs ?? limits.hubClientTimeoutMs,
    handshakeTimeoutMs: o.handshakeTimeoutMs ?? limits.hubHandshakeTimeoutMs,
    frameIntervalMs: o.frameIntervalMs ?? limits.hubFrameIntervalMs,
    frameBytesMax: o.frameBytesMax ?? limits.hubFrameBytesMax,
    queueBytesMax: o.queueBytesMax ?? limits.hubQueueBytesMax,
    messageBytesMax: o.messageBytesMax ?? limits.hubMessageBytesMax,
    invocationsQueuedMax: o.invocationsQueuedMax ?? limits.hubInvocationsQueuedMax,
    closeGraceMs: o.closeGraceMs ?? limits.hubCloseGraceMs,
    resendBytesMax: o.resendBytesMax ?? limits.hubResendBufferBytesMax,
    reconnectGraceMs: o.reconnectGraceMs ?? limits.hubReconnectGraceMs,
  };
}
