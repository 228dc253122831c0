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

/** A database file that fails its integrity check: the server refuses to start on it. */
export class CorruptDatabaseError extends Error {
  constructor(path: string, detail: string) {
    super(
      `database ${path} failed its integrity check (PRAGMA quick_check): ${detail}. ` +
        'Refusing to start rather than serve part of it: restore the file from a backup (stop the server, replace replaydesk.db and remove its -wal and -shm files), or move it aside to start empty.',
    );
    this.name = 'CorruptDatabaseError';
  }
}

/**
 * Opens the database, checks its integrity (`PRAGMA quick_check`: every page and index entry is
 * readable and well-formed, without the slower cross-checks of integrity_check) and migrates it. A
 * damaged file throws CorruptDatabaseError: half a database is worse than none.
 */
export function openDb(path: string): Db {
  if (path !== ':memory:') makePrivate(path);
  const db = new Database(path, { create: true, strict: true });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    quickCheck(db, path);
  } catch (e) {
    db.close();
    if (e instanceof CorruptDatabaseError) throw e;
    if (storeFailureOf(e) === 'corrupt') throw new CorruptDatabaseError(path, String((e as Error).message));
    throw e;
  }
  if (path !== ':memory:') makePrivate(path);
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Another process (the admin CLI) may hold the write lock briefly; wait instead of failing.
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db);
  return db;
}

const QUICK_CHECK_ROWS_SHOWN = 5;

function quickCheck(db: Db, path: string): void {
  const rows = db.query(`PRAGMA quick_check(${QUICK_CHECK_ROWS_SHOWN})`).all() as { quick_check: string }[];
  const found = rows.map((r) => r.quick_check);
  if (found.length === 1 && found[0] === 'ok') return;
  throw new CorruptDatabaseError(path, found.join('; '));
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

/**
 * What a storage failure means for the service: `unwritable` (the disk is full or failing: writes
 * fail, reads may still work, and it may pass without a restart) or `corrupt` (the file is damaged).
 * Null for every other error (a bug, a constraint).
 */
export type StoreFailure = 'unwritable' | 'corrupt';

export function storeFailureOf(e: unknown): StoreFailure | null {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  const message = e instanceof Error ? e.message : '';
  if (typeof code === 'string') {
    if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) return 'unwritable';
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'corrupt';
    // PostgreSQL out of reach (down, restarting, the connection cut): nothing was written; retry.
    if (code.startsWith('ERR_POSTGRES_CONNECTION') || code === 'ECONNREFUSED' || code === 'ERR_POSTGRES_IDLE_TIMEOUT') return 'unwritable';
  }
  // Without a code (an error rewrapped on its way up), SQLite's own texts.
  if (/database or disk is full|disk I\/O error/i.test(message)) return 'unwritable';
  if (/database disk image is malformed|file is not a database/i.test(message)) return 'corrupt';
  return null;
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
