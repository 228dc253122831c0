// The one asynchronous SQL interface every store speaks, over two backends: the embedded SQLite
// file (the default) and a shared PostgreSQL (`DATABASE_URL`, several nodes). Statements are
// written once with `$name` parameters; the PostgreSQL side numbers them. A transaction is found
// through the async context, so a store method called inside `transaction` takes part in it
// without being handed a connection.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'bun';
import { type Db, STORE_TIMEOUT_CODE } from './db.ts';

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
  transaction<T>(fn: () => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /** Runs `run` once what is written now is committed: at once outside a transaction. */
  afterCommit(run: () => void): void;
  /** Whether the caller is inside a transaction of this database. */
  inTransaction(): boolean;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Background work that reads much in one transaction (a replica's copy of an instrument): no
   * statement time-out and no client-side bound on PostgreSQL. Never on a request's path.
   */
  unbounded?: boolean;
}

interface TxContext<H> {
  handle: H;
  open: boolean;
  depth: number;
  after: (() => void)[];
  /** Set when the client-side bound gave the transaction up: `fn`'s statements fail with it until `fn` ends. */
  aborted?: StoreTimeout | null;
  settled?: boolean;
  unbounded?: boolean;
}

/**
 * A statement or transaction the store did not answer within this node's client-side bound
 * (`PgBounds`): the server or the network stopped answering. Nothing is known to be written (a
 * transaction is rolled back where the server still hears; a COMMIT already on its way may land, as
 * with any lost answer). Mapped to 503 like a lock time-out (store/db.ts, `contended`).
 */
export class StoreTimeout extends Error {
  readonly code = STORE_TIMEOUT_CODE;
  constructor(what: 'statement' | 'transaction', ms: number) {
    super(`the database did not answer the ${what} within ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

/**
 * `work`, or a StoreTimeout once `ms` pass first (then `onExpiry` runs: cancel, roll back). A late
 * settling of `work` is swallowed here: its caller was answered.
 */
function within<T>(work: PromiseLike<T>, ms: number, what: 'statement' | 'transaction', onExpiry: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new StoreTimeout(what, ms));
      onExpiry();
    }, ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
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

/**
 * How long this node waits on PostgreSQL (src/store/postgres.ts sends the server's part when it
 * connects): the server cancels a statement past `statementMs` or a lock wait past `lockMs`, and ends
 * a session idle inside a transaction past `idleInTransactionMs` (a paused node's open transaction
 * frees its locks); the client gives up a statement, or a whole transaction, the server has not
 * answered within `clientStatementMs` or `clientTransactionMs` (a server or network that stopped).
 */
export interface PgBounds {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
  clientStatementMs: number;
  clientTransactionMs: number;
  connectS: number;
}

type PgQuery = PromiseLike<unknown> & { cancel?: () => unknown };

export class PostgresSql implements Sql, Notifier {
  readonly dialect = 'postgres' as const;
  private readonly ctx = new AsyncLocalStorage<TxContext<PgHandle>>();
  private readonly texts = new Map<string, Translated>();

  constructor(
    readonly pool: SQL,
    readonly bounds: PgBounds | null = null,
  ) {}

  async all<T>(text: string, params: SqlParams = {}): Promise<T[]> {
    return (await this.query(text, params)) as T[];
  }

  async get<T>(text: string, params: SqlParams = {}): Promise<T | null> {
    const rows = await this.query(text, params);
    return (rows[0] as T | undefined) ?? null;
  }

  async run(text: string, params: SqlParams = {}): Promise<number> {
    const r = (await this.send(text, params)) as { count: number };
    return r.count;
  }

  inTransaction(): boolean {
    return this.current() !== null;
  }

  async transaction<T>(fn: () => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
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
    const box: { c: TxContext<PgHandle> | null; expired: StoreTimeout | null } = { c: null, expired: null };
    const unbounded = opts.unbounded === true;
    const work = this.pool.begin(async (tx) => {
      // Given up while it waited for a connection: it must not run late, after its caller was answered.
      if (box.expired) throw box.expired;
      const c: TxContext<PgHandle> = { handle: tx as unknown as PgHandle, open: true, depth: 0, after: [], unbounded };
      box.c = c;
      if (unbounded && this.bounds) await tx.unsafe('SET LOCAL statement_timeout = 0');
      try {
        return await this.ctx.run(c, fn);
      } finally {
        c.settled = true;
      }
    });
    try {
      const result = this.bounds && !unbounded ? await within(work, this.bounds.clientTransactionMs, 'transaction', () => this.giveUp(box)) : await work;
      const done = box.c as TxContext<PgHandle> | null;
      if (done) {
        done.open = false;
        runAfter(done.after);
      }
      return result as T;
    } finally {
      if (box.c) (box.c as TxContext<PgHandle>).open = false;
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
    const sent = this.pool.notify(channel, payload);
    await (this.bounds ? within(sent, this.bounds.clientStatementMs, 'statement', () => {}) : sent);
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const sub = await this.pool.listen(channel, onPayload);
    return () => sub.unlisten();
  }

  /** The transaction's bound ran out: its statements fail from now on, and the server is told to roll it back. */
  private giveUp(box: { c: TxContext<PgHandle> | null; expired: StoreTimeout | null }): void {
    box.expired = new StoreTimeout('transaction', this.bounds?.clientTransactionMs ?? 0);
    if (!box.c) return;
    box.c.aborted = box.expired;
    const tx = box.c.handle as unknown as { close?: () => Promise<void> };
    tx.close?.().catch(() => {});
  }

  private handle(): PgHandle {
    const c = this.ctx.getStore();
    if (c?.aborted && !c.settled) throw c.aborted;
    return c && c.open ? c.handle : this.pool;
  }

  private current(): TxContext<PgHandle> | null {
    const c = this.ctx.getStore();
    return c && c.open ? c : null;
  }

  /** Sends one statement, within the client-side bound (cancelled on the server when it runs out). */
  private send(text: string, params: SqlParams): Promise<unknown> {
    const t = numberParams(text, this.texts);
    const q = this.handle().unsafe(t.text, t.names.map((n) => bind(params[n]))) as unknown as PgQuery;
    if (!this.bounds || this.ctx.getStore()?.unbounded) return Promise.resolve(q);
    return within(q, this.bounds.clientStatementMs, 'statement', () => void q.cancel?.());
  }

  private async query(text: string, params: SqlParams): Promise<Record<string, unknown>[]> {
    const rows = (await this.send(text, params)) as Record<string, unknown>[] & {
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
