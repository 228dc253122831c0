// Real server processes of the checkout under test (ROOT, bench/root.ts): `bun <ROOT>/src/main.ts`
// on 127.0.0.1, talked to over HTTP only, so any commit since the previous release answers. A copy of
// what the benches need from test/support/server-process.ts and test/support/cluster.ts (those start
// this checkout's main.ts, not ROOT's), with the throwaway PostgreSQL still from test/support.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL, type Subprocess } from 'bun';
import { freshDatabase } from '../test/support/postgres.ts';
import { ROOT } from './root.ts';

/** The sandbox cache the tests use: the Pyodide snapshot is built once per machine. */
const RUNNER_CACHE = join(tmpdir(), 'replaydesk-test-runner');

export interface ServerProcess {
  proc: Subprocess<'ignore', 'ignore', 'pipe'>;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything the server has logged so far. */
  log: () => string;
}

/** Starts ROOT's server with `env` over this process's environment and waits for its "listening" line. */
export async function spawnServer(opts: { env: Record<string, string>; timeoutMs?: number }): Promise<ServerProcess> {
  const proc = Bun.spawn([process.execPath, '--max-http-header-size=65536', join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...opts.env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  });
  let text = '';
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (!/listening url=(\S+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`server did not start:\n${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited:\n${text}`);
    text += decoder.decode(value);
  }
  const base = /listening url=(\S+)/.exec(text)![1];
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  })();
  return { proc, base, log: () => text };
}

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
  demo: { userName: string; apiKey: string };
  kill(id: string): void;
  stop(): Promise<void>;
}

/** `n` nodes on one fresh PostgreSQL database behind a round-robin proxy without stickiness. */
export async function startCluster(n: number, env: Record<string, string>): Promise<Cluster> {
  const databaseUrl = await freshDatabase();
  const dirs: string[] = [];
  const start = async (i: number): Promise<ClusterNode> => {
    const id = `n${i + 1}`;
    const dataDir = mkdtempSync(join(tmpdir(), `rd-bench-cluster-${id}-`));
    dirs[i] = dataDir;
    const server = await spawnServer({
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

/** A proxy passing each request to the next live node (a dead one's request goes to the one after). */
function roundRobin(nodes: ClusterNode[]) {
  let next = 0;
  return Bun.serve({
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
          const headers = new Headers(res.headers);
          headers.delete('content-encoding');
          headers.delete('content-length');
          return new Response(await res.arrayBuffer(), { status: res.status, headers });
        } catch {}
      }
      return new Response('no node', { status: 502 });
    },
  });
}
