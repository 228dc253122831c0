// Insertion order for tables whose key is not a number (payouts, strategies, playground runs): the
// `seq` column (migration 9). SQLite's rowid gave it before; PostgreSQL has none.

/** The SQL for a new row's `seq`: one past the table's largest (the insert's transaction orders it). */
export function nextSeq(table: 'payouts' | 'strategies' | 'playground_runs' | 'playground_optimizations'): string {
  return `(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table})`;
}
