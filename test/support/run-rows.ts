// Rows the playground's run queue tests write straight to the store: a user, and a run to queue.

import type { NewRun } from '../../src/store/playground-runs.ts';
import type { Sql } from '../../src/store/sql.ts';

/** A Pro user written straight to the store; answers its id. */
export async function addUser(sql: Sql, email: string): Promise<number> {
  await sql.run(`INSERT INTO users (email, plan, verified, disabled, created_ms) VALUES ($email, 'pro', 1, 0, 0)`, { email });
  return (await sql.get<{ id: number }>('SELECT id FROM users WHERE email = $email', { email }))!.id;
}

/** A one-day NQ 1 m run of the user's (1,380 bars), full speed unless `over` says otherwise. */
export function queuedRun(id: string, userId: number, over: Partial<NewRun> = {}): NewRun {
  return {
    id, userId, strategyId: null, templateId: null, instrument: 'NQ', timeframe: '1m', startDate: '2025-02-27', endDate: '2025-02-27',
    params: {}, contextTimeframes: [], speed: null, barsTotal: 1380, startedMs: 1000, ...over,
  };
}
