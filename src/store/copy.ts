// Copies a SQLite store (one DATA_DIR's database) into an empty PostgreSQL store at the same schema
// version: every table both hold, parents before children, ids kept, in ONE PostgreSQL transaction
// that also moves the identity sequences past the copied ids and verifies the copy (row counts,
// balance and realized P&L sums, first and last rows column by column). Any difference throws, and
// the transaction rolls back: the target is left as empty as it was found.
//
// The SQLite side is read inside one read transaction, so a server still writing to the file cannot
// tear the copy; what it writes afterwards is not copied (stop it first).

import type { Db } from './db.ts';
import { pgSchemaVersion } from './postgres.ts';
import type { Sql } from './sql.ts';

/** The key under which PostgreSQL keeps the cluster's JWT secret (hex); src/instance.ts reads it. */
export const JWT_SECRET_KEY = 'jwt_secret';

/** The advisory lock two copies into one database queue on: "RDcopy" in ASCII, any constant would do. */
const COPY_LOCK_KEY = 0x5244636f7079;

/** Rows per multi-row INSERT, bounded further by PostgreSQL's 65,535 parameters per statement. */
const ROWS_PER_INSERT = 500;
const PARAMS_PER_STATEMENT = 60_000;
/** Bytes of text and BLOB per INSERT, so a batch of day chunks stays a few MiB. */
const BYTES_PER_INSERT = 8 * 1024 * 1024;

/** Tables not copied, with why: state of the running nodes, not of the users. */
const NOT_COPIED: ReadonlyMap<string, string> = new Map([
  ['session_leases', 'which node holds each live session: runtime state of the nodes, the new ones take their own'],
]);

export interface TablePlan {
  name: string;
  columns: string[];
  /** The primary key's columns, in key order. */
  key: string[];
}

export interface CopySummary {
  /** Rows copied per table, in the order they were copied. */
  tables: Record<string, number>;
  /** SQLite tables not copied, with why: node state, or a table PostgreSQL does not hold. */
  skipped: Record<string, string>;
  balancesCents: number;
  realizedCents: number;
  /** The next id each identity column will give. */
  nextIds: Record<string, number>;
  jwtSecret: 'copied' | 'absent';
}

/** The target is not empty, or the two schemas differ: nothing was written. */
export class CopyRefusedError extends Error {
  override name = 'CopyRefusedError';
}

/** The copy read back differs from the source: the transaction was rolled back. */
export class CopyMismatchError extends Error {
  override name = 'CopyMismatchError';
}

/** Copies `db` into `pg` (see the file comment); `jwtSecret` becomes meta.jwt_secret when given. */
export async function copySqliteToPostgres(db: Db, pg: Sql, jwtSecret: Uint8Array | null): Promise<CopySummary> {
  db.exec('BEGIN');
  try {
    const { plan, skipped } = await planTables(db, pg);
    return await pg.transaction(async () => {
      // A second copy started meanwhile waits here, then finds the target full and is refused.
      await pg.get(`SELECT pg_advisory_xact_lock(${COPY_LOCK_KEY})`);
      await refuseUnlessEmpty(pg, plan);
      const tables: Record<string, number> = {};
      for (const t of plan) tables[t.name] = await copyTable(db, pg, t);
      const secretHex = jwtSecret ? Buffer.from(jwtSecret).toString('hex') : null;
      if (secretHex) await putSecret(pg, secretHex);
      const nextIds = await advanceSequences(db, pg);
      const sums = await verify(db, pg, plan, secretHex);
      return { tables, skipped, ...sums, nextIds, jwtSecret: secretHex ? 'copied' : 'absent' };
    });
  } finally {
    db.exec('ROLLBACK');
  }
}

// ---- plan ----

/** The tables both stores hold, parents first; throws CopyRefusedError when their schemas differ. */
export async function planTables(db: Db, pg: Sql): Promise<{ plan: TablePlan[]; skipped: Record<string, string> }> {
  const liteVersion = (db.query('PRAGMA user_version').get() as { user_version: number }).user_version;
  const pgVersion = await pgSchemaVersion(pg);
  if (liteVersion !== pgVersion) throw new CopyRefusedError(`schema versions differ: SQLite ${liteVersion}, PostgreSQL ${pgVersion}`);
  const pgTables = new Set(
    (await pg.all<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)).map((r) => r.t),
  );
  const names = (db.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  const plan: TablePlan[] = [];
  const skipped: Record<string, string> = {};
  for (const name of names) {
    const why = NOT_COPIED.get(name) ?? (pgTables.has(name) ? null : 'PostgreSQL has no such table');
    if (why) skipped[name] = why;
    else plan.push(await tablePlan(db, pg, name));
  }
  return { plan: parentsFirst(db, plan), skipped };
}

async function tablePlan(db: Db, pg: Sql, name: string): Promise<TablePlan> {
  const info = db.query(`SELECT name, pk FROM pragma_table_info($t)`).all({ t: name }) as { name: string; pk: number }[];
  const columns = info.map((c) => c.name);
  const pgColumns = (await pg.all<{ c: string }>(`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $t`, { t: name })).map((r) => r.c);
  if ([...columns].sort().join() !== [...pgColumns].sort().join()) {
    throw new CopyRefusedError(`table ${name} has columns (${columns.join(', ')}) in SQLite but (${pgColumns.join(', ')}) in PostgreSQL`);
  }
  const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  return { name, columns, key: key.length > 0 ? key : columns };
}

/** Orders tables so that every table a foreign key references comes before the table holding it. */
function parentsFirst(db: Db, plan: TablePlan[]): TablePlan[] {
  const byName = new Map(plan.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: TablePlan[] = [];
  const visit = (t: TablePlan, path: string[]) => {
    if (done.has(t.name)) return;
    if (path.includes(t.name)) throw new CopyRefusedError(`foreign keys form a cycle: ${[...path, t.name].join(' → ')}`);
    const parents = db.query(`SELECT DISTINCT "table" AS p FROM pragma_foreign_key_list($t)`).all({ t: t.name }) as { p: string }[];
    for (const { p } of parents) {
      const parent = byName.get(p);
      if (parent && p !== t.name) visit(parent, [...path, t.name]);
    }
    done.add(t.name);
    out.push(t);
  };
  for (const t of plan) visit(t, []);
  return out;
}

// ---- copy ----

/** Rows of the copied tables already in the target (meta's JWT secret aside): none may be. */
async function refuseUnlessEmpty(pg: Sql, plan: TablePlan[]): Promise<void> {
  const found: string[] = [];
  for (const t of plan) {
    const where = t.name === 'meta' ? ` WHERE key <> '${JWT_SECRET_KEY}'` : '';
    const n = (await pg.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.name}${where}`))?.n ?? 0;
    if (n > 0) found.push(`${t.name} (${n} row${n === 1 ? '' : 's'})`);
  }
  if (found.length > 0) {
    throw new CopyRefusedError(`the target database is not empty: it holds ${found.join(', ')}; migrate only into an empty database (nothing was written)`);
  }
}

/** Copies one table in multi-row INSERTs, in key order; answers the rows copied. */
async function copyTable(db: Db, pg: Sql, t: TablePlan): Promise<number> {
  const rowsPerInsert = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(PARAMS_PER_STATEMENT / t.columns.length)));
  const select = `SELECT ${t.columns.join(', ')} FROM ${t.name} ORDER BY ${t.key.join(', ')}`;
  let batch: unknown[][] = [];
  let bytes = 0;
  let copied = 0;
  for (const r of db.query(select).iterate() as Iterable<Record<string, unknown>>) {
    const row = t.columns.map((c) => r[c]);
    batch.push(row);
    bytes += row.reduce<number>((n, v) => n + sizeOf(v), 0);
    if (batch.length >= rowsPerInsert || bytes >= BYTES_PER_INSERT) {
      copied += await insertRows(pg, t, batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) copied += await insertRows(pg, t, batch);
  return copied;
}

function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.byteLength;
  return 8;
}

async function insertRows(pg: Sql, t: TablePlan, rows: unknown[][]): Promise<number> {
  const params: Record<string, unknown> = {};
  const tuples = rows.map((row, r) => {
    const names = row.map((v, c) => {
      params[`v${r}_${c}`] = v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
      return `$v${r}_${c}`;
    });
    return `(${names.join(', ')})`;
  });
  return pg.run(`INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES ${tuples.join(', ')}`, params);
}

async function putSecret(pg: Sql, hex: string): Promise<void> {
  await pg.run(`INSERT INTO meta (key, value) VALUES ($k, $v) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, { k: JWT_SECRET_KEY, v: hex });
}

/**
 * Moves each identity sequence past the highest id copied, and past SQLite's AUTOINCREMENT record
 * (`sqlite_sequence`), which remembers ids of deleted rows: an id is never given twice.
 */
async function advanceSequences(db: Db, pg: Sql): Promise<Record<string, number>> {
  const identities = await pg.all<{ t: string; c: string }>(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name`,
  );
  const hasSeq = db.query(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'`).get() !== null;
  const next: Record<string, number> = {};
  for (const { t, c } of identities) {
    const copied = (await pg.get<{ m: number | null }>(`SELECT MAX(${c}) AS m FROM ${t}`))?.m ?? 0;
    const used = hasSeq ? ((db.query('SELECT seq FROM sqlite_sequence WHERE name = $t').get({ t }) as { seq: number } | null)?.seq ?? 0) : 0;
    const high = Math.max(copied, used);
    // setval(…, v) gives v + 1 next; setval(…, 1, false) gives 1 (nothing used yet).
    const set = high > 0 ? `setval(pg_get_serial_sequence($t, $c), $v::bigint)` : `setval(pg_get_serial_sequence($t, $c), 1, false)`;
    await pg.get(`SELECT ${set}`, { t, c, v: high });
    next[t] = high + 1;
  }
  return next;
}

// ---- verify ----

/** The money both stores must agree on. */
const SUMS = {
  balancesCents: 'SELECT COALESCE(SUM(balance_cents), 0) AS n FROM accounts',
  realizedCents: 'SELECT COALESCE(SUM(realized_cents), 0) AS n FROM fills',
} as const;

async function verify(db: Db, pg: Sql, plan: TablePlan[], secretHex: string | null): Promise<{ balancesCents: number; realizedCents: number }> {
  const diffs: string[] = [];
  for (const t of plan) {
    const where = t.name === 'meta' ? ` WHERE key <> '${JWT_SECRET_KEY}'` : '';
    const lite = (db.query(`SELECT COUNT(*) AS n FROM ${t.name}${where}`).get() as { n: number }).n;
    const copied = (await pg.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.name}${where}`))?.n ?? 0;
    if (lite !== copied) diffs.push(`${t.name}: ${lite} rows in SQLite, ${copied} in PostgreSQL`);
    diffs.push(...(await compareEnds(db, pg, t)));
  }
  const sums = { balancesCents: 0, realizedCents: 0 };
  for (const [name, text] of Object.entries(SUMS) as [keyof typeof SUMS, string][]) {
    const lite = (db.query(text).get() as { n: number }).n;
    const copied = Number((await pg.get<{ n: number }>(text))?.n ?? 0);
    if (lite !== copied) diffs.push(`${name}: ${lite} in SQLite, ${copied} in PostgreSQL`);
    sums[name] = lite;
  }
  if (secretHex) {
    const stored = (await pg.get<{ value: string }>('SELECT value FROM meta WHERE key = $k', { k: JWT_SECRET_KEY }))?.value;
    if (stored !== secretHex) diffs.push('meta.jwt_secret differs from DATA_DIR/jwt-secret');
  }
  if (diffs.length > 0) throw new CopyMismatchError(`the copy differs from the source, rolled back: ${diffs.join('; ')}`);
  return sums;
}

/** The first and last rows of `t` (by key) read back from PostgreSQL, column by column. */
async function compareEnds(db: Db, pg: Sql, t: TablePlan): Promise<string[]> {
  const diffs: string[] = [];
  const cols = t.columns.join(', ');
  for (const dir of ['ASC', 'DESC']) {
    const order = t.key.map((k) => `${k} ${dir}`).join(', ');
    const lite = db.query(`SELECT ${cols} FROM ${t.name} ORDER BY ${order} LIMIT 1`).get() as Record<string, unknown> | null;
    if (!lite) continue;
    const match = t.key.map((k) => `${k} = $${k}`).join(' AND ');
    const keyParams = Object.fromEntries(t.key.map((k) => [k, lite[k]]));
    const copied = await pg.get<Record<string, unknown>>(`SELECT ${cols} FROM ${t.name} WHERE ${match}`, keyParams);
    const where = `${t.name} ${JSON.stringify(keyParams)}`;
    if (!copied) {
      diffs.push(`${where}: missing in PostgreSQL`);
      continue;
    }
    for (const c of t.columns) if (!sameValue(lite[c], copied[c])) diffs.push(`${where}.${c}: ${show(lite[c])} in SQLite, ${show(copied[c])} in PostgreSQL`);
  }
  return diffs;
}

function canonical(v: unknown): unknown {
  if (v instanceof Uint8Array) return `bytes:${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (typeof v === 'bigint') return Number(v);
  return v ?? null;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function show(v: unknown): string {
  const c = canonical(v);
  return typeof c === 'string' && c.length > 40 ? `${JSON.stringify(c.slice(0, 40))}…` : JSON.stringify(c);
}
