// Writes to the users' and bearer tokens' rows, counted per connection (every UserStore and
// IssuedJwtStore over one connection counts on the same counter): what a cache of those rows holds
// (service/auth-principals.ts) is stale once the count, or another process's commit, moves.

import { dataVersionOf, type Db } from './db.ts';
import { type Sql, SqliteSql } from './sql.ts';

/** By connection: the SQLite file's handle (whichever SqliteSql wraps it), else the Sql itself. */
const counts = new WeakMap<object, { n: number }>();

function countOf(sql: Sql): { n: number } {
  const key = sql instanceof SqliteSql ? sql.db : sql;
  let c = counts.get(key);
  if (c === undefined) counts.set(key, (c = { n: 0 }));
  return c;
}

/** Runs a write through `sql` to a user or token row and counts it (after it ran, or failed). */
export async function countedAuthWrite<T>(sql: Sql, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    countOf(sql).n++;
  }
}

/**
 * A number that moves with every write counted on `sql` and every commit another connection makes
 * to the SQLite file `db` (`PRAGMA data_version`: the admin CLI, another process).
 */
export function authRowsVersion(sql: Sql, db: Db): () => number {
  const c = countOf(sql);
  const elsewhere = dataVersionOf(db);
  return () => c.n + elsewhere();
}
