// Three ReplayDesk nodes on one PostgreSQL behind a round-robin proxy (test/support/cluster.ts): a
// bot's calls land on any node; the node holding the session's lease answers them (the others
// forward); when that node is killed (-9) its sessions move to another once the lease expires, with
// everything that was acknowledged kept.

import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { afterAll, beforeAll, expect, it } from 'bun:test';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { describePg } from '../support/postgres.ts';

let c: Cluster;
let token = '';

async function call(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${c.base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

/** Calls until the answer is not a 503 (a session moving between nodes), within `boundMs`. */
async function callThrough(path: string, body: unknown, boundMs = 60_000): Promise<{ status: number; body: any; waitedMs: number }> {
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

describePg('a cluster of three nodes', () => {
  beforeAll(async () => {
    c = await startCluster(3);
    const login = await call('Auth/loginKey', { userName: c.demo.userName, apiKey: c.demo.apiKey });
    expect(login.body.success).toBe(true);
    token = login.body.token;
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

  it('gives one 503 to two concurrent steps of one session, whichever nodes they reach', async () => {
    const start = await call('Replay/start', { instrumentSymbol: 'ES', startDate: '2025-03-03', timeframe: '1m' });
    const accountId = start.body.accountId as number;
    const [a, b] = await Promise.all([call('Replay/step', { accountId, steps: 50 }), call('Replay/step', { accountId, steps: 50 })]);
    expect([a.status, b.status].sort()).toEqual([200, 503]);
    const done = a.status === 200 ? a : b;
    expect(done.body.currentIndex).toBe(50);
  }, 120_000);

  it('keeps every acknowledged step, order and fill when the holding node is killed, and moves the session within the lease', async () => {
    const start = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-04', timeframe: '1m' });
    const accountId = start.body.accountId as number;
    const contractId = start.body.instrument.contractId as string;
    let index = 0;
    const orderIds: number[] = [];
    for (let i = 0; i < 4; i++) {
      const o = await call('Order/place', { accountId, contractId, type: 2, side: i % 2, size: 1 });
      expect(o.body.success).toBe(true);
      orderIds.push(o.body.orderId);
      const st = await call('Replay/step', { accountId, steps: 3 });
      expect(st.body.success).toBe(true);
      index = st.body.currentIndex;
    }
    const before = await call('Trade/search', { accountId, startTimestamp: '2025-01-01T00:00:00Z' });
    const balanceBefore = (await call('Account/search', { onlyActiveAccounts: true })).body.accounts.find((a: any) => a.id === accountId).balance;
    const held = await owner(accountId);
    c.kill(held);
    const killedAt = Date.now();
    const after = await callThrough('Replay/step', { accountId, steps: 1 });
    const failoverMs = Date.now() - killedAt;
    console.log(`failover: ${failoverMs} ms from kill -9 to the first step answered by another node`);
    expect(after.status).toBe(200);
    expect(after.body.success).toBe(true);
    expect(after.body.currentIndex).toBe(index + 1);
    const moved = await owner(accountId);
    expect(moved).not.toBe(held);
    const trades = await call('Trade/search', { accountId, startTimestamp: '2025-01-01T00:00:00Z' });
    expect(trades.body.trades.slice(-before.body.trades.length)).toEqual(before.body.trades);
    const orders = await call('Order/search', { accountId, startTimestamp: '2025-01-01T00:00:00Z' });
    for (const id of orderIds) expect(orders.body.orders.some((o: any) => o.id === id)).toBe(true);
    const account = (await call('Account/search', { onlyActiveAccounts: true })).body.accounts.find((a: any) => a.id === accountId);
    expect(account.balance).toBe(balanceBefore);
    // The session carries on where the dead node left it: the next order fills on the new node.
    const o = await call('Order/place', { accountId, contractId, type: 2, side: 0, size: 1 });
    expect(o.body.success).toBe(true);
  }, 180_000);
});
