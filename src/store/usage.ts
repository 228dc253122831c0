// Per-user daily History usage (UTC days), for the spec's daily bar budget and our processing budget.

import type { Sql } from './sql.ts';

export interface Usage {
  bars: number;
  sourceBars: number;
}

export class UsageStore {
  constructor(private readonly db: Sql) {}

  async get(userId: number, day: number): Promise<Usage> {
    const r = (await this.db.get('SELECT bars, source_bars FROM history_usage WHERE user_id = $u AND day = $d', { u: userId, d: day })) as {
      bars: number;
      source_bars: number;
    } | null;
    return r ? { bars: r.bars, sourceBars: r.source_bars } : { bars: 0, sourceBars: 0 };
  }

  async add(userId: number, day: number, bars: number, sourceBars: number): Promise<void> {
    await this.db.run(`INSERT INTO history_usage (user_id, day, bars, source_bars) VALUES ($u, $d, $b, $s)
         ON CONFLICT (user_id, day) DO UPDATE SET bars = history_usage.bars + excluded.bars, source_bars = history_usage.source_bars + excluded.source_bars`, { u: userId, d: day, b: bars, s: sourceBars });
  }
}
