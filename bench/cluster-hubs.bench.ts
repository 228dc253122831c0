// A step's market events across nodes: two server processes of ROOT's checkout (bench/servers.ts) on
// one PostgreSQL; a session started on node 1 (its owner), stepped there 100 × 1 m a call, and an
// official SignalR client on node 2 subscribed to its contract's trades, which reach node 2 only
// through PostgreSQL LISTEN/NOTIFY (src/service/events/cluster-bus.ts). For each step: its answer's
// round trip, and the time from sending it until node 2's client holds the trades of the step's last
// bar (every event of a step crosses in order, so the last bar's arrive last). Over HTTP and the hub
// only, so any commit since the previous release answers (`npm run bench -- --baseline <commit>
// --only cluster-hubs`).
//
// Run: ./node_modules/.bin/bun bench/cluster-hubs.bench.ts   (ROUNDS, 40 steps by default)

import { loadavg } from 'node:os';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { startCluster } from './servers.ts';
import { median, percentile } from './support.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const STEPS = 100;
const NODE_ENV = { DATA_START_DATE: '2025-02-01', DATA_END_DATE: '2025-04-30' };

async function post(base: string, token: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json;
}

const c = await startCluster(2, NODE_ENV);
try {
  const [owner, other] = c.nodes.map((n) => n.server.base);
  const { token } = await post(owner, '', 'Auth/loginKey', { userName: c.demo.userName, apiKey: c.demo.apiKey });
  const start = await post(owner, token, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
  const { accountId } = start;
  const contractId = start.instrument.contractId as string;

  /** The latest trade time node 2's client holds, when it arrived, and who waits for one at or after a time. */
  let latestMs = 0;
  let latestAt = 0;
  let waiter: { atMs: number; done: () => void } | null = null;
  const hub = new HubConnectionBuilder()
    .withUrl(`${other}/hubs/market`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
    .configureLogging(LogLevel.None)
    .build();
  hub.on('GatewayTrade', (_id: string, trades: { timestamp: string }[]) => {
    for (const t of trades) latestMs = Math.max(latestMs, Date.parse(t.timestamp));
    latestAt = performance.now();
    if (waiter && latestMs > waiter.atMs) waiter.done();
  });
  await hub.start();
  await hub.invoke('SubscribeContractTrades', contractId);

  /**
   * Steps on the owner; resolves when node 2 holds the last bar's trades (bounded: a lost event fails
   * the bench), timed at their arrival (which may come before the step's answer is read).
   */
  async function stepAndHear(steps: number): Promise<{ answerMs: number; heardMs: number }> {
    const t0 = performance.now();
    const r = await post(owner, token, 'Replay/step', { accountId, steps });
    const answerMs = performance.now() - t0;
    // The hub stamps a bar's trades with its close: the last bar's are the first stamped after its open.
    const lastOpenMs = Date.parse(r.bars[r.bars.length - 1].t);
    if (latestMs <= lastOpenMs) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no trade of the bar opened ${r.bars[r.bars.length - 1].t} at node 2 within 30 s`)), 30_000);
        waiter = { atMs: lastOpenMs, done: () => (clearTimeout(timer), (waiter = null), resolve()) };
      });
    }
    return { answerMs, heardMs: latestAt - t0 };
  }

  // Node 1 hears of node 2's subscriber through PostgreSQL: step one bar at a time until a trade crosses.
  const deadline = Date.now() + 30_000;
  while (latestMs === 0 && Date.now() < deadline) {
    await post(owner, token, 'Replay/step', { accountId, steps: 1 });
    await Bun.sleep(100);
  }
  if (latestMs === 0) throw new Error('no trade reached node 2 within 30 s');
  await stepAndHear(STEPS);

  const answers: number[] = [];
  const heard: number[] = [];
  const load0 = loadavg()[0];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await stepAndHear(STEPS);
    answers.push(r.answerMs);
    heard.push(r.heardMs);
  }
  await hub.stop();
  const f = (xs: number[]) => `median ${median(xs).toFixed(1)} ms, p99 ${percentile(xs, 0.99).toFixed(1)} ms`;
  console.log(`cluster-hubs: ${ROUNDS} steps of ${STEPS} × 1 m on node 1, trades heard on node 2 (load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)})`);
  console.log(`  step answered: ${f(answers)}`);
  console.log(`  step sent → last bar's trades at node 2: ${f(heard)}`);
} finally {
  await c.stop();
}
