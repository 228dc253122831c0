// Moving an instance that outgrew one machine: its SQLite DATA_DIR store copied into an empty
// PostgreSQL database (src/store/copy.ts), for `admin data migrate --to postgres://…`.

import { err, ok, type Result } from '../lib/result.ts';
import { CopyMismatchError, CopyRefusedError, copySqliteToPostgres, type CopySummary } from '../store/copy.ts';
import { openDb } from '../store/db.ts';
import { openPostgres } from '../store/postgres.ts';

export type { CopySummary } from '../store/copy.ts';

/** Why nothing was copied: `refused` before writing (target not empty, schemas differ), `mismatch` after verifying. */
export interface MigrationError {
  kind: 'refused' | 'mismatch';
  message: string;
}

/**
 * Copies the SQLite database at `dbPath` (migrated to the current schema first, as a server start
 * would) into the PostgreSQL database at `url` (migrated likewise), with `jwtSecret` as the
 * cluster's secret so that tokens already issued stay valid.
 */
export async function migrateToPostgres(dbPath: string, jwtSecret: Uint8Array | null, url: string): Promise<Result<CopySummary, MigrationError>> {
  const db = openDb(dbPath);
  try {
    const pg = await openPostgres(url, { max: 1 });
    try {
      return ok(await copySqliteToPostgres(db, pg, jwtSecret));
    } catch (e) {
      if (e instanceof CopyRefusedError) return err({ kind: 'refused', message: e.message });
      if (e instanceof CopyMismatchError) return err({ kind: 'mismatch', message: e.message });
      throw e;
    } finally {
      await pg.close();
    }
  } finally {
    db.close();
  }
}
