// The one asynchronous SQL interface every store speaks, over two backends: the embedded SQLite
// file (the default) and a shared PostgreSQL (`DATABASE_URL`, several nodes). Statements are
// written once with `$name` parameters; the PostgreSQL side (`sql-postgres.ts`) numbers them. A transaction is found
// through the async context, so a store method called inside `transaction` takes part in it
// without being handed a connection.

import { AsyncLocalStorage } from 'node:async_hooks';
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

export interface TxContext<H> {
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
export function within<T>(work: PromiseLike<T>, ms: number, what: 'statement' | 'transaction', onExpiry: () => void): Promise<T> {
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

export function runAfter(after: readonly (() => void)[]): void {
  for (const run of after) run();
}

/**
 * Text as both backends store it: U+0000, which PostgreSQL's text cannot hold (it refuses the
 * statement), becomes U+FFFD on both, as a lone surrogate already does; so a pasted script or a
 * script's error message reads back alike on both, instead of failing on one.
 */
export function safeText(v: string): string {
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
