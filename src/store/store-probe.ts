// Cheap looks at whether the store can take writes again, for /health (src/service/store-health.ts)
// once writes were seen failing. SQLite answers SQLITE_FULL when its file may not grow (the
// filesystem is full, or PRAGMA max_page_count is reached): both are read here without writing; a
// test write would often pass on a full disk anyway (the WAL reuses its own space). PostgreSQL is
// asked to write one row.

import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from './db.ts';
import type { Sql } from './sql.ts';

/** Whether the SQLite file may grow by a page: under max_page_count, with `freeBytesMin` free on its filesystem. */
export function sqliteCanGrow(db: Db, freeBytesMin: number): boolean {
  const pages = (db.query('PRAGMA page_count').get() as { page_count: number }).page_count;
  const max = (db.query('PRAGMA max_page_count').get() as { max_page_count: number }).max_page_count;
  if (pages >= max) return false;
  const file = db.filename;
  if (!file || file === ':memory:') return true;
  const fs = statfsSync(dirname(file));
  return fs.bavail * fs.bsize >= freeBytesMin;
}

/** One committed write to the shared store (a row of `meta` every node overwrites). */
export async function sharedStoreWrites(sql: Sql, nowMs: number): Promise<void> {
  await sql.run(`INSERT INTO meta (key, value) VALUES ('health_probe', $v) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, { v: String(nowMs) });
}
