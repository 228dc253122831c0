// Opens the one SQLite database (WAL) and applies versioned migrations at start.
// `synchronous=NORMAL` in WAL mode survives a process crash (kill -9) without losing a committed
// transaction; only a power loss can drop the last transactions (docs/decisions.md).

import { Database } from 'bun:sqlite';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.ts';

export type Db = Database;

/** Owner-only: the database holds key hashes, password hashes and every account's trades. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

export function openDb(path: string): Db {
  if (path !== ':memory:') makePrivate(path);
  const db = new Database(path, { create: true, strict: true });
  db.exec('PRAGMA journal_mode = WAL');
  if (path !== ':memory:') makePrivate(path);
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Another process (the admin CLI) may hold the write lock briefly; wait instead of failing.
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * Creates the database file owner-only before SQLite opens it (SQLite gives the `-wal` and `-shm`
 * files it creates the database file's mode), and narrows files an older version left 0644. A new
 * directory is made 0700; an existing one is the caller's (src/instance.ts narrows DATA_DIR).
 */
function makePrivate(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(p)) chmodSync(p, PRIVATE_FILE_MODE);
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

/** Runs `fn` in one write transaction (BEGIN IMMEDIATE), committing before it returns. */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
