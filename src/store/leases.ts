// Session leases: which node holds each account's live replay session, until when. Times are the
// database's own clock (every node reads the same one), in epoch milliseconds. A lease is taken when
// free or expired, renewed by its node while it lives, checked inside every commit of the session
// (a node that lost it writes nothing), and deleted when the session ends. Each lease counts the
// commits made under it (`commits`: every commit's fence; renewals do not count), which a forward hop
// reads before and after to tell whether the owner it lost carried anything out.

import type { Dialect, Sql } from './sql.ts';

export interface LeaseHolder {
  nodeId: string;
  nodeUrl: string;
  expiresMs: number;
  /** Commits of the session under its lease so far, whichever node made them. */
  commits: number;
}

/** A lease as stored, live or not. */
export interface LeaseRow extends LeaseHolder {
  live: boolean;
}

type Row = { node_id: string; node_url: string; expires_ms: number; commits: number };

const holderOf = (r: Row): LeaseHolder => ({ nodeId: r.node_id, nodeUrl: r.node_url, expiresMs: r.expires_ms, commits: Number(r.commits) });

/** The database's now in epoch milliseconds, as SQL. */
function nowMsSql(d: Dialect): string {
  return d === 'postgres' ? `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT` : `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;
}

export class LeaseStore {
  private readonly now: string;

  constructor(private readonly db: Sql) {
    this.now = nowMsSql(db.dialect);
  }

  /**
   * Takes the lease of `accountId` for `nodeId` when it is free, expired or already this node's;
   * answers who holds it afterwards (this node when taken). Null when it changed hands between the
   * two statements more often than `attemptsMax` (the session is moving: the caller answers 503).
   */
  async acquire(accountId: number, nodeId: string, nodeUrl: string, ttlMs: number, attemptsMax = 3): Promise<LeaseHolder | null> {
    for (let attempt = 0; attempt < attemptsMax; attempt++) {
      const row = await this.db.get<Row>(
        `INSERT INTO session_leases (account_id, node_id, node_url, expires_ms) VALUES ($a, $n, $u, ${this.now} + $ttl)
         ON CONFLICT (account_id) DO UPDATE SET node_id = excluded.node_id, node_url = excluded.node_url, expires_ms = excluded.expires_ms
           WHERE session_leases.node_id = excluded.node_id OR session_leases.expires_ms < ${this.now}
         RETURNING node_id, node_url, expires_ms, commits`,
        { a: accountId, n: nodeId, u: nodeUrl, ttl: ttlMs },
      );
      if (row) return holderOf(row);
      // Another node's live lease refused the take; it may have expired (or been released) since,
      // in which case there is no holder to name and the next take will succeed.
      const holder = await this.holder(accountId);
      if (holder) return holder;
    }
    return null;
  }

  /** The live lease of `accountId`; null when none is (expired, released). */
  async holder(accountId: number): Promise<LeaseHolder | null> {
    const row = await this.look(accountId);
    return row?.live ? { nodeId: row.nodeId, nodeUrl: row.nodeUrl, expiresMs: row.expiresMs, commits: row.commits } : null;
  }

  /** The lease of `accountId` as stored, expired or not; null when there is none (released). */
  async look(accountId: number): Promise<LeaseRow | null> {
    const row = await this.db.get<Row & { live: number }>(
      `SELECT node_id, node_url, expires_ms, commits, CASE WHEN expires_ms >= ${this.now} THEN 1 ELSE 0 END AS live FROM session_leases WHERE account_id = $a`,
      { a: accountId },
    );
    return row ? { ...holderOf(row), live: row.live === 1 } : null;
  }

  /**
   * The fence of a commit: extends the lease if it is still this node's, and counts the commit;
   * false when another node took it. An expired lease nobody took is still this node's: nothing ran
   * elsewhere meanwhile. The row lock orders this against another node's `acquire`, so exactly one
   * of them wins.
   */
  async extend(accountId: number, nodeId: string, ttlMs: number): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE session_leases SET expires_ms = ${this.now} + $ttl, commits = commits + 1 WHERE account_id = $a AND node_id = $n`,
      { a: accountId, n: nodeId, ttl: ttlMs },
    );
    return n === 1;
  }

  /** Renews every lease still the node's (see `extend`); answers the accounts it holds. */
  async renewAll(nodeId: string, ttlMs: number): Promise<number[]> {
    const rows = await this.db.all<{ account_id: number }>(
      `UPDATE session_leases SET expires_ms = ${this.now} + $ttl WHERE node_id = $n RETURNING account_id`,
      { n: nodeId, ttl: ttlMs },
    );
    return rows.map((r) => r.account_id);
  }

  async release(accountId: number, nodeId: string): Promise<void> {
    await this.db.run('DELETE FROM session_leases WHERE account_id = $a AND node_id = $n', { a: accountId, n: nodeId });
  }

  async releaseAll(nodeId: string): Promise<void> {
    await this.db.run('DELETE FROM session_leases WHERE node_id = $n', { n: nodeId });
  }
}
