// A call's hub events leave after its answer, in slices (service/events/fanout.ts). Over a real
// listening server with the official SignalR client: steps and orders sent back to back, without
// waiting for their events, still reach each of 10 market and 10 user subscribers completely, in
// order and identically; a user event names only what REST already holds when it arrives; and a
// quote subscription made while a step's events are on their way ends on the newest quote. The first
// two hold for the synchronous fan-out before it too (they guard the order it must keep); the last, the
// answer resolving before the step's first event reaches the bus, is what the deferred fan-out changed.

import { postAt } from '../../support/in-process-node.ts';
import { afterEach, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { marketTopic } from '../../../src/service/events/types.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { type BarSpec, OPEN_S, replayApp } from '../../support/replay.ts';

const servers: HubServer[] = [];
const clients: HubConnection[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop().catch(() => {});
  for (const h of servers.splice(0)) await h.stop();
});

const BARS = 80;
const SUBSCRIBERS = 10;
// A zigzag around 20000 wide enough for 8-tick brackets to fill within a few bars.
const bars: BarSpec[] = Array.from({ length: BARS }, (_, i) => {
  const o = 20000 + (i % 4) * 2;
  return [o, o + 3, o - 3, o + 1] as const;
});

async function serve() {
  const t = await replayApp(bars, { historyClose: 20000 });
  const h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  servers.push(h);
  const post = async (path: string, body: unknown) => (await postAt(h.baseUrl, path, body, h.token)).body;
  return { h, post };
}

async function connect(h: HubServer, hub: 'user' | 'market'): Promise<HubConnection> {
  const c = new HubConnectionBuilder()
    .withUrl(`${h.baseUrl}/hubs/${hub}`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => h.token })
    .configureLogging(LogLevel.None)
    .build();
  clients.push(c);
  await c.start();
  return c;
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('Z', '+00:00');

it('steps and orders back to back: every subscriber gets every event, in order, each after its commit', async () => {
  const { h, post } = await serve();
  const x = await post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
  const trades: string[][] = [];
  const user: string[][] = [];
  const restChecks: Promise<boolean>[] = [];
  for (let k = 0; k < SUBSCRIBERS; k++) {
    const m = await connect(h, 'market');
    const mine: string[] = [];
    trades.push(mine);
    m.on('GatewayTrade', (_id, batch: any[]) => mine.push(batch[0].timestamp));
    await m.invoke('SubscribeContractTrades', x.instrument.contractId);
    const u = await connect(h, 'user');
    const seen: string[] = [];
    user.push(seen);
    u.on('GatewayUserOrder', (e) => seen.push(`order ${e.data.id} ${e.data.status}`));
    u.on('GatewayUserPosition', (e) => seen.push(`position ${e.data.type} ${e.data.size}`));
    u.on('GatewayUserTrade', (e) => {
      seen.push(`trade ${e.data.id}`);
      // Asked the moment the event arrives: the fill it reports is stored already.
      if (k === 0) restChecks.push(post('Trade/search', { accountId: x.accountId, startTimestamp: '2025-01-01T00:00:00Z' }).then((r) => r.trades.some((t: any) => t.id === e.data.id)));
    });
    for (const method of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await u.invoke(method, x.accountId);
  }
  // Back to back: each call waits for its answer only, never for its events.
  const placeBracket = (side: number) =>
    post('Order/place', { accountId: x.accountId, contractId: x.instrument.contractId, type: 2, side, size: 1, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 8 } });
  let played = 0;
  for (const [side, steps] of [[0, 5], [1, 20], [0, 20], [1, 20]] as const) {
    expect((await placeBracket(side)).success).toBe(true);
    const r = await post('Replay/step', { accountId: x.accountId, steps });
    played += r.barsProcessed;
  }
  expect(played).toBe(65);
  // The last event of all: a limit order far from the market, created.
  const marker = await post('Order/place', { accountId: x.accountId, contractId: x.instrument.contractId, type: 1, side: 0, size: 1, limitPrice: 19000 });
  const last = `order ${marker.orderId} 1`;
  await waitFor(() => user.every((s) => s.at(-1) === last) && trades.every((t) => t.length >= played), 30_000);

  // Market: one trade batch per played bar, in time order, the same for everybody.
  const expected = Array.from({ length: played }, (_, i) => iso(OPEN_S + (i + 1) * 60));
  for (const t of trades) expect(t).toEqual(expected);
  // User: the same sequence for every subscriber; trades in id order, each order created before it changes.
  for (const s of user) expect(s).toEqual(user[0]);
  const tradeIds = user[0].filter((e) => e.startsWith('trade ')).map((e) => Number(e.split(' ')[1]));
  expect(tradeIds.length).toBeGreaterThanOrEqual(4);
  expect(tradeIds).toEqual([...tradeIds].sort((a, b) => a - b));
  const firstSeen = new Map<string, number>();
  user[0].forEach((e, i) => e.startsWith('order ') && !firstSeen.has(e.split(' ')[1]) && firstSeen.set(e.split(' ')[1], i));
  for (const [id, i] of firstSeen) expect(user[0][i]).toMatch(new RegExp(`^order ${id} 1$`)); // created (working) first
  expect(await Promise.all(restChecks)).toEqual(tradeIds.map(() => true));
}, 90_000);

it('a quote subscription made while a step fans out ends on the newest quote', async () => {
  const { h, post } = await serve();
  const x = await post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
  // Many subscribers so the step's events take several slices.
  const busy: HubConnection[] = [];
  for (let k = 0; k < SUBSCRIBERS; k++) {
    const m = await connect(h, 'market');
    await m.invoke('SubscribeContractTrades', x.instrument.contractId);
    busy.push(m);
  }
  const late = await connect(h, 'market');
  const quotes: string[] = [];
  late.on('GatewayQuote', (_id, q) => quotes.push(q.timestamp));
  const stepped = post('Replay/step', { accountId: x.accountId, steps: 60 });
  const subscribed = late.invoke('SubscribeContractQuotes', x.instrument.contractId);
  expect((await stepped).barsProcessed).toBe(60);
  await subscribed;
  const newest = iso(OPEN_S + 60 * 60);
  await waitFor(() => quotes.at(-1) === newest, 30_000);
  // Another step's quote after it: the feed goes on from there.
  await post('Replay/step', { accountId: x.accountId, steps: 1 });
  await waitFor(() => quotes.at(-1) === iso(OPEN_S + 61 * 60), 30_000);
  expect(quotes.every((q, i) => i === 0 || q >= quotes[i - 1])).toBe(true);
}, 90_000);

it("a step's answer does not wait for its events: they reach the bus after it, every one, in order", async () => {
  const t = await replayApp(bars, { historyClose: 20000 });
  const x = (await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, t.token)).body;
  const principal = await t.s.auth.authenticate(t.token);
  const seen: string[] = [];
  t.s.topology.events.subscribe(marketTopic(principal!.user.id, 'NQ'), (e) => e.kind === 'tick' && seen.push(iso(e.quote.timeS)));
  // The app's own handler, not the test helper (which waits for the fan-out): the answer is marked when it resolves.
  const request = new Request('http://localhost/api/sim/Replay/step', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` }, body: JSON.stringify({ accountId: x.accountId, steps: 5 }),
  });
  const res = await t.app.handle(request).then((r) => {
    seen.push('answered');
    return r;
  });
  expect(((await res.json()) as any).barsProcessed).toBe(5);
  await waitFor(() => seen.length >= 6, 30_000);
  expect(seen).toEqual(['answered', ...Array.from({ length: 5 }, (_, i) => iso(OPEN_S + (i + 1) * 60))]);
}, 90_000);

