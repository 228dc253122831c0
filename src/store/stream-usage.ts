// Bars a user was streamed by Replay/step per UTC day, shared by the nodes of a cluster
// (src/service/streaming-budget.ts). The check and the add are one statement, so two nodes cannot
// both take the last bars of a day.

import type { Sql } from './sql.ts';

export class StreamUsageStore {
  constructor(private readonly db: Sql) {}

  async get(userId: number, day: number): Promise<number> {
    const r = await this.db.get<{ bars: number }>('SELECT bars FROM stream_usage WHERE user_id = $u AND day = $d', { u: userId, d: day });
    return r ? Number(r.bars) : 0;
  }

  /** Adds `bars` to the day's count unless it would pass `max`; whether it did. */
  async addWithin(userId: number, day: number, bars: number, max: number): Promise<boolean> {
    if (bars > max) return false;
    const r = await this.db.get<{ bars: number }>(
      `INSERT INTO stream_usage (user_id, day, bars) VALUES ($u, $d, $b)
       ON CONFLICT (user_id, day) DO UPDATE SET bars = stream_usage.bars + excluded.bars
       WHERE stream_usage.bars + excluded.bars <= $max
       RETURNING bars`,
      { u: userId, d: day, b: bars, max },
    );
    return r !== null;
  }

  /** Drops the days before `day`. */
  async sweepBefore(day: number): Promise<number> {
    return this.db.run('DELETE FROM stream_usage WHERE day < $d', { d: day });
  }
}
