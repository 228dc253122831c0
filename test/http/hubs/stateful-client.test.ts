// Stateful reconnect with the official client (@microsoft/signalr's `withStatefulReconnect()`, in
// Node as bots run it) on the real user hub over a listening server, through a TCP proxy that fails
// the network mid-stream: events the server wrote are held by the "network" and lost with it, the
// client's socket drops without a close, and the client resumes the same connection. Every order
// and trade event arrives exactly once, in order, as REST reports them, and the connection never
// went through the client's reconnecting state.

import { afterEach, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection, HubConnectionBuilder, type ILogger } from '@microsoft/signalr';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { replayApp, startSession, step } from '../../support/replay.ts';
import { TcpProxy } from '../../support/tcp-proxy.ts';

let h: HubServer | undefined;
let proxy: TcpProxy | undefined;
let client: HubConnection | undefined;
afterEach(async () => {
  await client?.stop().catch(() => {});
  await proxy?.stop();
  await h?.stop();
  client = proxy = h = undefined;
});

it('a network failure mid-stream: the client resumes the same connection and gets every event once, in order', async () => {
  const t = await replayApp(Array.from({ length: 60 }, () => 20000), { historyClose: 20000 });
  h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  proxy = await TcpProxy.start(h.port);
  const x = await startSession(t, h.token);
  await step(t, x);
  const lines: string[] = [];
  const logger: ILogger = { log: (_level, message) => lines.push(message) };
  client = new HubConnectionBuilder()
    .withUrl(`http://127.0.0.1:${proxy.port}/hubs/user`, { transport: HttpTransportType.WebSockets, accessTokenFactory: () => h!.token })
    .withStatefulReconnect()
    .withAutomaticReconnect()
    .configureLogging(logger)
    .build();
  const orders: { id: number; status: number }[] = [];
  const trades: { id: number; orderId: number }[] = [];
  client.on('GatewayUserOrder', (e) => {
    orders.push({ id: e.data.id, status: e.data.status });
  });
  client.on('GatewayUserTrade', (e) => {
    trades.push({ id: e.data.id, orderId: e.data.orderId });
  });
  let reconnecting = 0;
  client.onreconnecting(() => reconnecting++);
  await client.start();
  await client.invoke('SubscribeOrders', x.accountId);
  await client.invoke('SubscribeTrades', x.accountId);
  const connectionId = h.transport.connections()[0].id;

  let round = 0;
  /** A market order (buy and sell in turn: each fills at once) and a played bar. */
  const trade = async () => {
    const r = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: round++ % 2, size: 1 }, h!.token);
    expect(r.body.success).toBe(true);
    await step(t, x);
  };
  for (let i = 0; i < 5; i++) await trade();
  await waitFor(() => trades.length === 5);

  // The network stops delivering: the server still writes, the events never reach the client.
  proxy.holdDownstream();
  for (let i = 0; i < 5; i++) await trade();
  await waitFor(() => proxy!.heldContains('GatewayUserTrade'));
  expect(trades.length).toBe(5);
  // Then it fails: both sockets cut, no WebSocket close; what was in flight is gone.
  expect(proxy.cutAll()).toBeGreaterThanOrEqual(1);
  expect(proxy.discardedBytes).toBeGreaterThan(0);
  for (let i = 0; i < 5; i++) await trade(); // while the client is away or coming back

  const restTrades = (await t.post('Trade/search', { accountId: x.accountId }, h.token)).body.trades as any[];
  const restOrders = (await t.post('Order/search', { accountId: x.accountId }, h.token)).body.orders as any[];
  expect(restTrades).toHaveLength(15);
  await waitFor(() => trades.length >= 15 && orders.length >= 30);
  await client.invoke('SubscribePositions', x.accountId); // usable after the resume
  // Every trade once, in the order they happened (REST lists them newest first).
  expect(trades.map((e) => e.orderId)).toEqual(restTrades.map((r) => r.orderId).reverse());
  expect(new Set(trades.map((e) => e.id)).size).toBe(15);
  // Every order twice, working then filled, in the order placed.
  const placed = restOrders.map((o) => o.id).sort((a, b) => a - b);
  expect(orders).toEqual(placed.flatMap((id) => [{ id, status: 1 }, { id, status: 2 }]));
  expect(reconnecting).toBe(0);
  expect(h.transport.connections().map((c) => c.id)).toEqual([connectionId]);
  expect(h.logs.filter((l) => l.includes('hub connection resumed'))).toHaveLength(1);
  // The client's transport saw its socket drop and connected again with the same connection token.
  const connects = lines.filter((l) => l.startsWith('WebSocket connected to'));
  expect(connects).toHaveLength(2);
  expect(connects[1]).toBe(connects[0]);
  expect(lines.filter((l) => l.includes('(WebSockets transport) socket closed.'))).toHaveLength(1);
}, 60_000);
