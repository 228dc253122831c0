// Nodes of a cluster inside the test process: each its own services (a node id, a SQLite file of its
// own for market data) on one shared PostgreSQL database, served over real HTTP on 127.0.0.1 by the
// server's own fetch handler. A node advertises where the others reach it: its own address, or a
// test proxy's in front of it (test/support/tcp-proxy.ts). Nothing renews the leases on
// its own (no timers): a test decides when a lease is live and when it lapses (`setLease`).

import { SQL } from 'bun';
import { buildApp, silentLogger } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createFetch } from '../../src/server.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { T0 } from './app.ts';

export interface InProcessNode {
  id: string;
  s: Services;
  /** `http://127.0.0.1:<port>`: the node itself. */
  base: string;
  /** Where the other nodes reach it (its base, or a proxy's): named in the leases it takes. */
  url: string;
  /** From now on the other nodes reach it at `url` (a proxy in front of it). */
  advertise(url: string): void;
  stop(): Promise<void>;
}

/** A node on `databaseUrl`, reached by the others at its own address until it advertises another. */
export async function inProcessNode(databaseUrl: string, id: string, jwtSecret: Uint8Array): Promise<InProcessNode> {
  const sql = await openPostgres(databaseUrl, { max: 4, idleTimeoutS: 1 });
  const db = openDb(':memory:');
  const s = await createServices({ config: defaultConfig({ nodeId: id }), clock: new ManualClock(T0), db, sql, jwtSecret, logError: () => {} });
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  const base = `http://127.0.0.1:${server.port}`;
  s.topology.ownership.advertise(base);
  const node: InProcessNode = {
    id,
    s,
    base,
    url: base,
    advertise(url) {
      node.url = url;
      s.topology.ownership.advertise(url);
    },
    async stop() {
      server.stop(true);
      await s.shutdown();
      db.close();
    },
  };
  return node;
}

/** A bearer token of a new Pro user, logged in through `node`. */
export async function userToken(node: InProcessNode, email: string): Promise<string> {
  const made = await node.s.users.create({ email, plan: 'pro' });
  if (!made.ok) throw new Error(`user ${email}: ${JSON.stringify(made.error)}`);
  const r = await postAt(node.base, 'Auth/loginKey', { userName: email, apiKey: made.value.apiKey });
  if (!r.body.success) throw new Error(`login ${email}: ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

export interface Reply {
  status: number;
  body: any;
  retryAfter: string | null;
}

/** POST to a node's current family, with a generous bound far above anything a node should take. */
export async function postAt(base: string, path: string, body: unknown, token = '', headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
}

/**
 * Sets the lease of `accountId` in the shared database: held by `node` (its advertised URL) for a
 * minute, or lapsed (`live: false`: expired, as a paused holder's lease becomes, and not taken).
 */
export async function setLease(db: SQL, accountId: number, node: InProcessNode, live: boolean): Promise<void> {
  const expires = live ? 60_000 : -1_000;
  await db`UPDATE session_leases SET node_id = ${node.id}, node_url = ${node.url},
    expires_ms = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT + ${expires} WHERE account_id = ${accountId}`;
}

/** The session's position as the store holds it. */
export async function storedIndex(db: SQL, accountId: number): Promise<number> {
  const [row] = await db`SELECT current_index FROM replay_sessions WHERE account_id = ${accountId}`;
  return Number(row.current_index);
}
