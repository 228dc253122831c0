// The PostgreSQL databases of `TEST_STORE=postgres` apps (test/support/app.ts), emptied and reused
// between tests instead of made anew for each app. A new database costs a CREATE DATABASE and new
// connections that read the catalog again (~0.3 s an app on a busy machine); an emptied one costs
// one TRUNCATE on connections already warm. Each app still starts on an empty database at the
// current schema with identities from 1, as a fresh copy of the migrated template would be.
//
// Reuse needs to know when a test ends: test/http/postgres-store.test.ts preloads this file into
// its child `bun test`, which registers the hooks below. An app made in a test is shut down after
// it (timers stopped, commands finished), then its database is emptied and kept for the next app.
// An app made outside a test (beforeAll), or in a process without the hooks, gets a database of
// its own that is never reused.

import { afterEach, beforeEach } from 'bun:test';
import { SQL } from 'bun';
import { openPostgres } from '../../src/store/postgres.ts';
import { PostgresSql } from '../../src/store/sql-postgres.ts';
import { freshDatabase, templateDatabase } from './postgres.ts';

/** Two connections, as the app's pool has in the product's single-node tests. */
const POOL_SIZE = 2;

/** The app's view of a kept pool: closing it leaves the pool open for the next app. */
class KeptSql extends PostgresSql {
  override async close(): Promise<void> {}
}

interface Kept {
  pool: SQL;
  /** `TRUNCATE …` of every table but schema_version, read from the database once. */
  empty: string;
}

/** Emptied databases, or ones being emptied, oldest first. */
const ready: Promise<Kept>[] = [];
/** The apps of the running test, with their databases; null outside a test (or without the hooks). */
let held: { kept: Kept; shutdown: () => Promise<void> }[] | null = null;

/** A fresh PostgreSQL database at the current schema (copied from a template migrated once). */
async function migratedDatabase(): Promise<string> {
  const template = await templateDatabase('migrated', async (url) => (await openPostgres(url, { max: 1 })).close());
  return freshDatabase(template ?? undefined);
}

async function newKept(): Promise<Kept> {
  const sql = await openPostgres(await migratedDatabase(), { max: POOL_SIZE });
  const tables = await sql.all<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_version' ORDER BY tablename`);
  return { pool: sql.pool, empty: `TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE` };
}

/**
 * The store of an app made now: in a test, an emptied kept database (a new one when none is
 * free), handed back by `onTestEnd` once `shutdown` has run; outside a test, a database of its own.
 */
export async function appDatabase(): Promise<{ sql: PostgresSql; onTestEnd: (shutdown: () => Promise<void>) => void }> {
  if (held === null) {
    const sql = await openPostgres(await migratedDatabase(), { max: POOL_SIZE, idleTimeoutS: 1 });
    return { sql, onTestEnd: () => {} };
  }
  const kept = await (ready.shift() ?? newKept());
  const list = held;
  return { sql: new KeptSql(kept.pool), onTestEnd: (shutdown) => list.push({ kept, shutdown }) };
}

/** Registers the hooks that reuse databases between tests (call once, from a preload). */
export function reuseDatabasesBetweenTests(): void {
  beforeEach(() => {
    held = [];
  });
  afterEach(async () => {
    const done = held ?? [];
    held = null;
    for (const h of done) await h.shutdown();
    // Emptied while the next test starts; the next app waits for it.
    for (const h of done) ready.push(h.kept.pool.unsafe(h.kept.empty).then(() => h.kept));
  });
}
