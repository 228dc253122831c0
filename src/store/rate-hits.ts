// Calls counted by the cluster-wide sliding-window limits (src/service/rate-limit.ts): one row per
// scope (which limit), key (whose calls) and millisecond, `hits` the calls counted at that instant.
// A take is atomic across nodes: in PostgreSQL it holds a transaction-level advisory lock on the
// (scope, key) hash while it counts and adds, so two nodes cannot both admit the last call of a
// window. SQLite's one connection and BEGIN IMMEDIATE serialize it already.

import type { Sql } from './sql.ts';

export interface RateWindow {
  scope: string;
  key: string;
  max: number;
  windowMs: number;
}

/** Counted, or refused with the time of the oldest call still in the window. */
export type RateTake = { counted: true } | { counted: false; oldestMs: number };

export class RateHitStore {
  constructor(private readonly db: Sql) {}

  /** Drops the key's calls older than the window, then counts one at `nowMs` unless `max` are in it. */
  async take(w: RateWindow, nowMs: number): Promise<RateTake> {
    return this.db.transaction(async () => {
      await this.lock(w.scope, w.key);
      const p = { s: w.scope, k: w.key, cut: nowMs - w.windowMs };
      await this.db.run('DELETE FROM rate_hits WHERE scope = $s AND key = $k AND at_ms <= $cut', p);
      const r = await this.db.get<{ n: number | null; oldest: number | null }>(
        'SELECT SUM(hits) AS n, MIN(at_ms) AS oldest FROM rate_hits WHERE scope = $s AND key = $k AND hits > 0',
        p,
      );
      if (r && r.n !== null && r.oldest !== null && Number(r.n) >= w.max) return { counted: false, oldestMs: Number(r.oldest) };
      await this.db.run(
        `INSERT INTO rate_hits (scope, key, at_ms, hits) VALUES ($s, $k, $t, 1)
         ON CONFLICT (scope, key, at_ms) DO UPDATE SET hits = rate_hits.hits + 1`,
        { s: w.scope, k: w.key, t: nowMs },
      );
      return { counted: true } as const;
    });
  }

  /** Withdraws one call counted at `atMs` (none there: nothing changes). The row goes with its window. */
  async release(scope: string, key: string, atMs: number): Promise<void> {
    await this.db.run('UPDATE rate_hits SET hits = hits - 1 WHERE scope = $s AND key = $k AND at_ms = $t AND hits > 0', { s: scope, k: key, t: atMs });
  }

  /** Forgets every call of the key. */
  async clear(scope: string, key: string): Promise<void> {
    await this.db.run('DELETE FROM rate_hits WHERE scope = $s AND key = $k', { s: scope, k: key });
  }

  /** Drops every call of the scope at or before `cutMs` (keys of callers who went quiet). */
  async sweep(scope: string, cutMs: number): Promise<number> {
    return this.db.run('DELETE FROM rate_hits WHERE scope = $s AND at_ms <= $cut', { s: scope, cut: cutMs });
  }

  private async lock(scope: string, key: string): Promise<void> {
    if (this.db.dialect !== 'postgres') return;
    await this.db.run('SELECT pg_advisory_xact_lock(hashtextextended($k::text, 0))', { k: `rate:${scope}\n${key}` });
  }
}
