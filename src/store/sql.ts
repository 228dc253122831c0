// The one asynchronous SQL interface every store speaks, over two backends: the embedded SQLite
// file (the default) and a shared PostgreSQL (`DATABASE_URL`, several nodes). Statements are
// written once with `$name` parameters; the PostgreSQL side numbers them. A transaction is found
// through the async context, so a store method called inside `transaction` takes part in it
// without being handed a connection.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'bun';
import type { Db } from './db.ts';

export type SqlParams = Record<string, unknown>;
export type Dialect = 'sqlite' | 'postgres';

export interface Sql {
  readonly dialect: Dialect;
  all<T>(text: string, params?: SqlParams): Promise<T[]>;
  get<T>(text: string, params?: SqlParams): Promise<T | null>;
  /** Runs a statement; resolves to the number of rows it wrote. */
  run(text: string, params?: SqlParams): Promise<number>;
  /**
   * Runs `fn` in one transaction, committing before it resolves. A nested call is a savepoint of the
   * outer one. Work queued with `afterCommit` runs once the outermost commits, never on a rollback
   * (work queued inside a savepoint that rolls back is dropped with it).
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `run` once what is written now is committed: at once outside a transaction. */
  afterCommit(run: () => void): void;
  /** Whether the caller is inside a transaction of this database. */
  inTransaction(): boolean;
  close(): Promise<void>;
}

interface TxContext<H> {
  handle: H;
  open: boolean;
  depth: number;
  after: (() => void)[];
}

function runAfter(after: readonly (() => void)[]): void {
  for (const run of after) run();
}

/**
 * Text as both backends store it: U+0000, which PostgreSQL's text cannot hold (it refuses the
 * statement), becomes U+FFFD on both, as a lone surrogate already does; so a pasted script or a
 * script's error message reads back alike on both, instead of failing on one.
 */
function safeText(v: string): string {
  return v.includes('\u0000') ? v.replaceAll('\u0000', '\ufffd') : v;
}

/** `params` with every text made safe (the same object when none holds U+0000). */
function textSafe(params: SqlParams): SqlParams {
  let out: SqlParams | null = null;
  for (const k in params) {
    const v = params[k];
    if (typeof v === 'string' && v.includes('\u0000')) (out ??= { ...params })[k] = safeText(v);
  }
  return out ?? params;
}

// ---- SQLite ----

/**
 * The embedded file. bun:sqlite is synchronous and has one connection, so a transaction that awaits
 * between its statements holds a turn: other callers' statements wait for it (they would otherwise
 * run inside it and see its uncommitted rows). Statements answer at once when no transaction is open.
 */
export class SqliteSql implements Sql {
  readonly dialect = 'sqlite' as const;
  private readonly ctx = new AsyncLocalStorage<TxContext<Db>>();
  /** Resolves when the transaction holding the connection ends; null when none is open. */
  private held: Promise<void> | null = null;

  constructor(readonly db: Db) {}

  async all<T>(text: string, params: SqlParams = {}): Promise<T[]> {
    if (this.mustWait()) await this.waitTurn();
    return this.db.query(text).all(textSafe(params) as never) as T[];
  }

  async get<T>(text: string, params: SqlParams = {}): Promise<T | null> {
    if (this.mustWait()) await this.waitTurn();
    return (this.db.query(text).get(textSafe(params) as never) as T | null) ?? null;
  }

  async run(text: string, params: SqlParams = {}): Promise<number> {
    if (this.mustWait()) await this.waitTurn();
    return this.db.query(text).run(textSafe(params) as never).changes;
  }

  inTransaction(): boolean {
    return this.current() !== null;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) return this.savepoint(outer, fn);
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    const c: TxContext<Db> = { handle: this.db, open: true, depth: 0, after: [] };
    try {
      this.db.exec('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = await this.ctx.run(c, fn);
        this.db.exec('COMMIT');
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
      c.open = false;
      this.held = null;
      release();
      runAfter(c.after);
      return result;
    } finally {
      c.open = false;
      if (this.held) {
        this.held = null;
        release();
      }
    }
  }

  afterCommit(run: () => void): void {
    const c = this.current();
    if (c) c.after.push(run);
    else run();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private async savepoint<T>(c: TxContext<Db>, fn: () => Promise<T>): Promise<T> {
    const name = `sp${++c.depth}`;
    const queued = c.after.length;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      // What the savepoint queued announces writes just undone.
      c.after.length = queued;
      throw e;
    } finally {
      c.depth--;
    }
  }

  /** The caller's open transaction (a timer started inside one inherits a closed context). */
  private current(): TxContext<Db> | null {
    const c = this.ctx.getStore();
    return c && c.open ? c : null;
  }

  private mustWait(): boolean {
    return this.held !== null && this.current() === null;
  }

  private async waitTurn(): Promise<void> {
    while (this.held && this.current() === null) await this.held;
  }
}

// ---- PostgreSQL ----

/** Type OIDs Bun hands back as strings: int8 and numeric (counts, sums, millisecond times). */
const NUMERIC_TYPE_OIDS = new Set([20, 1700]);

interface Translated {
  text: string;
  names: string[];
}

/** `$name` placeholders to PostgreSQL's `$1…` (a name used twice is one parameter), cached per text. */
export function numberParams(text: string, cache: Map<string, Translated>): Translated {
  const hit = cache.get(text);
  if (hit) return hit;
  const names: string[] = [];
  const out = text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  const t = { text: out, names };
  cache.set(text, t);
  return t;
}

type PgHandle = Pick<SQL, 'unsafe'>;

/** PostgreSQL's LISTEN/NOTIFY, for messages between nodes (service/events/cluster-bus.ts). */
export interface Notifier {
  notify(channel: string, payload: string): Promise<void>;
  /** Resolves once listening; `onPayload` gets each notification in order. Returns the unlisten. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
}

export class PostgresSql implements Sql, Notifier {
  readonly dialect = 'postgres' as const;
  private readonly ctx = new AsyncLocalStorage<TxContext<PgHandle>>();
  private readonly texts = new Map<string, Translated>();

  constructor(readonly pool: SQL) {}

  async all<T>(text: string, params: SqlParams = {}): Promise<T[]> {
    return (await this.query(text, params)) as T[];
  }

  async get<T>(text: string, params: SqlParams = {}): Promise<T | null> {
    const rows = await this.query(text, params);
    return (rows[0] as T | undefined) ?? null;
  }

  async run(text: string, params: SqlParams = {}): Promise<number> {
    const t = numberParams(text, this.texts);
    const r = (await this.handle().unsafe(t.text, t.names.map((n) => bind(params[n])))) as unknown as { count: number };
    return r.count;
  }

  inTransaction(): boolean {
    return this.current() !== null;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) {
      const tx = outer.handle as unknown as { savepoint<R>(f: () => Promise<R>): Promise<R> };
      const queued = outer.after.length;
      try {
        return await tx.savepoint(() => fn());
      } catch (e) {
        outer.after.length = queued;
        throw e;
      }
    }
    let c: TxContext<PgHandle> | null = null;
    try {
      const result = await this.pool.begin(async (tx) => {
        c = { handle: tx as unknown as PgHandle, open: true, depth: 0, after: [] };
        return this.ctx.run(c, fn);
      });
      const done = c as TxContext<PgHandle> | null;
      if (done) {
        done.open = false;
        runAfter(done.after);
      }
      return result as T;
    } finally {
      if (c) (c as TxContext<PgHandle>).open = false;
    }
  }

  afterCommit(run: () => void): void {
    const c = this.current();
    if (c) c.after.push(run);
    else run();
  }

  async close(): Promise<void> {
    await this.pool.close({ timeout: 5 });
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.pool.notify(channel, payload);
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const sub = await this.pool.listen(channel, onPayload);
    return () => sub.unlisten();
  }

  private handle(): PgHandle {
    return this.current()?.handle ?? this.pool;
  }

  private current(): TxContext<PgHandle> | null {
    const c = this.ctx.getStore();
    return c && c.open ? c : null;
  }

  private async query(text: string, params: SqlParams): Promise<Record<string, unknown>[]> {
    const t = numberParams(text, this.texts);
    const rows = (await this.handle().unsafe(t.text, t.names.map((n) => bind(params[n])))) as unknown as Record<string, unknown>[] & {
      columns?: { name: string; type: number }[];
    };
    const wide = rows.columns?.filter((c) => NUMERIC_TYPE_OIDS.has(c.type)).map((c) => c.name) ?? [];
    if (wide.length > 0) {
      for (const row of rows) for (const name of wide) if (typeof row[name] === 'string') row[name] = Number(row[name]);
    }
    return rows;
  }
}

/** Values as PostgreSQL takes them: booleans are stored as 0/1 integers, as in SQLite; text made safe. */
function bind(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return safeText(v);
  return v;
}
