// Three ReplayDesk nodes on one PostgreSQL behind a round-robin proxy (test/support/cluster.ts): a
// bot's calls land on any node; the node holding the session's lease answers them (the others
// forward); a playground run is served by whichever node a client reaches; when a node is killed
// (-9) its sessions move to another once the lease expires, with everything that was acknowledged
// kept; a node drained by SIGTERM finishes its requests and hands its sessions and runs to the others
// at once. One cluster for the file: the kill leaves two nodes, the drain one.

import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { afterAll, beforeAll, expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { bestLong, type Cluster, type ClusterNode, nodeOf, startCluster } from '../support/cluster.ts';
import { SANDBOX_TEST_MS } from '../support/playground.ts';
import { describePg } from '../support/postgres.ts';

let c: Cluster;
let token = '';
let cookie = '';

type Reply = { status: number; body: any };

async function callAt(base: string, path: string, body: unknown): Promise<Reply> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // The proxy's own answer when no node took the request is plain text.
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

const call = (path: string, body: unknown) => callAt(c.base, path, body);

/** Calls until the answer is not a 503 (a session moving between nodes), within `boundMs`. */
async function callThrough(path: string, body: unknown, boundMs = 60_000): Promise<Reply & { waitedMs: number }> {
  const t0 = Date.now();
  for (;;) {
    const r = await call(path, body);
    if (r.status !== 503 || Date.now() - t0 > boundMs) return { ...r, waitedMs: Date.now() - t0 };
    await Bun.sleep(200);
  }
}

async function owner(accountId: number): Promise<string> {
  const rows = await c.db`SELECT node_id FROM session_leases WHERE account_id = ${accountId}`;
  return rows[0]?.node_id;
}

const alive = () => c.nodes.filter((n) => n.alive);

describePg('a cluster of three nodes', () => {
  beforeAll(async () => {
    c = await startCluster(3);
    const login = await call('Auth/loginKey', { userName: c.demo.userName, apiKey: c.demo.apiKey });
    expect(login.body.success).toBe(true);
    token = login.body.token;
    const web = await fetch(`${c.base}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: c.demo.userName, password: c.demo.password }),
    });
    cookie = /rd_session=([^;]*)/.exec(web.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect(cookie).not.toBe('');
  }, 300_000);

  afterAll(async () => {
    await c?.stop();
  });

  it('answers a session held by one node through every node, in order', async () => {
    const start = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
    expect(start.body.success).toBe(true);
    const accountId = start.body.accountId as number;
    const held = await owner(accountId);
    expect(['n1', 'n2', 'n3']).toContain(held);
    const from = c.routed.length;
    for (let i = 1; i <= 6; i++) {
      const r = await call('Replay/step', { accountId, steps: 1 });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      expect(r.body.currentIndex).toBe(i);
    }
    // The proxy spread the calls over all three nodes; the lease never moved.
    expect(new Set(c.routed.slice(from))).toEqual(new Set(['n1', 'n2', 'n3']));
    expect(await owner(accountId)).toBe(held);
    const placed = await call('Order/place', { accountId, contractId: start.body.instrument.contractId, type: 2, side: 0, size: 1 });
    expect(placed.body.success).toBe(true);
    const open = await call('Position/searchOpen', { accountId });
    expect(open.body.positions).toHaveLength(1);
    expect(open.body.positions[0].size).toBe(1);
  }, 120_000);

  it('tells a hub connection on any node of orders placed through another (LISTEN/NOTIFY)', async () => {
    const start = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-05', timeframe: '1m' });
    const accountId = start.body.accountId as number;
    const held = await owner(accountId);
    // The connection is on a node that does not hold the session; the order goes through the proxy.
    const other = c.nodes.find((n) => n.id !== held && n.alive)!;
    const hub = new HubConnectionBuilder()
      .withUrl(`${other.server.base}/hubs/user`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
      .configureLogging(LogLevel.None)
      .build();
    const orders: any[] = [];
    let notify: () => void = () => {};
    hub.on('GatewayUserOrder', (e) => {
      orders.push(e.data);
      notify();
    });
    await hub.start();
    try {
      await hub.invoke('SubscribeOrders', accountId);
      // The other nodes hear of the subscription through PostgreSQL: wait for the first event, placing
      // an order again while none has come (a bounded wait, never a fixed delay).
      const deadline = Date.now() + 30_000;
      let placed = 0;
      while (orders.length === 0 && Date.now() < deadline) {
        const o = await call('Order/place', { accountId, contractId: start.body.instrument.contractId, type: 1, side: 0, size: 1, limitPrice: 1000 });
        expect(o.body.success).toBe(true);
        placed = o.body.orderId;
        await new Promise<void>((resolve) => {
          notify = resolve;
          setTimeout(resolve, 1000);
        });
      }
      expect(orders.length).toBeGreaterThan(0);
      const seen = orders.find((o) => o.id === placed) ?? orders[0];
      expect(seen.accountId).toBe(accountId);
      expect(seen.status).toBe(1);
      expect(seen.limitPrice).toBe(1000);
    } finally {
      await hub.stop();
    }
  }, 120_000);

  it('holds the per-account History limit (20 a minute) across the three nodes', async () => {
    // A different window each time: an answer served from a node's cache is not a new request.
    const req = (i: number) => ({ contractId: 'CON.F.US.ENQ.H25', live: false, unit: 2, unitNumber: 1, startTime: `2025-03-03T14:${10 + i}:00Z`, limit: 5, includePartialBar: false });
    const from = c.routed.length;
    const answers: number[] = [];
    for (let i = 0; i < 21; i++) {
      const r = await call('History/retrieveBars', req(i));
      answers.push(r.status === 200 && r.body.success ? 200 : r.status);
    }
    // Every node took some of them; together they admitted 20 and refused the 21st.
    expect(new Set(c.routed.slice(from))).toEqual(new Set(['n1', 'n2', 'n3']));
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(answers[20]).toBe(429);
  }, 120_000);

  it('gives one 503 to two concurrent steps of one session: the first forwarded to its owner and still in progress, the second at the owner', async () => {
    const start = await call('Replay/start', { instrumentSymbol: 'ES', startDate: '2025-03-03', timeframe: '1m' });
    const accountId = start.body.accountId as number;
    const holder = await owner(accountId);
    const atOwner = alive().find((n) => n.id === holder)!;
    const elsewhere = alive().find((n) => n.id !== holder)!;
    // The first step is held at its commit (the test holds the session's row), so the second surely
    // arrives while the first is in progress, however fast or slow the machine: no race to win. The
    // second goes to the owner itself: a hop would wait on the lease row the held commit has fenced.
    let first: Promise<Reply> | null = null;
    let second: Reply | null = null;
    await c.db.begin(async (tx) => {
      await tx`SELECT 1 FROM replay_sessions WHERE account_id = ${accountId} FOR UPDATE`;
      first = callAt(elsewhere.server.base, 'Replay/step', { accountId, steps: 50 });
      await until('the first step waiting on the session row', async () => (await c.db`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE replay_sessions%'`)[0].n, (n) => n > 0);
      second = await callAt(atOwner.server.base, 'Replay/step', { accountId, steps: 50 });
    });
    expect(second!.status).toBe(503);
    expect(second!.body).toEqual({ success: false, errorCode: 503, errorMessage: 'Session busy with another operation' });
    const done = await first!;
    expect(done.status).toBe(200);
    expect(done.body.currentIndex).toBe(50);
  }, 120_000);

  it('serves a playground run started through node A, polled and streamed through node B, stopped through node C', async () => {
    const a = c.nodes[0];
    const started = await web(a, 'POST', 'run', { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', templateId: 'sma_cross', speed: 5 });
    expect(started).toMatchObject({ success: true, errorCode: 0, status: 'running' });
    const id = started.executionId as string;
    // B is a node that does not execute the run (it answers from the run's row); C is the third.
    const runner = await until('the run claimed', async () => (await c.db`SELECT node_id FROM playground_runs WHERE id = ${id}`)[0].node_id, (n) => n !== null);
    const b = c.nodes.find((n) => n !== a && n.id !== runner)!;
    const cc = c.nodes.find((n) => n !== a && n !== b)!;
    // One run per user, whichever node is asked.
    expect(await web(cc, 'POST', 'run', { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', templateId: 'sma_cross' })).toEqual({
      executionId: id, success: false, errorCode: 11, errorMessage: 'An execution is already running; stop it first',
    });
    const mid = await until('progress read through B', () => execution(b, id), (x) => x.progress.barsDone > 0);
    expect(mid).toMatchObject({ id, status: 'running', error: null, speed: 5, progress: { barsTotal: 1380 } });
    const stream = events(b, id);
    const first = (await stream.next())!;
    expect(first).toMatchObject({ event: 'progress', data: { id, status: 'running', speed: 5, progress: { barsTotal: 1380 } } });
    expect(await web(cc, 'POST', 'stop', {})).toEqual({ executionId: id, success: true, errorCode: 0, errorMessage: null });
    const rest = await stream.rest();
    const done = rest.at(-1)!;
    expect(done).toMatchObject({ event: 'done', data: { id, status: 'stopped', error: 'Stopped by the user', speed: 5, progress: { barsTotal: 1380 } } });
    // Progress only grows, up to where the run stopped, short of its end.
    const bars = [first, ...rest].map((e) => e.data.progress.barsDone);
    expect(bars).toEqual(bars.toSorted((x, y) => x - y));
    expect(done.data.progress.barsDone).toBeGreaterThanOrEqual(mid.progress.barsDone);
    expect(done.data.progress.barsDone).toBeLessThan(1380);
    expect(done.data.results.finalBalance).toBe(50_000 + done.data.results.totalPnl);
    // Every node answers the stopped run as the stream's end told it.
    for (const n of c.nodes) expect(await execution(n, id)).toEqual(done.data);
    const [row] = await c.db`SELECT node_id, status, job_json FROM playground_runs WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'stopped', job_json: null });
    expect(row.node_id).toBe(runner);
    console.log(`playground: run started through ${a.id}, executed on ${runner}, polled and streamed through ${b.id}, stopped through ${cc.id}`);
    expect(await web(b, 'POST', 'stop', {})).toEqual({ success: false, errorCode: 1, errorMessage: 'No execution is running' });
  }, SANDBOX_TEST_MS);

  it('keeps every acknowledged step, order, fill, balance and payout when a node is killed mid-stream; its sessions move once its leases expire, never to two nodes', async () => {
    const victim = c.nodes[1];
    const survivors = alive().filter((n) => n !== victim);
    // The victim holds every session below: each is started through it, which takes the lease.
    const bots: Bot[] = [];
    for (const date of ['2025-03-10', '2025-03-11']) {
      const start = await callAt(victim.server.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: date, timeframe: '1m' });
      expect(start.body.success).toBe(true);
      bots.push({ accountId: start.body.accountId, contractId: start.body.instrument.contractId, acks: [], killed: false });
    }
    // Bots step and order through the proxy while a challenge is funded; once each bot has some
    // calls acknowledged, a payout is acknowledged and the victim is killed while the bots go on
    // calling (each sends its next call as soon as the last is answered).
    let ready: () => void = () => {};
    const enough = new Promise<void>((resolve) => (ready = resolve));
    const running = bots.map((x) => runBot(x, () => bots.every((y) => y.acks.length >= 4) && ready()));
    const funded = await fundedChallenge(victim);
    await enough;
    for (const id of [...bots.map((x) => x.accountId), funded.sessionId]) expect(await owner(id)).toBe(victim.id);
    const payout = await call('Payout/request', { accountId: funded.challengeId, amount: 500 });
    expect(payout.body).toMatchObject({ success: true, errorCode: 0 });
    c.kill(victim.id);
    const killedAt = Date.now();
    for (const x of bots) x.killed = true;
    const expiries = new Map<number, number>();
    for (const r of await c.db`SELECT account_id, expires_ms FROM session_leases WHERE node_id = ${victim.id}`) expiries.set(Number(r.account_id), Number(r.expires_ms));
    const movedAt = new Map<number, number>();
    const fundedMoved = callThrough('Replay/step', { accountId: funded.sessionId, steps: 1 }).then((r) => {
      movedAt.set(funded.sessionId, Date.now());
      return r;
    });
    await Promise.all(running.map((done, i) => done.then(() => movedAt.set(bots[i].accountId, bots[i].acks.find((a) => a.afterKill)!.atMs))));
    expect((await fundedMoved).body).toMatchObject({ success: true, currentIndex: funded.index + 1 });

    for (const [accountId, at] of movedAt) {
      // Taken only once the victim's lease had expired (never while it might still run the session),
      // and that lease ran out within its length of the kill.
      const expiry = expiries.get(accountId)!;
      expect(expiry - killedAt).toBeLessThanOrEqual(limits.sessionLeaseTtlMs);
      expect(at).toBeGreaterThanOrEqual(expiry);
      expect(survivors.map((n) => n.id)).toContain(await owner(accountId));
      console.log(`failover: account ${accountId} answered ${at - killedAt} ms after kill -9 (lease expired after ${expiry - killedAt} ms)`);
    }
    for (const x of bots) await checkBot(x, survivors);
    await checkPayout(funded, payout.body.payoutId, survivors);
  }, 300_000);

  it('drains a node on SIGTERM: 503 draining, its request in flight answered, its session and run taken by another node at once, exit 0', async () => {
    // A paced run, executing on the node that leaves (whichever claimed it), and a session it holds.
    const run = await web(alive()[0], 'POST', 'run', { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', templateId: 'sma_cross', speed: 1 });
    expect(run.success).toBe(true);
    const claimed = await until('the run claimed', async () => (await c.db`SELECT node_id FROM playground_runs WHERE id = ${run.executionId}`)[0].node_id, (n) => n !== null);
    const leaves = nodeOf(c, claimed);
    const stays = alive().find((n) => n !== leaves)!;
    await until('the run under way', () => execution(leaves, run.executionId), (x) => x.progress.barsDone > 0);
    const start = await callAt(leaves.server.base, 'Replay/start', { instrumentSymbol: 'ES', startDate: '2025-03-12', timeframe: '1m' });
    const accountId = start.body.accountId as number;
    expect(await owner(accountId)).toBe(leaves.id);
    // The run's event stream through the leaving node, and a step whose body is still arriving: both
    // in flight when the signal comes.
    const stream = events(leaves, run.executionId);
    expect((await stream.next())?.event).toBe('progress');
    const slow = slowStep(leaves.server.base, { accountId, steps: 5 });
    await until('the step in flight', async () => slow.started(), (x) => x);
    const exited = c.drain(leaves.id);
    const health = await until('draining', () => fetch(`${leaves.server.base}/health`).then(async (r) => ({ status: r.status, body: await r.json() })), (h) => h.status === 503);
    expect(health.body).toMatchObject({ status: 'draining', node: leaves.id });
    const stepped = await slow.finish();
    expect(stepped).toMatchObject({ status: 200, body: { success: true, currentIndex: 5 } });
    expect(await exited).toBe(0);
    // The stream was cut when the node stopped (its client reconnects elsewhere), never told `done`:
    // the run was not over.
    expect((await stream.rest()).map((e) => e.event).filter((e) => e !== 'progress')).toEqual([]);
    const [handed] = await c.db`SELECT status, error, node_id FROM playground_runs WHERE id = ${run.executionId}`;
    expect(handed.status).toBe('running');
    expect(handed.error).toBeNull();
    expect([null, stays.id]).toContain(handed.node_id);
    // Its leases were handed back: the other node takes the session on the first call, before the
    // lease would have expired.
    expect(await c.db`SELECT account_id FROM session_leases WHERE node_id = ${leaves.id}`).toEqual([]);
    const next = await callAt(stays.server.base, 'Replay/step', { accountId, steps: 1 });
    expect(next).toMatchObject({ status: 200, body: { success: true, currentIndex: 6 } });
    expect(await owner(accountId)).toBe(stays.id);
    // The run went back to the queue, not failed, and runs on the other node from the start.
    const moved = await until('the run running on the node that stays', () => execution(stays, run.executionId), (x) => x.status !== 'running' || x.progress.barsDone > 0);
    expect(moved).toMatchObject({ status: 'running', error: null });
    const [row] = await c.db`SELECT node_id FROM playground_runs WHERE id = ${run.executionId}`;
    expect(row.node_id).toBe(stays.id);
    expect(await web(stays, 'POST', 'speed', { speed: 'max' })).toMatchObject({ success: true });
    const ended = await until('the run completed', () => execution(stays, run.executionId), (x) => x.status !== 'running');
    expect(ended).toMatchObject({ status: 'completed', error: null, progress: { barsDone: 1380, barsTotal: 1380 } });
  }, SANDBOX_TEST_MS);
});

// ---- playground calls on one node ----

async function web(n: ClusterNode, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${n.server.base}/api/playground/${path}`, {
    method,
    headers: { cookie: `rd_session=${cookie}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

async function execution(n: ClusterNode, id: string): Promise<any> {
  const r = await web(n, 'GET', `executions/${id}`);
  if (!r.success) throw new Error(`execution ${id} on ${n.id}: ${JSON.stringify(r)}`);
  return r.execution;
}

/** An execution's Server-Sent Events through one node, read event by event. */
function events(n: ClusterNode, id: string) {
  const opened = fetch(`${n.server.base}/api/playground/executions/${id}/events`, { headers: { cookie: `rd_session=${cookie}` } });
  let reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> } | null = null;
  const decoder = new TextDecoder();
  let buffered = '';
  const next = async (): Promise<{ event: string; data: any } | null> => {
    reader ??= (await opened).body!.getReader();
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (block.startsWith(':')) continue;
        const [event, data] = block.split('\n');
        return { event: event.replace('event: ', ''), data: JSON.parse(data.replace('data: ', '')) };
      }
      // A stream cut by its server (a drain) ends here like one it closed.
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done || !value) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
  return {
    next,
    async rest() {
      const out: { event: string; data: any }[] = [];
      for (let e = await next(); e !== null; e = await next()) out.push(e);
      return out;
    },
  };
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch((e) => e as T);
    if (!(v instanceof Error) && ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${String(v instanceof Error ? v : JSON.stringify(v)).slice(0, 400)}`);
    await Bun.sleep(100);
  }
}

// ---- the kill: bots, a funded challenge, and what must be there afterwards ----

interface Ack {
  kind: 'step' | 'order';
  /** currentIndex of a step, orderId of an order. */
  value: number;
  afterKill: boolean;
  atMs: number;
}

interface Bot {
  accountId: number;
  contractId: string;
  acks: Ack[];
  killed: boolean;
}

/**
 * Steps and market orders (buy, sell, …) in turn through the proxy, keeping what was acknowledged,
 * until two calls are acknowledged after the kill; 503s (the session moving) are retried, and so is
 * a 504 (a call in flight at the kill that may have been carried out: the bot carries on, as the
 * gap allowed in checkBot says).
 */
async function runBot(x: Bot, acked: () => void): Promise<void> {
  for (let k = 0; x.acks.filter((a) => a.afterKill).length < 2; k++) {
    const killed = x.killed;
    const order = k % 2 === 1;
    const r = order
      ? await call('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: (k >> 1) % 2, size: 1 })
      : await call('Replay/step', { accountId: x.accountId, steps: 1 });
    if (r.status === 200 && r.body.success) {
      x.acks.push({ kind: order ? 'order' : 'step', value: order ? r.body.orderId : r.body.currentIndex, afterKill: killed, atMs: Date.now() });
      acked();
    } else if (r.status === 503 || r.status === 504) await Bun.sleep(200);
    else throw new Error(`bot ${x.accountId}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/**
 * What a bot was told is in the store and every surviving node answers it alike: its steps in one
 * line (no index twice: one node at a time), its orders and their fills, a balance that is the fills'.
 */
async function checkBot(x: Bot, survivors: ClusterNode[]): Promise<void> {
  const steps = x.acks.filter((a) => a.kind === 'step');
  for (let i = 1; i < steps.length; i++) {
    const gap = steps[i].value - steps[i - 1].value;
    // One step in flight at the kill may have committed unacknowledged: the only gap allowed.
    expect(gap === 1 || (gap === 2 && steps[i].afterKill && !steps[i - 1].afterKill)).toBe(true);
  }
  const [orders, trades, accounts] = await Promise.all(['Order/search', 'Trade/search', 'Account/search'].map((path) =>
    Promise.all(survivors.map((n) => callAt(n.server.base, path, { accountId: x.accountId, startTimestamp: '2025-01-01T00:00:00Z', onlyActiveAccounts: true })))));
  for (const answers of [orders, trades, accounts]) for (const a of answers) expect(a.body).toEqual(answers[0].body);
  const stored = new Set(orders[0].body.orders.filter((o: any) => o.status === 2).map((o: any) => o.id));
  const filled = trades[0].body.trades.map((t: any) => t.orderId);
  expect(new Set(filled).size).toBe(filled.length);
  for (const a of x.acks.filter((y) => y.kind === 'order')) {
    expect(stored.has(a.value)).toBe(true);
    expect(filled).toContain(a.value);
  }
  const balance = accounts[0].body.accounts.find((a: any) => a.id === x.accountId).balance;
  expect(balance).toBeCloseTo(50_000 + realized(trades[0].body.trades, 20), 6);
}

/** Realized P&L in USD of one-lot fills (FIFO), net of fees, at `usdPerPoint`. */
function realized(trades: any[], usdPerPoint: number): number {
  const open: { side: number; price: number }[] = [];
  let usd = 0;
  for (const t of trades.toReversed()) {
    usd -= t.fees;
    if (open.length === 0 || open[0].side === t.side) open.push({ side: t.side, price: t.price });
    else {
      const lot = open.shift()!;
      usd += (lot.side === 0 ? t.price - lot.price : lot.price - t.price) * usdPerPoint;
    }
  }
  return usd;
}

interface Funded {
  challengeId: number;
  sessionId: number;
  /** The session's currentIndex after funding. */
  index: number;
}

/**
 * A 50K challenge in its performance phase (made by the admin CLI on the cluster's database), traded
 * through the proxy on a session `node` holds: five winning days of the synthetic history, each a
 * market buy at the low of the day's best long round trip (bestLong) with a take-profit 20 points up,
 * which the rise after it reaches ($397.20 a day), then the next trade date, so a payout is due.
 */
async function fundedChallenge(node: ClusterNode): Promise<Funded> {
  const made = c.admin('challenge', 'create', '--email', c.demo.userName, '--plan', '50K', '--phase', 'performance');
  const challengeId = made.accountId as number;
  const start = await callAt(node.server.base, 'Replay/start', { accountId: challengeId, instrumentSymbol: 'NQ', startDate: '2025-04-07', timeframe: '1m' });
  expect(start.body.success).toBe(true);
  const sessionId = start.body.accountId as number;
  const contractId = start.body.instrument.contractId as string;
  for (const date of ['2025-04-07', '2025-04-08', '2025-04-09', '2025-04-10', '2025-04-11']) {
    const trip = bestLong('NQ', date);
    expect(trip.points).toBeGreaterThan(20);
    expect((await call('Replay/jumpTo', { accountId: sessionId, targetTime: trip.buyAt })).body.success).toBe(true);
    const buy = await call('Order/place', { accountId: sessionId, contractId, type: 2, side: 0, size: 1, takeProfitBracket: { ticks: 80 } });
    expect(buy.body.success).toBe(true);
  }
  const jumped = await call('Replay/jumpTo', { accountId: sessionId, targetTime: '2025-04-14T15:00:00Z' });
  const due = await call('Payout/eligibility', { accountId: challengeId });
  expect(due.body).toMatchObject({ success: true, eligibility: { eligible: true, winningDays: 5, netProfitSincePayout: 1986 } });
  return { challengeId, sessionId, index: jumped.body.currentIndex };
}

/** The acknowledged payout: once in the store, and in every surviving node's history and balance. */
async function checkPayout(f: Funded, payoutId: string, survivors: ClusterNode[]): Promise<void> {
  const [row] = await c.db`SELECT COUNT(*)::int AS n, MIN(id) AS id FROM payouts WHERE account_id = ${f.challengeId}`;
  expect(row).toEqual({ n: 1, id: payoutId });
  for (const n of survivors) {
    const history = await callAt(n.server.base, 'Payout/history', { accountId: f.challengeId });
    expect(history.body.payouts).toHaveLength(1);
    const p = history.body.payouts[0];
    expect(p).toMatchObject({ id: payoutId, amount: 500, status: 'completed' });
    expect(p.balanceAfter).toBeCloseTo(p.balanceBefore - 500, 6);
    const accounts = await callAt(n.server.base, 'Account/search', { onlyActiveAccounts: true });
    expect(accounts.body.accounts.find((a: any) => a.id === f.challengeId).balance).toBeCloseTo(p.balanceAfter, 6);
  }
}

// ---- the drain: a request in flight ----

/** POST Replay/step to one node with its body sent in two parts: in flight until `finish`. */
function slowStep(base: string, body: unknown) {
  const text = JSON.stringify(body);
  let push: ReadableStreamDefaultController<Uint8Array> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(ctl) {
      push = ctl;
      ctl.enqueue(new TextEncoder().encode(text.slice(0, 5)));
    },
  });
  let started = false;
  const answered = fetch(`${base}/api/sim/Replay/step`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  return {
    /** Whether the node has the request (its /health counts it beside itself). */
    started: async () => (started ||= ((await (await fetch(`${base}/health`)).json()) as { requestsInFlight: number }).requestsInFlight >= 2),
    async finish(): Promise<Reply> {
      push!.enqueue(new TextEncoder().encode(text.slice(5)));
      push!.close();
      const res = await answered;
      return { status: res.status, body: await res.json() };
    },
  };
}
