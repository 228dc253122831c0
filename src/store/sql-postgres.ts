// The shared PostgreSQL backend of the `Sql` interface (sql.ts): `$name` parameters numbered per
// statement text, transactions found through the async context as on SQLite, this node's bounds on
// every wait (`PgBounds`), and LISTEN/NOTIFY for messages between nodes.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'bun';
import { runAfter, safeText, type Sql, type SqlParams, StoreTimeout, type TransactionOptions, type TxContext, within } from './sql.ts';

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
