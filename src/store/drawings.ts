// A replay session's chart drawings: the trader's horizontal and trend lines, one row per session,
// written whole (the console sends every line on each change). Prices are ticks and times epoch
// seconds, as everywhere below http/; the lines are JSON in one column because they are only ever
// read and written together. Drawings go with their session's account (ReplayStore.deleteEnded).

import type { Sql } from './sql.ts';

export interface TrendLineTicks {
  /** Each end's time (epoch seconds) and price (ticks), in the order the trader clicked them. */
  t1S: number;
  p1Ticks: number;
  t2S: number;
  p2Ticks: number;
}

export interface Drawings {
  hlinesTicks: number[];
  trends: TrendLineTicks[];
}

export interface DrawingsRow extends Drawings {
  updatedMs: number;
}

const ints = (xs: unknown): xs is number[] => Array.isArray(xs) && xs.every((x) => Number.isSafeInteger(x));

/** The stored JSON, checked: the store wrote it, so a wrong shape is a broken invariant. */
function parsed(json: string, accountId: number): Drawings {
  const d = JSON.parse(json) as { h?: unknown; t?: unknown };
  const trends = Array.isArray(d.t) ? d.t : null;
  if (!ints(d.h) || !trends || !trends.every((t) => ints(t) && t.length === 4)) throw new Error(`replay_drawings ${accountId}: malformed ${json.slice(0, 80)}`);
  return { hlinesTicks: d.h, trends: (trends as number[][]).map(([t1S, p1Ticks, t2S, p2Ticks]) => ({ t1S, p1Ticks, t2S, p2Ticks })) };
}

export class DrawingsStore {
  constructor(private readonly db: Sql) {}

  /** The session's drawings, or null when it has none. */
  async of(accountId: number): Promise<DrawingsRow | null> {
    const r = await this.db.get<{ drawings: string; updated_ms: number }>('SELECT drawings, updated_ms FROM replay_drawings WHERE account_id = $a', { a: accountId });
    return r ? { ...parsed(r.drawings, accountId), updatedMs: r.updated_ms } : null;
  }

  /** Replaces the session's drawings; none at all deletes the row. */
  async put(accountId: number, d: Drawings, nowMs: number): Promise<void> {
    if (d.hlinesTicks.length === 0 && d.trends.length === 0) return this.delete(accountId);
    // Compact: [t1S, p1Ticks, t2S, p2Ticks] per trend line (200 lines stay a few kilobytes).
    const json = JSON.stringify({ h: d.hlinesTicks, t: d.trends.map((t) => [t.t1S, t.p1Ticks, t.t2S, t.p2Ticks]) });
    await this.db.run(
      `INSERT INTO replay_drawings (account_id, drawings, updated_ms) VALUES ($a, $d, $now)
         ON CONFLICT (account_id) DO UPDATE SET drawings = excluded.drawings, updated_ms = excluded.updated_ms`,
      { a: accountId, d: json, now: nowMs },
    );
  }

  async delete(accountId: number): Promise<void> {
    await this.db.run('DELETE FROM replay_drawings WHERE account_id = $a', { a: accountId });
  }
}
