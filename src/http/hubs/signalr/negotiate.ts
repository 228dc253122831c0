// POST {hub}/negotiate (TransportProtocols.md, "Negotiate"): issues a connection id the client then
// presents as `id=` on the WebSocket request. Version 1 answers a separate secret connectionToken
// (the value to present); version 0 has none and the client presents the connectionId. Only the
// WebSockets transport is offered, and never stateful reconnect (a JS client refuses an answer
// with `useStatefulReconnect` it did not ask for).
//
// Ids are single-use, bound to the user who negotiated, and forgotten after `ttlMs` unused; the
// table holds at most `idsMax` (the oldest is dropped first: it is the likeliest to be abandoned).

import { randomBytes } from 'node:crypto';

export interface NegotiatedId {
  connectionId: string;
  userId: number;
  expiresAtMs: number;
}

export type NegotiateAnswer =
  | { negotiateVersion: number; connectionId: string; connectionToken?: string; availableTransports: unknown[] }
  | { error: string };

const AVAILABLE_TRANSPORTS = [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }];

/** Random URL-safe id, 16 bytes as ASP.NET's. */
function newId(): string {
  return randomBytes(16).toString('base64url');
}

export class NegotiatedIds {
  private readonly byPresented = new Map<string, NegotiatedId>();

  constructor(
    private readonly idsMax: number,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.byPresented.size;
  }

  /** The negotiate answer for `?negotiateVersion=` (absent = 0), with its id remembered. */
  issue(versionParam: string | null, userId: number, nowMs: number): NegotiateAnswer {
    let version = 0;
    if (versionParam !== null) {
      if (!/^-?\d+$/.test(versionParam.trim())) return { error: 'The client requested a non-integer protocol version.' };
      version = Math.min(Number(versionParam), 1);
      if (version < 0) return { error: `The client requested version '${version}', but the server does not support this version.` };
    }
    const connectionId = newId();
    const connectionToken = version >= 1 ? newId() : undefined;
    this.remember(connectionToken ?? connectionId, { connectionId, userId, expiresAtMs: nowMs + this.ttlMs });
    return version >= 1
      ? { negotiateVersion: 1, connectionId, connectionToken, availableTransports: AVAILABLE_TRANSPORTS }
      : { negotiateVersion: 0, connectionId, availableTransports: AVAILABLE_TRANSPORTS };
  }

  /** The connection id for a presented `id`, used up; null when unknown, expired or another user's. */
  take(presented: string, userId: number, nowMs: number): string | null {
    const entry = this.byPresented.get(presented);
    if (!entry || entry.userId !== userId || entry.expiresAtMs <= nowMs) return null;
    this.byPresented.delete(presented);
    return entry.connectionId;
  }

  clear(): void {
    this.byPresented.clear();
  }

  sweep(nowMs: number): void {
    // Insertion order is expiry order (one ttl for all), so the scan stops at the first live id.
    for (const [key, entry] of this.byPresented) {
      if (entry.expiresAtMs > nowMs) break;
      this.byPresented.delete(key);
    }
  }

  private remember(presented: string, entry: NegotiatedId): void {
    if (this.byPresented.size >= this.idsMax) {
      const oldest = this.byPresented.keys().next().value;
      if (oldest !== undefined) this.byPresented.delete(oldest);
    }
    this.byPresented.set(presented, entry);
  }
}
