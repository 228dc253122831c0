// Cluster nodes inside a bench process, built from the checkout under test (bench/root.ts): each its
// own services (a node id, an in-memory SQLite for market data) on one shared PostgreSQL database,
// served over real HTTP on 127.0.0.1 by that checkout's fetch handler. A copy of the few lines of
// test/support/in-process-node.ts a bench needs, so that commits without that file (before
// 2026-11-27) are measured the same way. Where a node tells the others its address moved with the
// topology seam (`s.topology.ownership`, `s.ownership` before).

import type { Services } from '../src/service/services.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { ManualClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { openPostgres } = await load<typeof import('../src/store/postgres.ts')>('src/store/postgres.ts');

/** 2025-03-03T14:30:00Z, a Monday: every node's clock. */
export const T0 = Date.UTC(2025, 2, 3, 14, 30, 0);

export interface BenchNode {
  id: string;
  s: Services;
  /** `http://127.0.0.1:<port>` */
  base: string;
  stop(): Promise<void>;
}

type Advertiser = { advertise(url: string): void };

/** A node on `databaseUrl`, advertising its own address to the others. */
export async function benchNode(databaseUrl: string, id: string, jwtSecret: Uint8Array): Promise<BenchNode> {
  const sql = await openPostgres(databaseUrl, { max: 4, idleTimeoutS: 1 });
  const db = openDb(':memory:');
  const s = await createServices({ config: defaultConfig({ nodeId: id }), clock: new ManualClock(T0), db, sql, jwtSecret, logError: () => {} });
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  const base = `http://127.0.0.1:${server.port}`;
  const older = s as unknown as { topology?: { ownership: Advertiser }; ownership?: Advertiser };
  (older.topology?.ownership ?? older.ownership)?.advertise(base);
  return {
    id,
    s,
    base,
    async stop() {
      server.stop(true);
      await s.shutdown();
      db.close();
    },
  };
}

/** A bearer token of a new Pro user, logged in through `node` over HTTP. */
export async function benchToken(node: BenchNode, email: string): Promise<string> {
  const made = await node.s.users.create({ email, plan: 'pro' });
  if (!made.ok) throw new Error(`user ${email}: ${JSON.stringify(made.error)}`);
  const res = await fetch(`${node.base}/api/sim/Auth/loginKey`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: email, apiKey: made.value.apiKey }),
  });
  const body = (await res.json()) as { success: boolean; token: string };
  if (!body.success) throw new Error(`login ${email}: ${JSON.stringify(body)}`);
  return body.token;
}
