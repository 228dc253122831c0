// Hub fan-out through the SignalR transport: C WebSocket clients on 127.0.0.1 (in this process, so
// client and server share the CPU), each subscribed to one stream of bars; a bar is three events as
// the market hub will send them (GatewayQuote with a coalesce key, GatewayTrade, GatewayDepth).
//
// 1. burst: 100 bars sent to every connection at once; time until every client has the last one.
// 2. paced: one bar every 10 ms (replay speed 50) for 1 s; per bar, time from send to arrival of its
//    GatewayTrade at each client (the frame interval is part of it), p50 and p99.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only hub-fanout` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/hub-fanout.bench.ts

import type { HubConnection } from '../src/http/hubs/signalr/hub.ts';
import type { SocketData } from '../src/http/hubs/signalr/transport.ts';
import type { Principal } from '../src/service/auth.ts';
import { median, percentile } from './support.ts';
import { load } from './root.ts';

const { createHubTransport } = await load<typeof import('../src/http/hubs/signalr/transport.ts')>('src/http/hubs/signalr/transport.ts');

const CLIENTS = 200;
const BURST_BARS = 100;
const PACED_BARS = 100;
const RUNS = 7;

const principal = {
  user: { id: 1, email: 'bench@example.com', plan: 'pro', verified: true, disabled: false, createdMs: 0, hasApiKey: true },
  jtiHash: 'bench',
  expiresMs: Number.MAX_SAFE_INTEGER,
} as Principal;

const transport = createHubTransport({
  hubs: [{ path: '/hubs/market', methods: {} }],
  authenticate: async (token) => (token === 'bench' ? principal : null),
  logError: (msg, fields) => console.error(msg, fields),
  connectionsPerUserMax: CLIENTS, // every client is the bench's one user
});
const server = Bun.serve<SocketData>({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (req, srv) => transport.handle(req, srv) ?? new Response('not found', { status: 404 }),
  websocket: transport.websocket,
});

const quote = { symbol: 'F.US.ENQ', lastPrice: 21000.25, bestBid: 21000, bestAsk: 21000.5, volume: 123456, timestamp: '2025-03-03T14:30:00.000+00:00' };
const depth = [{ timestamp: quote.timestamp, type: 4, price: 21000, volume: 12, currentVolume: 3 }];

/** One bar to every connection, its arguments built once (as a hub fans an event out). */
function sendBar(conns: readonly HubConnection[], i: number): void {
  const quoteArgs = ['CON.F.US.ENQ.H25', { ...quote, lastPrice: 21000 + i / 4 }];
  const tradeArgs = ['CON.F.US.ENQ.H25', [{ symbolId: 'F.US.ENQ', price: 21000 + i / 4, timestamp: quote.timestamp, type: 0, volume: 1, bar: i }]];
  const depthArgs = ['CON.F.US.ENQ.H25', depth];
  for (const conn of conns) conn.send('GatewayQuote', quoteArgs, { coalesceKey: 'quote' });
  for (const conn of conns) conn.send('GatewayTrade', tradeArgs);
  for (const conn of conns) conn.send('GatewayDepth', depthArgs);
}

/** A client that records, per bar number, when its GatewayTrade arrived, and counts messages. */
async function openClient(onBar: (bar: number) => void): Promise<{ ws: WebSocket; messages: number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/hubs/market?access_token=bench`);
  const c = { ws, messages: 0 };
  await new Promise<void>((resolve) => {
    ws.onopen = () => {
      ws.send('{"protocol":"json","version":1}\x1e');
      resolve();
    };
  });
  ws.onmessage = (e) => {
    c.messages++;
    const text = e.data as string;
    for (const m of text.matchAll(/"bar":(\d+)/g)) onBar(Number(m[1]));
  };
  return c;
}

let arrivals = 0;
const sentAtMs = new Map<number, number>();
const latenciesMs: number[] = [];
const clients = await Promise.all(
  Array.from({ length: CLIENTS }, () =>
    openClient((bar) => {
      arrivals++;
      const sent = sentAtMs.get(bar);
      if (sent !== undefined) latenciesMs.push(performance.now() - sent);
    }),
  ),
);
while (transport.connections().length < CLIENTS) await Bun.sleep(5);
const conns = transport.connections();

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await Bun.sleep(0);
}

const burstMs: number[] = [];
const sendLoopMs: number[] = [];
const burstMessages: number[] = [];
for (let run = 0; run < RUNS; run++) {
  arrivals = 0;
  const before = clients.reduce((s, c) => s + c.messages, 0);
  const t0 = performance.now();
  for (let i = 0; i < BURST_BARS; i++) sendBar(conns, i);
  sendLoopMs.push(performance.now() - t0);
  await until(() => arrivals === BURST_BARS * CLIENTS);
  burstMs.push(performance.now() - t0);
  burstMessages.push((clients.reduce((s, c) => s + c.messages, 0) - before) / CLIENTS);
}
const burstMed = median(burstMs);
console.log(
  `burst: ${CLIENTS} clients × ${BURST_BARS} bars × 3 events: median ${burstMed.toFixed(1)} ms ` +
    `(${Math.round((CLIENTS * BURST_BARS * 3) / (burstMed / 1000)).toLocaleString('en-US')} events/s), ` +
    `${median(burstMessages)} WebSocket messages per client; the send calls alone ${median(sendLoopMs).toFixed(1)} ms`,
);

const BASE = 1_000_000;
arrivals = 0;
for (let i = 0; i < PACED_BARS; i++) {
  sentAtMs.set(BASE + i, performance.now());
  sendBar(conns, BASE + i);
  await Bun.sleep(10);
}
await until(() => arrivals === PACED_BARS * CLIENTS);
console.log(
  `paced: ${CLIENTS} clients, one bar per 10 ms for ${PACED_BARS} bars: send → arrival ` +
    `p50 ${median(latenciesMs).toFixed(1)} ms, p99 ${percentile(latenciesMs, 0.99).toFixed(1)} ms`,
);

transport.shutdown();
for (const c of clients) c.ws.close();
await server.stop(true);
