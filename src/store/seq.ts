// Insertion order for tables whose key is not a number (payouts, strategies, playground runs): the
// `seq` column (migration 9). SQLite's rowid gave it before; PostgreSQL has none.

import type { Sql } from './sql.ts';

export type SeqTable = 'payouts' | 'strategies' | 'playground_runs' | 'playground_optimizations';

/** The SQL for a new row's `seq`: one past the table's largest (`inSeqOrder` makes it unique). */
export function nextSeq(table: SeqTable): string {
  return `(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table})`;
}

/**
 * Runs an insert using `nextSeq(table)` so that it reads every seq written before it. SQLite has one
 * writer. PostgreSQL's concurrent inserts would each read the same largest seq (their own snapshot,
 * read committed) and tie: a transaction-level advisory lock per table orders them, and the insert's
 * statement, taken after it, sees the rows its predecessors committed.
 */
export async function inSeqOrder<T>(db: Sql, table: SeqTable, insert: () => Promise<T>): Promise<T> {
  if (db.dialect !== 'postgres') return insert();
  return db.transaction(async () => {
    await db.run(`SELECT pg_advisory_xact_lock(hashtext('replaydesk seq ${table}'))`);
    return insert();
  });
}
