// The hubs per API profile (docs/gateway-profile.md): a connection answers under its key's profile,
// or the one its URL names (`/live/hubs/user`), with the official SignalR client: under live, orders
// and quotes carry the gateway's symbolId and positions have no contractDisplayName (one SDK's
// position model refuses unknown keys); under spec, as before.
import { afterEach, describe, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { hubAuthentication } from '../../../src/http/hubs/auth.ts';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { PROFILE_PREFIXES } from '../../../src/http/shared/profile.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { replayApp } from '../../support/replay.ts';

const servers: HubServer[] = [];
const clients: HubConnection[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop().catch(() => {});
  for (const h of servers.splice(0)) await h.stop();
});

async function serve() {
  const t = await replayApp([20000, 20002, 20004], { historyClose: 20000 });
  const h = await startHubServer({ hubs: gatewayHubs(t.s), t, ...hubAuthentication(t.s), pathPrefixes: PROFILE_PREFIXES });
  servers.push(h);
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${h.baseUrl}/api/sim/${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}` }, body: JSON.stringify(body),
    });
    return (await r.json()) as any;
  };
  return { t, h, post };
}

async function connect(h: HubServer, path: string): Promise<HubConnection> {
  const c = new HubConnectionBuilder()
    .withUrl(`${h.baseUrl}${path}`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => h.token })
    .configureLogging(LogLevel.None)
    .build();
  clients.push(c);
  await c.start();
  return c;
}

/** Opens a long market position on a fresh session over `path`, and returns the user events and one quote. */
async function eventsOver(path: string, profile?: 'live') {
  const { t, h, post } = await serve();
  if (profile) await t.s.users.setKeyProfile(t.email, profile);
  const x = await post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' });
  const user = await connect(h, `${path}/hubs/user`);
  const market = await connect(h, `${path}/hubs/market`);
  const got: Record<string, any[]> = { GatewayUserOrder: [], GatewayUserPosition: [], GatewayQuote: [] };
  user.on('GatewayUserOrder', (e) => got.GatewayUserOrder.push(e.data));
  user.on('GatewayUserPosition', (e) => got.GatewayUserPosition.push(e.data));
  market.on('GatewayQuote', (_id: string, q: any) => got.GatewayQuote.push(q));
  for (const m of ['SubscribeOrders', 'SubscribePositions']) await user.invoke(m, x.accountId);
  await market.invoke('SubscribeContractQuotes', x.instrument.contractId);
  await post('Replay/step', { accountId: x.accountId });
  expect((await post('Order/place', { accountId: x.accountId, contractId: x.instrument.contractId, type: 2, side: 0, size: 1 })).success).toBe(true);
  await waitFor(() => got.GatewayUserPosition.length >= 1 && got.GatewayUserOrder.length >= 2 && got.GatewayQuote.length >= 1);
  return got;
}

describe('hub payloads per profile', () => {
  it('spec: plain symbolId, positions with contractDisplayName', async () => {
    const got = await eventsOver('');
    expect(got.GatewayUserOrder[1]).toMatchObject({ symbolId: 'NQ', status: 2 });
    expect(Object.keys(got.GatewayUserPosition[0])).toEqual(['id', 'accountId', 'contractId', 'contractDisplayName', 'creationTimestamp', 'type', 'size', 'averagePrice']);
    expect(got.GatewayQuote[0].symbol).toBe('NQ');
  }, 60_000);

  it('live by the key\'s choice: the gateway\'s symbolId, positions with only the gateway\'s keys', async () => {
    const got = await eventsOver('', 'live');
    expect(got.GatewayUserOrder[1]).toMatchObject({ symbolId: 'F.US.ENQ', status: 2 });
    expect(Object.keys(got.GatewayUserPosition[0]).sort()).toEqual(['accountId', 'averagePrice', 'contractId', 'creationTimestamp', 'id', 'size', 'type']);
    expect(got.GatewayQuote[0].symbol).toBe('F.US.ENQ');
  }, 60_000);

  it('live by the URL (/live/hubs/…), whatever the key chose', async () => {
    const got = await eventsOver('/live');
    expect(got.GatewayUserOrder[1]).toMatchObject({ symbolId: 'F.US.ENQ' });
    expect(got.GatewayUserPosition[0]).not.toHaveProperty('contractDisplayName');
    expect(got.GatewayQuote[0].symbol).toBe('F.US.ENQ');
  }, 60_000);
});
