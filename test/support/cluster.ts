// A cluster for tests: several real server processes (`bun src/main.ts`) on one PostgreSQL database,
// each with its own DATA_DIR (market data is per node), behind a small round-robin proxy of the
// test's own, as a plain load balancer without stickiness would spread a bot's calls.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { generateDay } from '../../src/data/generator.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { RUNNER_TEST_CACHE } from './playground.ts';
import { freshDatabase } from './postgres.ts';
import { type ServerProcess, spawnServer } from './server-process.ts';

const ROOT = join(import.meta.dir, '..', '..');

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
  /** SIGTERM (a drain): the node leaves the proxy's rotation, as a balancer's health check would take it out; resolves with its exit code. */
  drain(id: string): Promise<number>;
  /** The admin CLI on the cluster's database (DATABASE_URL), as an operator runs it: its JSON answer. */
  admin(...args: string[]): any;
  stop(): Promise<void>;
}

/** A node by id. */
export function nodeOf(c: Pick<Cluster, 'nodes'>, id: string): ClusterNode {
  const node = c.nodes.find((x) => x.id === id);
  if (!node) throw new Error(`no node ${id}`);
  return node;
}

export async function startCluster(n: number, env: Record<string, string> = {}, opts: { databaseUrl?: string } = {}): Promise<Cluster> {
  // A database of the process's shared server, or one the test gives (a server of its own it may restart).
  const databaseUrl = opts.databaseUrl ?? (await freshDatabase());
  const nodes: ClusterNode[] = [];
  const start = async (i: number) => {
    const id = `n${i + 1}`;
    const dataDir = mkdtempSync(join(tmpdir(), `rd-cluster-${id}-`));
    // One sandbox cache for every node and test file: the Pyodide snapshot is built once per machine.
    // Half a year of data (the tests read early 2025): each node's rollup warm-up over the default
    // span (2024 to yesterday) kept both cores busy through the whole file.
    const server = await spawnServer({
      env: {
        DATABASE_URL: databaseUrl, DATA_DIR: dataDir, NODE_ID: id, LOG_REQUESTS: 'false', RUNNER_CACHE_DIR: RUNNER_TEST_CACHE,
        DATA_START_DATE: '2025-01-01', DATA_END_DATE: '2025-06-30', ...env,
      },
      timeoutMs: 120_000,
    });
    return { id, server, dataDir, alive: true };
  };
  // The first node migrates and makes the demo user; the others start together.
  nodes.push(await start(0));
  nodes.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => start(i + 1)))));
  const routed: string[] = [];
  const proxy = roundRobin(nodes, (id) => routed.push(id));
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
      const node = nodeOf({ nodes }, id);
      node.alive = false;
      node.server.proc.kill(9);
    },
    drain(id) {
      const node = nodeOf({ nodes }, id);
      node.alive = false;
      node.server.proc.kill('SIGTERM');
      return node.server.proc.exited;
    },
    admin(...args) {
      const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'rd-cluster-admin-')) },
      });
      const out = p.stdout.toString();
      if (p.exitCode !== 0) throw new Error(`admin ${args.join(' ')}: exit ${p.exitCode}\n${out}${p.stderr.toString()}`);
      return JSON.parse(out);
    },
    async stop() {
      proxy.stop(true);
      for (const node of nodes) if (node.alive) node.server.proc.kill('SIGTERM');
      await Promise.all(nodes.map((node) => node.server.proc.exited));
      await db.close();
    },
  };
}

/** A long round trip of the synthetic history: buy at `buyAt`'s price, sell at `sellAt`'s. */
export interface RoundTrip {
  /** Replay/jumpTo targets: the last price there is the close of the minute before. */
  buyAt: string;
  sellAt: string;
  /** The gain per contract in points, before fees. */
  points: number;
}

/**
 * The best long round trip between 14:30 and 20:00 UTC of a date in the synthetic 1 m bars every
 * node generates alike (src/data/generator): the lowest minute close followed by the highest.
 */
export function bestLong(symbol: string, date: string): RoundTrip {
  const inst = findInstrument(symbol) as Instrument;
  const day = Date.parse(`${date}T00:00:00Z`) / 86_400_000;
  const bars = generateDay(inst, day);
  const fromS = day * 86_400 + 14.5 * 3600;
  const toS = day * 86_400 + 20 * 3600;
  // A 1 m bar closes at its last stored (1 s) bar's close.
  const closes = new Map<number, number>();
  for (let i = 0; i < bars.length; i++) if (bars.time[i] >= fromS && bars.time[i] < toS) closes.set(bars.time[i] - (bars.time[i] % 60), bars.close[i]);
  let low = { ticks: Number.POSITIVE_INFINITY, minute: 0 };
  let best = { ticks: 0, buy: 0, sell: 0 };
  for (const [minute, close] of closes) {
    if (close < low.ticks) low = { ticks: close, minute };
    else if (close - low.ticks > best.ticks) best = { ticks: close - low.ticks, buy: low.minute, sell: minute };
  }
  const iso = (s: number) => new Date(s * 1000).toISOString();
  return { buyAt: iso(best.buy + 60), sellAt: iso(best.sell + 60), points: best.ticks * inst.tickSize };
}

/**
 * A proxy passing each request to the next live node, without stickiness (a dead node's request goes
 * to the one after, as a balancer's health check would); `onRouted` hears which node answered.
 */
export function roundRobin(nodes: readonly Pick<ClusterNode, 'id' | 'server' | 'alive'>[], onRouted: (id: string) => void = () => {}) {
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
          onRouted(node.id);
          const headers = new Headers(res.headers);
          headers.delete('content-encoding');
          headers.delete('content-length');
          return new Response(await res.arrayBuffer(), { status: res.status, headers });
        } catch {
          // A node that died: the next one takes the request.
        }
      }
      return new Response('no node', { status: 502 });
    },
  });
}
