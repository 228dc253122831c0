// Which node runs an account's live replay session. One node (SQLite, or PostgreSQL with one
// server) owns every session: `SingleNode`. In a cluster each session is held under a lease in the
// shared store (`Leased`, src/store/leases.ts): taken by the node that starts or first needs the
// session, renewed while that node lives, checked in every commit of the session, released when it
// ends. A node that dies stops renewing; once its leases expire the next request for one of its
// accounts, on any node, takes the lease and loads the session from the store.

import type { LeaseStore } from '../../store/leases.ts';

/**
 * This node cannot run the session at this instant, and nothing was done: its lease is changing
 * hands, another node took it since the request's owner was decided at the edge, or this node let
 * the session go while the call waited for it. Thrown where it must undo a transaction (a commit's
 * fence), and answered as the store's own failures are: 503 moving, retry (src/app.ts). The retry's
 * owner is decided at the edge again (src/http/shared/edge.ts).
 */
export class SessionMoving extends Error {
  constructor(readonly accountId: number) {
    super(`the session of account ${accountId} is not this node's at this instant`);
    this.name = 'SessionMoving';
  }
}

/** This node no longer holds the session's lease: the commit is refused and nothing is written. */
export class LeaseLost extends SessionMoving {
  constructor(accountId: number) {
    super(accountId);
    this.message = `the lease of account ${accountId} was lost`;
    this.name = 'LeaseLost';
  }
}

/**
 * Who runs the live session an account names, decided before a request for it is served: this node
 * (it holds the lease, or took it; or no session is live, which this node answers), another node
 * (where to pass the request, and the lease's commit count read with it: forward.ts), or nobody at
 * this instant (its lease is changing hands: 503, retry).
 */
export type SessionOwner =
  | { readonly at: 'here' }
  | { readonly at: 'node'; readonly nodeUrl: string; readonly accountId: number; readonly commits: number }
  | { readonly at: 'moving' };

/** The question the HTTP edge asks of a request that names a session (service/replay/owner.ts answers it). */
export interface SessionOwners {
  /** Who runs the live session `accountId` stands for (a replay account's own, or a challenge account's). */
  ownerOf(accountId: number): Promise<SessionOwner>;
}

export type Claim = { owner: 'self' } | { owner: 'other'; nodeUrl: string; commits: number } | { owner: 'moving' };

/**
 * What became of a request forwarded to a node (`fenceOut`): `wait` while that node may still commit
 * it (its lease is live); once it can no longer, `untouched` when no commit was made under the
 * session's lease since the hop read its count (the request was not carried out), `touched` when one
 * was (maybe the request's own: the hop cannot tell).
 */
export type HopFence = 'wait' | 'untouched' | 'touched';

export interface Ownership {
  readonly clustered: boolean;
  readonly nodeId: string;
  /** Takes (or keeps) the session of `accountId` for this node, or says who holds it. */
  claim(accountId: number): Promise<Claim>;
  /** Inside a session's commit transaction: throws LeaseLost unless this node still holds it (the transaction is undone). */
  fence(accountId: number): Promise<void>;
  /** The session ended (in its final commit's transaction): the lease goes. */
  release(accountId: number): Promise<void>;
  /** Renews this node's leases every `renewMs`; `lost` hears of sessions whose lease expired meanwhile. */
  startRenewing(lost: (accountIds: readonly number[]) => void): void;
  /** Stops renewing and hands back every lease of this node (a drain). */
  stop(): Promise<void>;
  /** Where other nodes reach this one, once it listens (NODE_URL, or its own address). */
  advertise(nodeUrl: string): void;
  /**
   * For a request forwarded to `nodeUrl` when the lease's count was `commitsSeen`: `wait` while that
   * node's lease is live (or gone: the session ended, its answer comes). Once it lapses, this node
   * takes the lease (fencing that node out: its commits now fail), and answers whether a commit was
   * made since; as it does when another node holds the lease.
   */
  fenceOut(accountId: number, nodeUrl: string, commitsSeen: number | null): Promise<HopFence>;
}

export class SingleNode implements Ownership {
  readonly clustered = false;
  constructor(readonly nodeId: string) {}
  async claim(): Promise<Claim> {
    return { owner: 'self' };
  }
  async fence(): Promise<void> {}
  async release(): Promise<void> {}
  startRenewing(): void {}
  async stop(): Promise<void> {}
  advertise(): void {}
  async fenceOut(): Promise<HopFence> {
    return 'touched';
  }
}

export interface LeaseSettings {
  nodeId: string;
  /** Where other nodes reach this one (forwarded requests). */
  nodeUrl: string;
  ttlMs: number;
  renewMs: number;
}

export class Leased implements Ownership {
  readonly clustered = true;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Accounts this node believes it holds (its live sessions). */
  private readonly held = new Set<number>();

  constructor(
    private readonly leases: LeaseStore,
    private readonly settings: LeaseSettings,
    private readonly logError: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  get nodeId(): string {
    return this.settings.nodeId;
  }

  async claim(accountId: number): Promise<Claim> {
    const { nodeId, nodeUrl, ttlMs } = this.settings;
    const holder = await this.leases.acquire(accountId, nodeId, nodeUrl, ttlMs);
    if (holder === null) return { owner: 'moving' };
    if (holder.nodeId === nodeId) {
      this.held.add(accountId);
      return { owner: 'self' };
    }
    return { owner: 'other', nodeUrl: holder.nodeUrl, commits: holder.commits };
  }

  async fence(accountId: number): Promise<void> {
    if (!(await this.leases.extend(accountId, this.settings.nodeId, this.settings.ttlMs))) throw new LeaseLost(accountId);
  }

  async release(accountId: number): Promise<void> {
    this.held.delete(accountId);
    await this.leases.release(accountId, this.settings.nodeId);
  }

  startRenewing(lost: (accountIds: readonly number[]) => void): void {
    this.timer ??= setInterval(() => {
      this.leases.renewAll(this.settings.nodeId, this.settings.ttlMs).then(
        (kept) => {
          const still = new Set(kept);
          const gone = [...this.held].filter((id) => !still.has(id));
          for (const id of gone) this.held.delete(id);
          if (gone.length > 0) lost(gone);
        },
        (e) => this.logError('lease renewal failed; will retry', { error: String(e) }),
      );
    }, this.settings.renewMs);
  }

  advertise(nodeUrl: string): void {
    this.settings.nodeUrl = nodeUrl;
  }

  async fenceOut(accountId: number, nodeUrl: string, commitsSeen: number | null): Promise<HopFence> {
    const lease = await this.leases.look(accountId);
    // Released: the session ended, by a node alive to answer (a paused or dead node releases
    // nothing, and a drain answers its requests first): its answer comes, or the hop's deadline.
    if (lease === null) return 'wait';
    let now: { nodeUrl: string; commits: number } = lease;
    if (lease.nodeUrl === nodeUrl) {
      if (lease.live) return 'wait';
      // Lapsed, and nobody took it: that node could still extend it and commit. Taken, it cannot.
      const { nodeId, nodeUrl: selfUrl, ttlMs } = this.settings;
      const taken = await this.leases.acquire(accountId, nodeId, selfUrl, ttlMs);
      // Changing hands, or renewed meanwhile (that node is back): look again.
      if (taken === null || taken.nodeUrl === nodeUrl) return 'wait';
      if (taken.nodeId === nodeId) this.held.add(accountId);
      now = taken;
    }
    return now.commits === commitsSeen ? 'untouched' : 'touched';
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.held.clear();
    await this.leases.releaseAll(this.settings.nodeId);
  }
}
