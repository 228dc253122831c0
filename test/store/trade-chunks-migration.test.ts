// Migration 14 on a database holding runs: the trades of a run stored whole (one BLOB, before
// chunks) become one chunk from 0, and page as before; a run stored after it is cut into chunks.
// On SQLite and on PostgreSQL, step by step as a server upgrading its database would.

import { describe, expect, it } from 'bun:test';
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { MIGRATIONS, PG_MIGRATIONS } from '../../src/store/migrations.ts';
import { encodeTrades, PlaygroundRunStore, type StoredTrade } from '../../src/store/playground-runs.ts';
import { type Sql, SqliteSql } from '../../src/store/sql.ts';
import { PostgresSql } from '../../src/store/sql-postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

/** The step that cuts trades into chunks (1-based), and the steps before it. */
const CHUNK_STEP = 14;

function trade(i: number): StoredTrade {
  return {
    direction: i % 2 === 0 ? 1 : -1, entryTimeS: 1_735_776_000 + 60 * i, exitTimeS: 1_735_776_030 + 60 * i, entryQty: 1 + (i % 3),
    entryValueTicks: 80_000 + i, exitValueTicks: 80_004 + i, pnlCents: 1720 - i, feesCents: 280,
  };
}

/** Before the step: a user, an ended run, and its 2,500 trades as one BLOB (the old layout). `blob` spells a hex BLOB literal. */
async function seedOldLayout(exec: (sql: string) => Promise<unknown>, blob: (hex: string) => string): Promise<StoredTrade[]> {
  const all = Array.from({ length: 2500 }, (_, i) => trade(i));
  await exec(`INSERT INTO users (id, email, plan, verified, disabled, created_ms) VALUES (1, 'quant@example.com', 'pro', 1, 1, 0)`);
  await exec(`INSERT INTO playground_runs (id, user_id, instrument, timeframe, start_date, end_date, params_json, context_timeframes_json, status,
      bars_total, started_ms, completed_ms) VALUES ('exe_old', 1, 'NQ', '1m', '2025-01-02', '2025-01-02', '{}', '[]', 'completed', 10, 1, 2)`);
  const hex = Buffer.from(encodeTrades(all)).toString('hex');
  await exec(`INSERT INTO playground_run_trades (run_id, trade_count, trades) VALUES ('exe_old', 2500, ${blob(hex)})`);
  return all;
}

async function checkAfter(sql: Sql, all: StoredTrade[]): Promise<void> {
  const store = new PlaygroundRunStore(sql);
  expect(await store.tradesPage(1, 'exe_old', 1990, 20)).toEqual({ stored: 2500, trades: all.slice(1990, 2010) });
  expect(await store.tradesPage(1, 'exe_old', 2490, 1000)).toEqual({ stored: 2500, trades: all.slice(2490) });
  expect(await store.tradesPage(2, 'exe_old', 0, 10)).toBeNull(); // another user's
  expect(await sql.all('SELECT run_id, first_index, trade_count FROM playground_run_trades')).toEqual([{ run_id: 'exe_old', first_index: 0, trade_count: 2500 }]);
  // A run ending after the step is cut into chunks, and pages the same.
  await store.insert({
    id: 'exe_new', userId: 1, strategyId: null, templateId: null, instrument: 'NQ', timeframe: '1m', startDate: '2025-01-02', endDate: '2025-01-02',
    params: {}, contextTimeframes: [], speed: null, barsTotal: 10, startedMs: 3,
  });
  await store.end('exe_new', {
    status: 'completed', error: null, totalPnlCents: 0, totalTrades: 2500, winRate: 0, barsDone: 10, speed: null, completedMs: 4,
    trades: all, tradesPerChunk: 1000, result: {},
  });
  expect(await store.tradesPage(1, 'exe_new', 1990, 20)).toEqual({ stored: 2500, trades: all.slice(1990, 2010) });
  expect(await sql.all("SELECT first_index, trade_count FROM playground_run_trades WHERE run_id = 'exe_new' ORDER BY first_index")).toEqual([
    { first_index: 0, trade_count: 1000 }, { first_index: 1000, trade_count: 1000 }, { first_index: 2000, trade_count: 500 },
  ]);
}

describe('migration 14 on SQLite', () => {
  it('keeps the trades of runs stored whole, as one chunk', async () => {
    const db = new Database(':memory:', { strict: true });
    db.exec('PRAGMA foreign_keys = ON');
    for (const step of MIGRATIONS.slice(0, CHUNK_STEP - 1)) db.exec(step);
    const all = await seedOldLayout(async (s) => db.exec(s), (hex) => `X'${hex}'`);
    db.exec(MIGRATIONS[CHUNK_STEP - 1]);
    const sql = new SqliteSql(db);
    await checkAfter(sql, all);
    await sql.close();
  });
});

describePg('migration 14 on PostgreSQL', () => {
  it('keeps the trades of runs stored whole, as one chunk', async () => {
    const pool = new SQL(await freshDatabase(), { max: 1 });
    for (const step of PG_MIGRATIONS.slice(0, CHUNK_STEP - 1)) await pool.unsafe(step);
    const all = await seedOldLayout((s) => pool.unsafe(s), (hex) => `decode('${hex}', 'hex')`);
    await pool.unsafe(PG_MIGRATIONS[CHUNK_STEP - 1]);
    const sql = new PostgresSql(pool);
    await checkAfter(sql, all);
    await sql.close();
  });
});
