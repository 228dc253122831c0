// The live sessions this node holds, by replay account, and how a call finds the session it names:
// the account's own, or a challenge account's live session (bots trade with either id). In a
// cluster the HTTP edge first asks who runs that session (`ownerOf`, with owner.ts: the only place
// that decides); a session another node started is loaded here when its lease is free (adoption).

import type { Invalid } from '../../lib/invalid.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import type { ChallengeService } from '../challenges.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Ownership, SessionOwner } from '../cluster/ownership.ts';
import { claimSessionHere, goneFromThisNode, HERE, ownerByLease } from './owner.ts';
import type { SessionPersistence } from './persistence.ts';
import type { LiveSession } from './session.ts';
import type { SessionError, TradeSessionError } from './types.ts';

export interface RegistryDeps {
  clock: Clock;
  accounts: AccountStore;
  store: ReplayStore;
  challenges: ChallengeService;
  /** Which node runs which session (one node, or leases in a cluster). */
  ownership: Ownership;
}

export class SessionRegistry {
  private readonly sessions = new Map<number, LiveSession>();
  /** Sessions being loaded from the store by this node (a cluster's lazy restore), by account. */
  private readonly adopting = new Map<number, Promise<LiveSession | null>>();
  /** Set when the service shuts down: background work queued before (a prefetch) does nothing. */
  closing = false;

  constructor(
    private readonly d: RegistryDeps,
    private readonly persistence: SessionPersistence,
  ) {}

  // ---- the map ----

  /** The live session of a replay account when this node holds it (no store read, no adoption). */
  get(accountId: number): LiveSession | undefined {
    return this.sessions.get(accountId);
  }

  /** Whether `s` is still the session this node runs for its account (not ended, dropped or replaced). */
  holds(s: LiveSession): boolean {
    return this.sessions.get(s.accountId) === s;
  }

  add(s: LiveSession): void {
    this.sessions.set(s.accountId, s);
  }

  remove(accountId: number): void {
    this.sessions.delete(accountId);
  }

  all(): IterableIterator<LiveSession> {
    return this.sessions.values();
  }

  clear(): void {
    this.sessions.clear();
  }

  /** See owner.ts `goneFromThisNode`: a call that waited for a session this node no longer holds. */
  gone(s: LiveSession): Result<never, { kind: 'session_ended' }> {
    return goneFromThisNode(this.d.ownership, s);
  }

  // ---- ownership (the edge's question) ----

  /**
   * Who runs the live session an account id stands for, as `resolve` finds it (the account's own, or
   * a challenge account's): this node when it holds it, when no session is live (this node answers
   * that), or when it takes the free lease; else the node holding the lease, or `moving`. One node
   * holds every session: asked nothing.
   */
  async ownerOf(accountId: number): Promise<SessionOwner> {
    if (!this.d.ownership.clustered || this.sessions.has(accountId) || this.liveSessionOfChallenge(accountId)) return HERE;
    const live = await this.liveAccountOf(accountId);
    if (live === null || this.sessions.has(live)) return HERE;
    return ownerByLease(this.d.ownership, live);
  }

  /** The replay account of the live session the store holds for an account id (`resolve`'s rules), or null. */
  private async liveAccountOf(accountId: number): Promise<number | null> {
    const account = await this.d.accounts.byId(accountId);
    if (!account) return null;
    const row = account.kind === 'challenge' ? null : await this.d.store.session(accountId);
    if (row?.status === 'active') return accountId;
    const challengeId = account.kind === 'challenge' ? accountId : (row?.challengeId ?? null);
    if (challengeId === null) return null;
    const here = this.liveSessionOfChallenge(challengeId);
    if (here) return here.accountId;
    const active = await this.d.store.activeSessionOfChallenge(challengeId);
    return active?.status === 'active' ? active.accountId : null;
  }

  // ---- resolution ----

  /** The live session behind an account the user owns. */
  async live(userId: number, accountId: number | Invalid): Promise<Result<LiveSession, SessionError>> {
    const r = await this.resolve(userId, accountId);
    return r.ok || r.error.kind !== 'challenge_inactive' ? (r as Result<LiveSession, SessionError>) : err({ kind: 'session_ended' });
  }

  /**
   * The live session an account trades in: a replay account's own session, or the live session of a
   * challenge account (bots may trade with the challenge account's id). When there is none and the
   * account's challenge has passed, failed or ended, the answer is `challenge_inactive`.
   */
  async resolve(userId: number, accountId: number | Invalid): Promise<Result<LiveSession, TradeSessionError>> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const direct = this.sessions.get(accountId);
    if (direct) return direct.userId === userId ? ok(direct) : err({ kind: 'account_not_found' });
    const account = await this.d.accounts.byId(accountId);
    if (!account || account.userId !== userId) return err({ kind: 'account_not_found' });
    const row = account.kind === 'challenge' ? null : await this.d.store.session(accountId);
    const adopted = await this.liveFromRow(row);
    if (adopted) return ok(adopted);
    const challengeId = account.kind === 'challenge' ? accountId : (row?.challengeId ?? null);
    if (challengeId === null) return err({ kind: 'session_ended' });
    const live = this.liveSessionOfChallenge(challengeId) ?? (await this.liveFromRow(this.d.ownership.clustered ? await this.d.store.activeSessionOfChallenge(challengeId) : null));
    if (live) return ok(live);
    const c = await this.d.challenges.byId(challengeId);
    return c && c.state.status !== 'active' ? err({ kind: 'challenge_inactive' }) : err({ kind: 'session_ended' });
  }

  /**
   * The live session on a challenge wherever it runs: in a cluster one held by another node is taken
   * over when its lease is free (the edge passed a request for one whose lease is held on to its node).
   */
  async liveOfChallenge(challengeId: number): Promise<LiveSession | undefined> {
    const here = this.liveSessionOfChallenge(challengeId);
    if (here || !this.d.ownership.clustered) return here;
    return this.liveFromRow(await this.d.store.activeSessionOfChallenge(challengeId));
  }

  /** The live session on a challenge when this node holds it. */
  liveSessionOfChallenge(challengeId: number): LiveSession | undefined {
    // A practice branch (branching.ts) is no session of its challenge.
    for (const s of this.sessions.values()) if (s.challenge?.accountId === challengeId && !s.challenge.practice) return s;
    return undefined;
  }

  // ---- adoption (a cluster) ----

  /** In a cluster, the live session of a row the store holds as active (adopted, or owned elsewhere). */
  private async liveFromRow(row: SessionRow | null): Promise<LiveSession | undefined> {
    if (!this.d.ownership.clustered || row?.status !== 'active') return undefined;
    return (await this.adopt(row.accountId)) ?? undefined;
  }

  /**
   * A live session this node does not hold yet (a cluster): takes its lease and loads it from the
   * store (SessionMoving when another node holds it now: owner.ts). Null when the store says it ended.
   */
  private adopt(accountId: number): Promise<LiveSession | null> {
    const present = this.sessions.get(accountId);
    if (present) return Promise.resolve(present);
    let pending = this.adopting.get(accountId);
    if (!pending) {
      pending = this.adoptNow(accountId).finally(() => this.adopting.delete(accountId));
      this.adopting.set(accountId, pending);
    }
    return pending;
  }

  private async adoptNow(accountId: number): Promise<LiveSession | null> {
    await claimSessionHere(this.d.ownership, accountId);
    // Read after the lease is ours: the last holder's commits are all in.
    const row = await this.d.store.session(accountId);
    if (row?.status !== 'active') {
      await this.d.ownership.release(accountId);
      return null;
    }
    const s = await this.persistence.restore(row, this.d.clock.nowMs());
    if (!s) {
      await this.persistence.endUnreadable(row, this.d.clock.nowMs());
      await this.d.ownership.release(accountId);
      return null;
    }
    this.sessions.set(s.accountId, s);
    return s;
  }
}
