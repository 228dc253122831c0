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

/**
 * A number that moves whenever another connection (another process: the admin CLI) commits to the
 * file: `PRAGMA data_version`, about a microsecond a call; this connection's own commits leave it.
 */
export function dataVersionOf(db: Db): () => number {
  const q = db.query('PRAGMA data_version');
  return () => (q.get() as { data_version: number }).data_version;
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
 * What a storage failure means for the service: `unwritable` (the disk is full or failing, or the
 * shared store is out of reach, restarting or shutting down: writes fail, reads may still work, and
 * it may pass without a restart), `corrupt` (the file is damaged), or `contended` (the store is fine
 * but this statement waited too long: a lock held elsewhere, a statement or transaction over its
 * bound, a serialization conflict; nothing was written and a retry soon is likely to pass). Null
 * for every other error (a bug, a constraint).
 */
export type StoreFailure = 'unwritable' | 'corrupt' | 'contended';

/**
 * PostgreSQL's SQLSTATEs by class (the `errno` of Bun's PostgresError): connection exceptions (08),
 * operator intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now: a
 * server stopping or restarting), insufficient resources (53: disk full, out of connections) and
 * system errors (58) mean the store is unavailable; a lock or statement time-out (55P03, 57014), an
 * idle transaction ended by the server (25P03), a serialization failure or deadlock (40001, 40P01)
 * mean this statement lost a race or a wait.
 */
function postgresFailure(sqlState: string): StoreFailure | null {
  if (sqlState === '55P03' || sqlState === '57014' || sqlState === '25P03' || sqlState === '40001' || sqlState === '40P01') return 'contended';
  if (sqlState.startsWith('08') || sqlState.startsWith('53') || sqlState.startsWith('58') || /^57P0[123]$/.test(sqlState)) return 'unwritable';
  return null;
}

/** Bun's own codes (no SQLSTATE) for a connection that failed, closed or timed out, and the socket's. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ERR_POSTGRES_IDLE_TIMEOUT', 'ERR_POSTGRES_LIFETIME_TIMEOUT']);

export function storeFailureOf(e: unknown): StoreFailure | null {
  const x = typeof e === 'object' && e !== null ? (e as { code?: unknown; errno?: unknown }) : {};
  const code = x.code;
  const message = e instanceof Error ? e.message : '';
  if (typeof x.errno === 'string' && /^[0-9A-Z]{5}$/.test(x.errno)) {
    const pg = postgresFailure(x.errno);
    if (pg) return pg;
  }
  if (typeof code === 'string') {
    if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) return 'unwritable';
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'corrupt';
    // PostgreSQL out of reach (down, restarting, the connection cut): nothing was written; retry.
    if (code.startsWith('ERR_POSTGRES_CONNECTION') || CONNECTION_CODES.has(code)) return 'unwritable';
    // A statement cancelled or a transaction rolled back by this node's own bound (src/store/sql.ts).
    if (code === 'ERR_POSTGRES_QUERY_CANCELLED' || code === STORE_TIMEOUT_CODE) return 'contended';
  }
  // Without a code (an error rewrapped on its way up), SQLite's own texts.
  if (/database or disk is full|disk I\/O error/i.test(message)) return 'unwritable';
  if (/database disk image is malformed|file is not a database/i.test(message)) return 'corrupt';
  return null;
}

/** The kind of a failure, for logging by kind: the store's (unwritable, corrupt), else the error's code or name. */
export function failureKindOf(e: unknown): string {
  const store = storeFailureOf(e);
  if (store) return store;
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : e instanceof Error ? e.name : typeof e;
}

/** The code of StoreTimeout (src/store/sql.ts), here so that db.ts imports nothing of sql.ts. */
export const STORE_TIMEOUT_CODE = 'ERR_STORE_TIMEOUT';

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
