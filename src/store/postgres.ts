// Opens the shared PostgreSQL store (`DATABASE_URL`) and migrates it. Several nodes may start at
// once: each migrates in one transaction that first takes a transaction-level advisory lock, so
// the first applies the missing steps and the others, waiting on the lock, find nothing left to do.

import { SQL } from 'bun';
import { PG_MIGRATIONS } from './migrations.ts';
import type { Sql } from './sql.ts';
import { type PgBounds, PostgresSql } from './sql-postgres.ts';

export interface PostgresOptions {
  /** Connections in the pool (Bun opens them as work needs them). */
  max?: number;
  /** Seconds before an idle connection is closed (0: kept). */
  idleTimeoutS?: number;
  /**
   * How long to wait on the server (a serving node's, `limits.pg*`): sent as each connection's
   * statement_timeout, lock_timeout and idle_in_transaction_session_timeout, and kept by the client.
   * None for the admin tools: an import parses its file inside its transaction, and an operator
   * watches the command.
   */
  bounds?: PgBounds;
}

const DEFAULT_POOL_SIZE = 10;

/** The advisory lock key every node takes to migrate: "RDmigr" in ASCII, any constant would do. */
export const MIGRATION_LOCK_KEY = 0x52446d69677200;

/** The database was migrated by a newer ReplayDesk: this one must not write to it. */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `the PostgreSQL database is at schema version ${found}, newer than this ReplayDesk knows (${known}). ` +
        'Refusing to start on it: run the newer version, or restore a backup made before it migrated.',
    );
    this.name = 'SchemaTooNewError';
  }
}

type Queryable = Pick<SQL, 'unsafe'>;

/** The schema version of a database: 0 when it was never migrated. */
export async function pgSchemaVersion(db: Sql | Queryable): Promise<number> {
  const q = 'unsafe' in db ? (text: string) => db.unsafe(text) as Promise<unknown[]> : (text: string) => db.all(text);
  const found = (await q(`SELECT to_regclass('schema_version') IS NOT NULL AS present`)) as { present: boolean }[];
  if (!found[0]?.present) return 0;
  const rows = (await q('SELECT version FROM schema_version')) as { version: number }[];
  return rows[0]?.version ?? 0;
}

/** Applies the missing steps in one transaction, under the migration lock. */
export async function migratePostgres(pool: SQL): Promise<number> {
  return pool.begin(async (tx) => {
    // Nodes starting together wait here while the first migrates, however long that takes.
    await tx.unsafe('SET LOCAL lock_timeout = 0');
    await tx.unsafe('SET LOCAL statement_timeout = 0');
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.unsafe('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    let version = await pgSchemaVersion(tx);
    if (version > PG_MIGRATIONS.length) throw new SchemaTooNewError(version, PG_MIGRATIONS.length);
    if (version === PG_MIGRATIONS.length) return version;
    for (; version < PG_MIGRATIONS.length; version++) await tx.unsafe(PG_MIGRATIONS[version]);
    await tx.unsafe('DELETE FROM schema_version');
    await tx.unsafe(`INSERT INTO schema_version (version) VALUES (${version})`);
    return version;
  });
}

/** Connects to `url` (a pool of `opts.max` connections) and migrates; the pool is closed on failure. */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<PostgresSql> {
  const b = opts.bounds;
  const pool = new SQL(url, {
    max: opts.max ?? DEFAULT_POOL_SIZE,
    idleTimeout: opts.idleTimeoutS ?? 0,
    ...(b
      ? {
          connectionTimeout: b.connectS,
          connection: {
            statement_timeout: `${b.statementMs}ms`,
            lock_timeout: `${b.lockMs}ms`,
            idle_in_transaction_session_timeout: `${b.idleInTransactionMs}ms`,
          },
        }
      : {}),
  });
  try {
    await migratePostgres(pool);
  } catch (e) {
    await pool.close({ timeout: 5 });
    throw e;
  }
  return new PostgresSql(pool, b ?? null);
}
