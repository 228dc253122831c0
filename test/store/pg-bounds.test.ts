// Every wait on PostgreSQL has a bound (a serving node's connections, src/store/sql-postgres.ts PgBounds):
// a transaction left open by a node that stopped (paused, or stuck between its statements) is ended
// by the server, so its locks, a session lease's row among them, cannot outlive the bound; a lock wait
// behind it gives up after lock_timeout instead of hanging; a server that stops answering altogether
// is given up by the client; and each of these, like a server shutting down, is a store failure the
// HTTP layer answers with 503, never a 500.

import { expect, it } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { SQL } from 'bun';
import { LeaseStore } from '../../src/store/leases.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { storeFailureOf } from '../../src/store/db.ts';
import { StoreTimeout } from '../../src/store/sql.ts';
import type { PgBounds } from '../../src/store/sql-postgres.ts';
import { SERVING_PG_BOUNDS } from '../../src/instance.ts';
import { describePg, freshDatabase, ownPostgres, templateDatabase } from '../support/postgres.ts';

/** The serving bounds, shortened so the test waits little (the machine's speed decides nothing: each wait is for an event). */
const SHORT: PgBounds = { statementMs: 1_000, lockMs: 300, idleInTransactionMs: 800, clientStatementMs: 3_000, clientTransactionMs: 20_000, connectS: 5 };

async function migrated(): Promise<string> {
  const template = await templateDatabase('migrated', async (url) => (await openPostgres(url, { max: 1 })).close());
  return freshDatabase(template ?? undefined);
}

/** Resolves with what `p` settles to, or 'pending' after `ms` (a generous bound). */
async function settledWithin<T>(p: Promise<T>, ms: number): Promise<T | Error | 'pending'> {
  return Promise.race([p.then((v) => v, (e: Error) => e), Bun.sleep(ms).then(() => 'pending' as const)]);
}

describePg('PostgreSQL bounds of a serving node', () => {
  it('a serving connection carries the server-side bounds', async () => {
    const sql = await openPostgres(await migrated(), { max: 1, bounds: SERVING_PG_BOUNDS });
    const row = await sql.get<Record<string, string>>(
      `SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l, current_setting('idle_in_transaction_session_timeout') AS i`,
    );
    expect(row).toEqual({ s: '10s', l: '3s', i: '5s' });
    await sql.close();
  });

  it('a node that stops inside its transaction holds a lease row no longer than idle_in_transaction_session_timeout; waiters get lock_timeout, then the row', async () => {
    const url = await migrated();
    const a = await openPostgres(url, { max: 2, bounds: SHORT });
    const b = await openPostgres(url, { max: 2, bounds: SHORT });
    await new LeaseStore(a).acquire(7, 'node-a', 'http://a', -1_000); // expired: B may take it
    // A extends the lease inside a transaction (the fence of a commit) and stops there.
    let stopped!: () => void;
    const inside = new Promise<void>((resolve) => (stopped = resolve));
    const held = a.transaction(async () => {
      await new LeaseStore(a).extend(7, 'node-a', -1_000);
      stopped();
      await new Promise(() => {}); // never goes on: a paused process, as PostgreSQL sees it
    });
    await inside;
    // B's take waits on A's row lock: refused after lock_timeout, as a store failure to retry.
    const refused = await settledWithin(new LeaseStore(b).acquire(7, 'node-b', 'http://b', 60_000), 30_000);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as { errno?: string }).errno).toBe('55P03');
    expect(storeFailureOf(refused)).toBe('contended');
    // The server ends A's idle transaction: its locks go, and B takes the lease.
    const ended = await settledWithin(held, 30_000);
    expect(ended).toBeInstanceOf(Error);
    expect(storeFailureOf(ended)).not.toBeNull();
    const taken = await new LeaseStore(b).acquire(7, 'node-b', 'http://b', 60_000);
    expect(taken).toMatchObject({ nodeId: 'node-b' });
    await a.close();
    await b.close();
  }, 120_000);

  it('a connection the server terminates (a shutdown) and a statement over statement_timeout are store failures, not bugs', async () => {
    const url = await migrated();
    const sql = await openPostgres(url, { max: 2, bounds: SHORT });
    const admin = new SQL(url, { max: 1 });
    const sleeping = sql.get(`SELECT pg_sleep(30) AS slept, 'rd-terminate-me' AS tag`).then(() => null, (e: Error) => e);
    for (let i = 0; i < 300; i++) {
      const [r] = await admin.unsafe(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%rd-terminate-me%' AND pid <> pg_backend_pid()`);
      if (r.n > 0) break;
      await Bun.sleep(100);
    }
    await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%rd-terminate-me%' AND pid <> pg_backend_pid()`);
    const terminated = await sleeping;
    expect((terminated as { errno?: string }).errno).toBe('57P01');
    expect(storeFailureOf(terminated)).toBe('unwritable');
    const long = await sql.get('SELECT pg_sleep(10)').then(() => null, (e: Error) => e);
    expect((long as { errno?: string }).errno).toBe('57014');
    expect(storeFailureOf(long)).toBe('contended');
    await admin.close();
    await sql.close();
  }, 120_000);

  it('a server that stops answering: the client gives the statement up (StoreTimeout, a store failure) and answers again once it is back', async () => {
    const pg = await ownPostgres();
    const sql = await openPostgres(pg.url, { max: 2, bounds: SHORT });
    expect(await sql.get('SELECT 1 AS one')).toEqual({ one: 1 });
    const pids = serverProcesses(pg.pid());
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    let frozen: unknown;
    try {
      frozen = await settledWithin(sql.get('SELECT 2 AS two'), 60_000);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    expect(frozen).toBeInstanceOf(StoreTimeout);
    expect(storeFailureOf(frozen)).toBe('contended');
    expect(await sql.get('SELECT 3 AS three')).toEqual({ three: 3 });
    await sql.close();
    pg.stop('immediate');
  }, 120_000);
});

/** The postmaster and its children (the server's backends and helpers), by /proc. */
function serverProcesses(postmaster: number): number[] {
  const out = [postmaster];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) out.push(Number(name));
    } catch {}
  }
  return out;
}
