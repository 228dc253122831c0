// Each step of the one migration list (src/store/migrations.ts) gives both backends the same schema:
// after each step, both databases have the same tables, and for each the same columns (in order, with
// nullability and a matching type), defaults, CHECKed columns, primary key, unique keys, foreign keys
// and named indexes. Read from sqlite_master and the pragmas on one side, from information_schema and
// the catalogs on the other, after running each backend's generated script.

import { expect, it } from 'bun:test';
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { STEPS } from '../../src/store/migrations.ts';
import { type Sql, SqliteSql } from '../../src/store/sql.ts';
import { PostgresSql } from '../../src/store/sql-postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';
import { eachBackend } from '../support/sql-backends.ts';

interface Table {
  /** name:nullable:type class[:default], in column order. */
  columns: string[];
  /** Columns with a CHECK constraint, sorted. */
  checked: string[];
  primaryKey: string[];
  /** Column lists of the unique keys besides the primary key, sorted. */
  unique: string[];
  /** "col -> table(col) on delete action", sorted. */
  foreignKeys: string[];
  /** Named (explicitly created) indexes: "name(col, col)", sorted. */
  indexes: string[];
}

type Schema = Record<string, Table>;

/** SQLite's declared types and PostgreSQL's, as one class each. */
const TYPE_CLASS: Record<string, string> = {
  INTEGER: 'integer',
  bigint: 'integer',
  integer: 'integer',
  TEXT: 'text',
  text: 'text',
  BLOB: 'bytes',
  bytea: 'bytes',
  REAL: 'float64',
  'double precision': 'float64',
};

const ON_DELETE: Record<string, string> = { 'NO ACTION': 'no action', CASCADE: 'cascade', a: 'no action', c: 'cascade' };

function classOf(type: string): string {
  const c = TYPE_CLASS[type];
  if (!c) throw new Error(`no type class for ${type}`);
  return c;
}

/**
 * Columns compared as "a number", integer or not: `playground_runs.speed` is INTEGER in SQLite, whose
 * affinity keeps 2.5 as a REAL, and double precision in PostgreSQL since migration 16 (integer
 * before it). Rebuilding SQLite's table to rename a declared type would change nothing stored.
 */
const ANY_NUMBER = new Set(['speed']);

function column(name: string, nullable: boolean, type: string, dflt: string | null): string {
  const cls = ANY_NUMBER.has(name) && ['integer', 'float64'].includes(classOf(type)) ? 'number' : classOf(type);
  return `${name}:${nullable ? 'null' : 'not null'}:${cls}${dflt === null ? '' : `:${dflt}`}`;
}

async function sqliteSchema(sql: Sql): Promise<Schema> {
  const tables = await sql.all<{ name: string }>(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
  );
  const schema: Schema = {};
  for (const { name } of tables) {
    const cols = await sql.all<{ name: string; type: string; notnull: number; pk: number; dflt_value: string | null }>(
      'SELECT name, type, "notnull", pk, dflt_value FROM pragma_table_info($t) ORDER BY cid',
      { t: name },
    );
    // A primary key column is never NULL in PostgreSQL; SQLite's pragma reports it as declared.
    const columns = cols.map((c) => column(c.name, !(c.notnull || c.pk), c.type, c.dflt_value));
    const { sql: ddl } = (await sql.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = $t`, { t: name }))!;
    const checked = ddl.split('\n').flatMap((line) => (/\bCHECK\s*\(/.test(line) ? [line.trim().split(/\s+/)[0]] : [])).sort();
    const primaryKey = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    const indexList = await sql.all<{ name: string; origin: string }>('SELECT name, origin FROM pragma_index_list($t)', { t: name });
    const colsOf = async (index: string) =>
      (await sql.all<{ name: string }>('SELECT name FROM pragma_index_info($i) ORDER BY seqno', { i: index })).map((r) => r.name).join(', ');
    const unique: string[] = [];
    const indexes: string[] = [];
    for (const ix of indexList) {
      if (ix.origin === 'u') unique.push(await colsOf(ix.name));
      if (ix.origin === 'c') indexes.push(`${ix.name}(${await colsOf(ix.name)})`);
    }
    const fks = await sql.all<{ from: string; table: string; to: string; on_delete: string }>(
      'SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list($t)',
      { t: name },
    );
    const foreignKeys = fks.map((f) => `${f.from} -> ${f.table}(${f.to}) on delete ${ON_DELETE[f.on_delete]}`);
    schema[name] = { columns, checked, primaryKey, unique: unique.sort(), foreignKeys: foreignKeys.sort(), indexes: indexes.sort() };
  }
  return schema;
}

/** Constraint and index columns in their order, from the catalogs. */
const PG_KEYS = `
  SELECT c.conrelid::regclass::text AS tbl, c.contype AS kind, c.conname AS name, c.confdeltype AS on_delete,
         c.confrelid::regclass::text AS ref,
         string_agg(a.attname, ', ' ORDER BY k.ord) AS cols,
         string_agg(af.attname, ', ' ORDER BY k.ord) AS ref_cols
  FROM pg_constraint c
  CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(col, refcol, ord)
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
  LEFT JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = k.refcol
  WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('p', 'u', 'f', 'c')
  GROUP BY c.oid`;

const PG_INDEXES = `
  SELECT t.relname AS tbl, ic.relname AS name, string_agg(a.attname, ', ' ORDER BY k.ord) AS cols
  FROM pg_index x
  JOIN pg_class ic ON ic.oid = x.indexrelid
  JOIN pg_class t ON t.oid = x.indrelid
  CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
  WHERE t.relnamespace = 'public'::regnamespace
    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
  GROUP BY t.relname, ic.relname`;

interface PgKey {
  tbl: string;
  kind: string;
  on_delete: string;
  ref: string | null;
  cols: string;
  ref_cols: string | null;
}

/**
 * Tables a step creates on PostgreSQL only, on purpose (`postgresOnly` in src/store/migration-step.ts),
 * left out of the comparison: none so far.
 */
const POSTGRES_ONLY_TABLES = new Set<string>();

async function postgresSchema(sql: Sql): Promise<Schema> {
  const cols = await sql.all<{ table_name: string; column_name: string; is_nullable: string; data_type: string; column_default: string | null }>(
    `SELECT table_name, column_name, is_nullable, data_type, column_default FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> 'schema_version' ORDER BY table_name, ordinal_position`,
  );
  const schema: Schema = {};
  for (const c of cols) {
    schema[c.table_name] ??= { columns: [], checked: [], primaryKey: [], unique: [], foreignKeys: [], indexes: [] };
    schema[c.table_name].columns.push(column(c.column_name, c.is_nullable === 'YES', c.data_type, c.column_default));
  }
  for (const k of await sql.all<PgKey>(PG_KEYS)) {
    const t = schema[k.tbl];
    if (k.kind === 'p') t.primaryKey = k.cols.split(', ');
    if (k.kind === 'u') t.unique.push(k.cols);
    if (k.kind === 'c') t.checked.push(k.cols);
    if (k.kind === 'f') t.foreignKeys.push(`${k.cols} -> ${k.ref}(${k.ref_cols}) on delete ${ON_DELETE[k.on_delete]}`);
  }
  for (const ix of await sql.all<{ tbl: string; name: string; cols: string }>(PG_INDEXES)) {
    schema[ix.tbl].indexes.push(`${ix.name}(${ix.cols})`);
  }
  for (const t of Object.values(schema)) {
    t.checked.sort();
    t.unique.sort();
    t.foreignKeys.sort();
    t.indexes.sort();
  }
  for (const name of POSTGRES_ONLY_TABLES) delete schema[name];
  return schema;
}

describePg('schema parity, SQLite and PostgreSQL', () => {
  it('after each migration step, the same tables, columns, keys and indexes', async () => {
    const lite = new SqliteSql(new Database(':memory:', { strict: true }));
    const pool = new SQL(await freshDatabase(), { max: 1 });
    const pg = new PostgresSql(pool);
    try {
      for (const [i, step] of STEPS.entries()) {
        lite.db.exec(step.sqlite);
        await pool.unsafe(step.postgres);
        const want = await sqliteSchema(lite);
        expect({ step: i + 1, schema: await postgresSchema(pg) }).toEqual({ step: i + 1, schema: want });
      }
      // The readers see what they should: a sample of the end state, spelled out.
      const end = await sqliteSchema(lite);
      expect(Object.keys(end).length).toBe(28);
      expect(end.session_leases.primaryKey).toEqual(['account_id']);
      expect(end.replay_checkpoints.primaryKey).toEqual(['account_id', 'cursor_s']);
      expect(end.instrument_drawings.primaryKey).toEqual(['user_id', 'symbol']);
      expect(end.journal_tags.primaryKey).toEqual(['account_id', 'trade_number', 'tag']);
      expect(end.users.unique).toEqual(['api_key_hash', 'email']);
      expect(end.users.checked).toEqual(['disabled', 'plan', 'verified']);
      expect(end.playground_runs.columns).toContain('bars_done:not null:integer:0');
      expect(end.orders.primaryKey).toEqual(['account_id', 'id']);
      expect(end.playground_run_trades.foreignKeys).toEqual(['run_id -> playground_runs(id) on delete cascade']);
      expect(end.playground_run_trades.primaryKey).toEqual(['run_id', 'first_index']);
      expect(end.playground_runs.indexes).toEqual([
        'playground_runs_one_live(user_id)', 'playground_runs_optimization(optimization_id, opt_window, opt_combo)', 'playground_runs_queue(seq)', 'playground_runs_strategy(strategy_id, started_ms)', 'playground_runs_user(user_id, started_ms)',
      ]);
    } finally {
      await lite.close();
      await pg.close();
    }
  });
});

eachBackend('users.email', (open) => {
  it('is unique and matched regardless of case, as COLLATE NOCASE makes it on SQLite', async () => {
    const sql = await open();
    const add = (email: string) =>
      sql.run(`INSERT INTO users (email, plan, verified, disabled, created_ms) VALUES ($email, 'pro', 1, 0, $now)`, {
        email,
        now: 1_795_642_997_327,
      });
    expect(await add('Trader@Example.com')).toBe(1);
    await expect(add('trader@example.COM')).rejects.toThrow();
    const found = await sql.get<{ email: string }>('SELECT email FROM users WHERE email = $email', { email: 'TRADER@example.com' });
    expect(found).toEqual({ email: 'Trader@Example.com' });
    expect(await add('other@example.com')).toBe(1);
  });
});
