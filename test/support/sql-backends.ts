// The store's tests run against both backends: `eachBackend` declares a suite twice, once on a fresh
// SQLite file and once on a fresh PostgreSQL database (skipped or failing as describePg decides).

import { afterAll, afterEach, beforeAll, describe } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { type Dialect, type Sql, SqliteSql } from '../../src/store/sql.ts';
import { describePg, freshDatabase, templateDatabase } from './postgres.ts';

export type OpenSql = () => Promise<Sql>;

/** A migrated SQLite file in a temp folder of its own, removed on close. */
export async function freshSqlite(): Promise<Sql> {
  const dir = mkdtempSync(join(tmpdir(), 'replaydesk-sql-'));
  const sql = new SqliteSql(openDb(join(dir, 'replaydesk.db')));
  const close = sql.close.bind(sql);
  sql.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return sql;
}

/** A migrated PostgreSQL database of its own (a copy of one migrated once per process). */
export async function freshPostgres(): Promise<Sql> {
  const template = await templateDatabase('migrated', async (url) => (await openPostgres(url, { max: 1 })).close());
  return openPostgres(await freshDatabase(template ?? undefined));
}

const OPENERS: Record<Dialect, OpenSql> = { sqlite: freshSqlite, postgres: freshPostgres };

/**
 * Declares `fn` once per backend. `open` makes a fresh database; every database opened in a test is
 * closed after it.
 */
export function eachBackend(name: string, fn: (open: OpenSql, dialect: Dialect) => void): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const suite = () => {
      const opened: Sql[] = [];
      afterEach(async () => {
        for (const sql of opened.splice(0)) await sql.close();
      });
      const open: OpenSql = async () => {
        const sql = await OPENERS[dialect]();
        opened.push(sql);
        return sql;
      };
      fn(open, dialect);
    };
    if (dialect === 'postgres') describePg(`${name} [postgres]`, suite);
    else describe(`${name} [sqlite]`, suite);
  }
}

/**
 * Declares `fn` once per backend on one migrated database shared by the suite's tests (opened before
 * the first, closed after the last): for contract tests that keep apart by their own users and keys,
 * where a database per test would cost a CREATE DATABASE each.
 */
export function eachBackendShared(name: string, fn: (db: () => Sql, dialect: Dialect) => void): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const suite = () => {
      let sql: Sql | null = null;
      beforeAll(async () => {
        sql = await OPENERS[dialect]();
      });
      afterAll(async () => {
        await sql?.close();
        sql = null;
      });
      fn(() => {
        if (sql === null) throw new Error('the shared database is open only while the suite runs');
        return sql;
      }, dialect);
    };
    if (dialect === 'postgres') describePg(`${name} [postgres]`, suite);
    else describe(`${name} [sqlite]`, suite);
  }
}
