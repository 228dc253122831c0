// The same bot load through 1, 2 and 3 nodes on one PostgreSQL (bench/servers.ts: real
// server processes of ROOT's checkout, bench/root.ts, behind a round-robin proxy; HTTP only), and failover: from kill -9 of the node holding a
// session to the first step of that session answered by another node.
//
// Run: ./node_modules/.bin/bun bench/cluster.bench.ts   (BOTS, CALLS override the load)
// This machine has 2 cores: the nodes, PostgreSQL, the proxy and the bots all share them, so more
// nodes cannot add throughput here; the figures show what forwarding costs, not how a cluster scales.
// The load starts once every node's background start-up work is over (rollup warm-up over a short
// data span, the sandbox pool): measured during it, more nodes meant more warm-ups on the same two
// cores, and the 2- and 3-node figures were ten times the 1-node one for that reason alone.

import { loadavg } from 'node:os';
import { type Cluster, startCluster } from './servers.ts';
import { median, percentile } from './support.ts';

/** The span of data each node serves (and warms): the sessions below read March 2025 only. */
const NODE_ENV = { DATA_START_DATE: '2025-02-01', DATA_END_DATE: '2025-04-30' };
const STARTED = [/rollups warm/, /playground runner (ready|failed)/];

const BOTS = Number(process.env.BOTS ?? 6);
const CALLS = Number(process.env.CALLS ?? 40);

async function post(c: Cluster, token: string, path: string, body: unknown) {
  const res = await fetch(`${c.base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** One bot: a session, then CALLS calls alternating a step and a far limit order placed and canceled. */
async function bot(c: Cluster, token: string, i: number, latencies: number[]): Promise<void> {
  const start = await post(c, token, 'Replay/start', { instrumentSymbol: i % 2 ? 'ES' : 'NQ', startDate: '2025-03-03', timeframe: '1m' });
  const accountId = start.body.accountId;
  const contractId = start.body.instrument.contractId;
  for (let k = 0; k < CALLS; k++) {
    const t0 = performance.now();
    if (k % 2 === 0) await post(c, token, 'Replay/step', { accountId, steps: 1 });
    else {
      const o = await post(c, token, 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1000 });
      await post(c, token, 'Order/cancel', { accountId, orderId: o.body.orderId });
    }
    latencies.push(performance.now() - t0);
  }
}

/** Waits until every node has logged the end of its start-up work. */
async function settled(c: Cluster): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!c.nodes.every((n) => STARTED.every((line) => line.test(n.server.log())))) {
    if (Date.now() > deadline) throw new Error('nodes still warming up after 10 minutes');
    await Bun.sleep(250);
  }
}

async function load(nodes: number): Promise<{ callsPerS: number; medianMs: number; p90Ms: number; failoverMs: number | null }> {
  const c = await startCluster(nodes, NODE_ENV);
  try {
    await settled(c);
    const token = (await post(c, '', 'Auth/loginKey', { userName: c.demo.userName, apiKey: c.demo.apiKey })).body.token;
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: BOTS }, (_, i) => bot(c, token, i, latencies)));
    const s = (performance.now() - t0) / 1000;
    let failoverMs: number | null = null;
    if (nodes > 1) {
      const start = await post(c, token, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-04', timeframe: '1m' });
      const accountId = start.body.accountId;
      await post(c, token, 'Replay/step', { accountId, steps: 1 });
      const [{ node_id }] = await c.db`SELECT node_id FROM session_leases WHERE account_id = ${accountId}`;
      c.kill(node_id);
      const killed = performance.now();
      for (;;) {
        const r = await post(c, token, 'Replay/step', { accountId, steps: 1 });
        if (r.status === 200) break;
        await Bun.sleep(100);
      }
      failoverMs = performance.now() - killed;
    }
    return { callsPerS: latencies.length / s, medianMs: median(latencies), p90Ms: percentile(latencies, 0.9), failoverMs };
  } finally {
    await c.stop();
  }
}

console.log(`bots ${BOTS}, ${CALLS} timed calls each (a step, or a limit order placed and canceled); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('nodes  calls/s  median ms  p90 ms  failover ms  load (1 min)');
for (const n of [1, 2, 3]) {
  const r = await load(n);
  console.log(`${n}      ${r.callsPerS.toFixed(1).padStart(7)}  ${r.medianMs.toFixed(1).padStart(9)}  ${r.p90Ms.toFixed(1).padStart(6)}  ${(r.failoverMs === null ? '—' : r.failoverMs.toFixed(0)).padStart(11)}  ${loadavg()[0].toFixed(1)}`);
}
