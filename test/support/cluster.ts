// A cluster for tests: several real server processes (`bun src/main.ts`) on one PostgreSQL database,
// each with its own DATA_DIR (market data is per node), behind a small round-robin proxy of the
// test's own, as a plain load balancer without stickiness would spread a bot's calls.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { freshDatabase } from './postgres.ts';
import { type ServerProcess, spawnServer } from './server-process.ts';

export interface ClusterNode {
  id: string;
  server: ServerProcess;
  dataDir: string;
  alive: boolean;
}

export interface Cluster {
  databaseUrl: string;
  nodes: ClusterNode[];
  /** The proxy's base URL: every request goes to the next live node in turn. */
  base: string;
  /** The node each request went to, in order (node ids). */
  routed: string[];
  /** A client of the shared database, for the test's own checks. */
  db: SQL;
  /** Demo credentials written by the first node. */
  demo: { userName: string; apiKey: string; password: string };
  kill(id: string): void;
  stop(): Promise<void>;
}

export async function startCluster(n: number, env: Record<string, string> = {}): Promise<Cluster> {
  const databaseUrl = await freshDatabase();
  const nodes: ClusterNode[] = [];
  const start = async (i: number) => {
    const id = `n${i + 1}`;
    const dataDir = mkdtempSync(join(tmpdir(), `rd-cluster-${id}-`));
    const server = await spawnServer({ env: { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, NODE_ID: id, LOG_REQUESTS: 'false', ...env }, timeoutMs: 120_000 });
    return { id, server, dataDir, alive: true };
  };
  // The first node migrates and makes the demo user; the others start together.
  nodes.push(await start(0));
  nodes.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => start(i + 1)))));
  const routed: string[] = [];
  let next = 0;
  const proxy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      for (let tries = 0; tries < nodes.length; tries++) {
        const node = nodes[next++ % nodes.length];
        if (!node.alive) continue;
        const url = new URL(request.url);
        try {
          const res = await fetch(new URL(url.pathname + url.search, node.server.base), { method: request.method, headers: request.headers, body, redirect: 'manual' });
          routed.push(node.id);
          const headers = new Headers(res.headers);
          headers.delete('content-encoding');
          headers.delete('content-length');
          return new Response(await res.arrayBuffer(), { status: res.status, headers });
        } catch {
          // A node that died: the next one takes the request, as a balancer's health check would.
        }
      }
      return new Response('no node', { status: 502 });
    },
  });
  const demo = JSON.parse(readFileSync(join(nodes[0].dataDir, 'demo-credentials.json'), 'utf8'));
  const db = new SQL(databaseUrl, { max: 2 });
  return {
    databaseUrl,
    nodes,
    base: `http://127.0.0.1:${proxy.port}`,
    routed,
    db,
    demo,
    kill(id) {
      const node = nodes.find((x) => x.id === id);
      if (!node) throw new Error(`no node ${id}`);
      node.alive = false;
      node.server.proc.kill(9);
    },
    async stop() {
      proxy.stop(true);
      for (const node of nodes) if (node.alive) node.server.proc.kill('SIGTERM');
      await Promise.all(nodes.map((node) => node.server.proc.exited));
      await db.close();
    },
  };
}
