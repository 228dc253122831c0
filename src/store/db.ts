// Opens the one SQLite database (WAL) and applies versioned migrations at start.
// `synchronous=NORMAL` in WAL mode survives a process crash (kill -9) without losing a committed
// transaction; only a power loss can drop the last transactions (docs/decisions.md).

import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.ts';

export type Db = Database;

export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Another process (the admin CLI) may hold the write lock briefly; wait instead of failing.
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db);
  return db;
}

export function schemaVersion(db: Db): number {
  return (db.query('PRAGMA user_version').get() as { user_version: number }).user_version;
}

function migrate(db: Db): void {
  // BEGIN IMMEDIATE takes the write lock first, so two processes starting together cannot both migrate.
  db.exec('BEGIN IMMEDIATE');
  try {
    let version = schemaVersion(db);
    for (; version < MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version]);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    }
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
}

/** Work waiting for the outermost transaction of a database to commit (afterCommit). */
const pendingAfterCommit = new WeakMap<Db, (() => void)[]>();

/**
 * Runs `fn` in one write transaction (BEGIN IMMEDIATE), committing before it returns. Nested calls
 * are savepoints of the outer one; work queued with afterCommit runs once the outermost commits and
 * is dropped if it rolls back.
 */
export function inTransaction<T>(db: Db, fn: () => T): T {
  if (db.inTransaction) return db.transaction(fn).immediate();
  let result: T;
  try {
    result = db.transaction(fn).immediate();
  } catch (e) {
    pendingAfterCommit.delete(db);
    throw e;
  }
  const queued = pendingAfterCommit.get(db);
  pendingAfterCommit.delete(db);
  if (queued) for (const run of queued) run();
  return result;
}

/**
 * Runs `run` once what is written now is committed: at once outside a transaction, else after the
 * outermost inTransaction commits (never, if it rolls back). Events go out this way, so no client
 * hears of a change the store does not hold.
 */
export function afterCommit(db: Db, run: () => void): void {
  if (!db.inTransaction) return run();
  let queued = pendingAfterCommit.get(db);
  if (!queued) pendingAfterCommit.set(db, (queued = []));
  queued.push(run);
}
