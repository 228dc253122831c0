// Bots as they are written for the gateway: the official SignalR client (@microsoft/signalr, in
// Node as topstepx-cli and glitch-topstep use it) on the real hubs over a listening server, REST on
// the same server. A bracketed order's events end to end, and a bot that trades on quotes during
// Replay/play ending with exactly the fills and balance of the same decisions made between steps.

import { afterEach, describe, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { type BarSpec, OPEN_S, replayApp, startSession } from '../../support/replay.ts';

const servers: HubServer[] = [];
const clients: HubConnection[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop().catch(() => {});
  for (const h of servers.splice(0)) await h.stop();
});

async function serve(bars: readonly BarSpec[], shape: 'wrapped' | 'plain' = 'wrapped') {
  const t = await replayApp(bars, { historyClose: 20000 });
  t.s.config.hubEventShape = shape;
  const h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  servers.push(h);
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${h.baseUrl}/api/sim/${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}` }, body: JSON.stringify(body),
    });
    return (await r.json()) as any;
  };
  return { t, h, post };
}

async function connect(h: HubServer, hub: 'user' | 'market', skipNegotiation = true): Promise<HubConnection> {
  const c = new HubConnectionBuilder()
    .withUrl(`${h.baseUrl}/hubs/${hub}`, { skipNegotiation, transport: HttpTransportType.WebSockets, accessTokenFactory: () => h.token })
    .configureLogging(LogLevel.None)
    .build();
  clients.push(c);
  await c.start();
  return c;
}

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const BAR1: BarSpec = [20000, 20004, 19999, 20003];

for (const shape of ['wrapped', 'plain'] as const) {
  it(`a bracketed market order's events reach the official client in order, as REST reports them (${shape})`, async () => {
    const { h, post } = await serve([BAR0, BAR1], shape);
    const x = await post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
    await post('Replay/step', { accountId: x.accountId });
    const user = await connect(h, 'user', shape === 'plain');
    const got: [string, any][] = [];
    for (const name of ['GatewayUserOrder', 'GatewayUserPosition', 'GatewayUserTrade', 'GatewayUserAccount']) {
      user.on(name, (arg) => got.push([name, shape === 'wrapped' ? arg : { data: arg }]));
    }
    await user.invoke('SubscribeAccounts');
    for (const m of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await user.invoke(m, x.accountId);
    const placed = await post('Order/place', {
      accountId: x.accountId, contractId: x.instrument.contractId, type: 2, side: 0, size: 1,
      stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 },
    });
    await waitFor(() => got.length >= 7);
    await post('Replay/step', { accountId: x.accountId });
    await waitFor(() => got.length >= 12);
    expect(got.map(([n, e]) => [n, e.action, e.data.status ?? e.data.type ?? null])).toEqual([
      ['GatewayUserOrder', shape === 'wrapped' ? 0 : undefined, 1],
      ['GatewayUserOrder', shape === 'wrapped' ? 1 : undefined, 2],
      ['GatewayUserTrade', shape === 'wrapped' ? 0 : undefined, null],
      ['GatewayUserPosition', shape === 'wrapped' ? 0 : undefined, 1],
      ['GatewayUserAccount', shape === 'wrapped' ? 1 : undefined, null],
      ['GatewayUserOrder', shape === 'wrapped' ? 0 : undefined, 1],
      ['GatewayUserOrder', shape === 'wrapped' ? 0 : undefined, 1],
      ['GatewayUserOrder', shape === 'wrapped' ? 1 : undefined, 2],
      ['GatewayUserTrade', shape === 'wrapped' ? 0 : undefined, null],
      ['GatewayUserPosition', shape === 'wrapped' ? 2 : undefined, 0],
      ['GatewayUserAccount', shape === 'wrapped' ? 1 : undefined, null],
      ['GatewayUserOrder', shape === 'wrapped' ? 1 : undefined, 3],
    ]);
    // The final states agree with REST.
    const orders = (await post('Order/search', { accountId: x.accountId })).orders;
    const byId = new Map(orders.map((o: any) => [o.id, o]));
    const restTp = Object.fromEntries(Object.entries(byId.get(placed.orderId + 2) as object).filter(([, v]) => v !== null));
    expect(got[7][1].data).toEqual({ ...restTp, parentOrderId: placed.orderId });
    const trades = (await post('Trade/search', { accountId: x.accountId })).trades;
    expect(got[8][1].data).toEqual({ ...trades[0], id: 2, profitAndLoss: 60 });
    const account = (await post('Account/search', {})).accounts.find((a: any) => a.id === x.accountId);
    expect(got[10][1].data).toEqual(account);
  }, 60_000);
}

/** A wave: closes move up and down by a few points, so a long bracket fills either leg now and then. */
function waveBars(n: number): BarSpec[] {
  const out: BarSpec[] = [];
  let prev = 20000;
  for (let i = 0; i < n; i++) {
    const close = 20000 + Math.round(Math.sin(i / 3) * 24) / 4 + Math.round(Math.cos(i / 7) * 12) / 4;
    out.push([prev, Math.max(prev, close) + 1, Math.min(prev, close) - 1, close]);
    prev = close;
  }
  return out;
}

interface Decision {
  timeS: number;
  body: Record<string, unknown>;
}

describe('a bot that trades on quotes during Replay/play', () => {
  it('ends with exactly the fills and balance of the same decisions made between steps', async () => {
    const bars = waveBars(90);
    const { t, h, post } = await serve(bars);
    const x = await post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
    const market = await connect(h, 'market');
    const user = await connect(h, 'user');
    let positionSize = 0;
    let placing = false;
    let previous: number | null = null;
    let lastQuoteAt = '';
    const placedIds: number[] = [];
    user.on('GatewayUserPosition', (e) => (positionSize = e.data.size));
    await user.invoke('SubscribePositions', x.accountId);
    market.on('GatewayQuote', (contractId: string, q: any) => {
      expect(contractId).toBe(x.instrument.contractId);
      lastQuoteAt = q.timestamp;
      const rising = previous !== null && q.lastPrice > previous;
      previous = q.lastPrice;
      if (!rising || positionSize !== 0 || placing) return;
      placing = true;
      const side = placedIds.length % 2; // alternate long and short entries
      post('Order/place', {
        accountId: x.accountId, contractId, type: 2, side, size: 1, stopLossBracket: { ticks: 10 }, takeProfitBracket: { ticks: 10 },
      }).then((r) => {
        if (r.success) placedIds.push(r.orderId);
        placing = false;
      });
    });
    await market.invoke('SubscribeContractQuotes', x.instrument.contractId);
    // The services' clock drives playback: move it with real time.
    const pace = setInterval(() => t.clock.advance(10), 10);
    try {
      expect((await post('Replay/play', { accountId: x.accountId, speed: 10 })).success).toBe(true);
      const userId = (await t.s.users.list())[0].id;
      const session = () => t.s.replay.liveSessionsOf(userId)[0];
      await waitFor(() => session().playTimer === null && !placing, 60_000);
    } finally {
      clearInterval(pace);
    }
    expect(lastQuoteAt).toBe(new Date((OPEN_S + 90 * 60) * 1000).toISOString().replace('Z', '+00:00'));
    expect(placedIds.length).toBeGreaterThan(2);
    const orders = (await post('Order/search', { accountId: x.accountId })).orders as any[];
    const decisions: Decision[] = orders
      .filter((o) => placedIds.includes(o.id))
      .sort((a, b) => a.id - b.id)
      .map((o) => ({ timeS: Date.parse(o.creationTimestamp) / 1000, body: { type: 2, side: o.side, size: 1, stopLossBracket: { ticks: 10 }, takeProfitBracket: { ticks: 10 } } }));
    const playedTrades = (await post('Trade/search', { accountId: x.accountId })).trades;
    const playedBalance = (await post('Account/search', {})).accounts.find((a: any) => a.id === x.accountId).balance;

    // The same decisions, between steps, on a fresh server over the same bars.
    const b = await serve(bars);
    const y = await b.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
    let nowS = OPEN_S;
    for (const d of decisions) {
      const steps = (d.timeS - nowS) / 60;
      if (steps > 0) expect((await b.post('Replay/step', { accountId: y.accountId, steps })).success).toBe(true);
      nowS = d.timeS;
      expect((await b.post('Order/place', { accountId: y.accountId, contractId: y.instrument.contractId, ...d.body })).success).toBe(true);
    }
    await b.post('Replay/step', { accountId: y.accountId, steps: 100 });
    const steppedTrades = (await b.post('Trade/search', { accountId: y.accountId })).trades;
    const steppedBalance = (await b.post('Account/search', {})).accounts.find((a: any) => a.id === y.accountId).balance;
    const strip = (rows: any[]) => rows.map(({ accountId, ...r }) => r);
    expect(strip(steppedTrades)).toEqual(strip(playedTrades));
    expect(steppedBalance).toBe(playedBalance);
  }, 120_000);
});

describe('credentials while connected', () => {
  it('Auth/logout closes the token\'s connections with an error; key rotation closes every connection of the user', async () => {
    const { t, h, post } = await serve([BAR0]);
    const user = await connect(h, 'user');
    const market = await connect(h, 'market');
    const closed = (c: HubConnection) => new Promise<string>((resolve) => c.onclose((e) => resolve(String(e?.message ?? 'no error'))));
    const userClosed = closed(user);
    const marketClosed = closed(market);
    expect((await post('Auth/logout', {})).success).toBe(true);
    expect(await userClosed).toContain('Unauthorized: logged out');
    expect(await marketClosed).toContain('Unauthorized: logged out');
    // A new token, then the API key rotated from the settings: that connection closes too.
    h.token = await t.login();
    const again = await connect(h, 'user');
    const againClosed = closed(again);
    await t.s.users.rotateKey(t.email);
    expect(await againClosed).toContain('Unauthorized: API key rotated');
  }, 60_000);
});
