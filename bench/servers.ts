// Real server processes of the checkout under test (ROOT, bench/root.ts): `bun <ROOT>/src/main.ts`
// on 127.0.0.1, talked to over HTTP only, so any commit since the previous release answers. This
// checkout's test/support starts them (`spawnServer` with ROOT as its root), proxies them and gives
// the throwaway PostgreSQL; only the bench's cluster (no test hooks) is its own.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { roundRobin } from '../test/support/cluster.ts';
import { freshDatabase } from '../test/support/postgres.ts';
import { type ServerProcess, spawnServer as spawnTestServer } from '../test/support/server-process.ts';
import { ROOT } from './root.ts';

/** The sandbox cache the tests use: the Pyodide snapshot is built once per machine. */
const RUNNER_CACHE = join(tmpdir(), 'replaydesk-test-runner');

/** ROOT's server (or `root`'s) with `env` over this process's environment, awaited until it listens. */
export function spawnServer(opts: { env: Record<string, string>; timeoutMs?: number; root?: string }): Promise<ServerProcess> {
  return spawnTestServer({ ...opts, root: opts.root ?? ROOT });
}

export type { ServerProcess };

export interface ClusterNode {
  id: string;
  server: ServerProcess;
  alive: boolean;
}

export interface Cluster {
  nodes: ClusterNode[];
  /** The proxy's base URL: every request goes to the next live node in turn. */
  base: string;
  /** A client of the shared database. */
  db: SQL;
  /** Demo credentials written by the first node. */
  demo: { userName: string; apiKey: string; password: string };
  kill(id: string): void;
  stop(): Promise<void>;
}

/** `n` nodes (of ROOT, or of `root`) on one fresh PostgreSQL database behind a round-robin proxy without stickiness. */
export async function startCluster(n: number, env: Record<string, string>, root = ROOT): Promise<Cluster> {
  const databaseUrl = await freshDatabase();
  const dirs: string[] = [];
  const start = async (i: number): Promise<ClusterNode> => {
    const id = `n${i + 1}`;
    const dataDir = mkdtempSync(join(tmpdir(), `rd-bench-cluster-${id}-`));
    dirs[i] = dataDir;
    const server = await spawnServer({
      root,
      env: { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, NODE_ID: id, LOG_REQUESTS: 'false', RUNNER_CACHE_DIR: RUNNER_CACHE, ...env },
      timeoutMs: 120_000,
    });
    return { id, server, alive: true };
  };
  // The first node migrates and makes the demo user; the others start together.
  const nodes = [await start(0)];
  nodes.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => start(i + 1)))));
  const proxy = roundRobin(nodes);
  const db = new SQL(databaseUrl, { max: 2 });
  return {
    nodes,
    base: `http://127.0.0.1:${proxy.port}`,
    db,
    demo: JSON.parse(readFileSync(join(dirs[0], 'demo-credentials.json'), 'utf8')),
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
