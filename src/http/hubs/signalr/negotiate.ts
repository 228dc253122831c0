// POST {hub}/negotiate (dotnet/aspnetcore's TransportProtocols.md, "Negotiate"; ASP.NET's HttpConnectionDispatcher.
// ProcessNegotiate): issues a connection id the client then presents as `id=` on the WebSocket
// request. Version 1 answers a separate secret connectionToken (the value to present); version 0 has
// none and the client presents the connectionId. Only the WebSockets transport is offered. Stateful
// reconnect is granted when the client asks (`useStatefulReconnect=true`), and the answer carries
// `useStatefulReconnect: true` only then (a JS client refuses an answer with it that it did not ask for).
//
// Ids are single-use (a stateful connection's token is then the transport's to resume with), bound
// to the user who negotiated, and forgotten after `ttlMs` unused. Each user holds at most
// `perUserMax` pending ids, its own oldest dropped first, so one user's flood never evicts another
// user's id; all users together hold at most `idsMax`, past which a user with none pending is refused.

import { randomBytes } from 'node:crypto';
import { hubErrors } from './messages.ts';

export interface NegotiatedId {
  connectionId: string;
  userId: number;
  expiresAtMs: number;
  /** The client asked for stateful reconnect and it was granted. */
  statefulReconnect: boolean;
}

/** A granted negotiation, its keys in ASP.NET's order (NegotiateProtocol.WriteResponse). */
export interface Negotiated {
  useStatefulReconnect?: true;
  negotiateVersion: number;
  connectionId: string;
  connectionToken?: string;
  availableTransports?: unknown[];
}

export type NegotiateAnswer = Negotiated | { error: string };

/** What the client asked for, from the query: `negotiateVersion` (null: absent) and `useStatefulReconnect`. */
export interface NegotiateRequest {
  version: string | null;
  statefulReconnect: boolean;
}

const AVAILABLE_TRANSPORTS = [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }];

/** Random URL-safe id, 16 bytes as ASP.NET's. */
function newId(): string {
  return randomBytes(16).toString('base64url');
}

/** The negotiate version asked for (absent = 0, above 1 = 1), or ASP.NET's error for a bad one. */
function versionOf(param: string | null): number | { error: string } {
  if (param === null) return 0;
  if (!/^-?\d+$/.test(param.trim())) return { error: 'The client requested a non-integer protocol version.' };
  const version = Number(param);
  if (version < 0) return { error: `The client requested version '${version}', but the server does not support this version.` };
  return Math.min(version, 1);
}

export class NegotiatedIds {
  /** Every pending id by the value the client presents; insertion order is expiry order (one ttl). */
  private readonly byPresented = new Map<string, NegotiatedId>();
  /** Each user's pending ids, oldest first. */
  private readonly byUser = new Map<number, Set<string>>();

  constructor(
    private readonly idsMax: number,
    private readonly perUserMax: number,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.byPresented.size;
  }

  /** Pending ids of one user. */
  pendingOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /** The negotiate answer, with its id remembered. */
  issue(request: NegotiateRequest, userId: number, nowMs: number): NegotiateAnswer {
    const version = versionOf(request.version);
    if (typeof version !== 'number') return version;
    if (!this.makeRoom(userId)) return { error: hubErrors.negotiatedIdsFull };
    const connectionId = newId();
    const connectionToken = version >= 1 ? newId() : undefined;
    const statefulReconnect = request.statefulReconnect;
    this.remember(connectionToken ?? connectionId, { connectionId, userId, expiresAtMs: nowMs + this.ttlMs, statefulReconnect });
    const answer: Negotiated = statefulReconnect ? { useStatefulReconnect: true, negotiateVersion: version, connectionId } : { negotiateVersion: version, connectionId };
    if (connectionToken !== undefined) answer.connectionToken = connectionToken;
    answer.availableTransports = AVAILABLE_TRANSPORTS;
    return answer;
  }

  /** The id's entry for a presented `id`, used up; null when unknown, expired or another user's. */
  take(presented: string, userId: number, nowMs: number): NegotiatedId | null {
    const entry = this.byPresented.get(presented);
    if (!entry || entry.userId !== userId || entry.expiresAtMs <= nowMs) return null;
    this.forget(presented, entry.userId);
    return entry;
  }

  clear(): void {
    this.byPresented.clear();
    this.byUser.clear();
  }

  sweep(nowMs: number): void {
    for (const [key, entry] of this.byPresented) {
      if (entry.expiresAtMs > nowMs) break;
      this.forget(key, entry.userId);
    }
  }

  /** Whether an id may be added for `userId`, after dropping that user's own oldest when it is at a cap. */
  private makeRoom(userId: number): boolean {
    const mine = this.byUser.get(userId);
    const full = this.byPresented.size >= this.idsMax;
    if (!full && (mine?.size ?? 0) < this.perUserMax) return true;
    if (!mine || mine.size === 0) return false; // the table is full of other users' ids: never evict theirs
    this.forget(mine.values().next().value as string, userId);
    return true;
  }

  private remember(presented: string, entry: NegotiatedId): void {
    this.byPresented.set(presented, entry);
    let mine = this.byUser.get(entry.userId);
    if (!mine) this.byUser.set(entry.userId, (mine = new Set()));
    mine.add(presented);
  }

  private forget(presented: string, userId: number): void {
    this.byPresented.delete(presented);
    const mine = this.byUser.get(userId);
    if (!mine) return;
    mine.delete(presented);
    if (mine.size === 0) this.byUser.delete(userId);
  }
}
