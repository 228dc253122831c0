// JSON hub protocol versions 0, 1 and 2 on the real hubs, frame by frame over a listening server:
// each handshake version is answered `{}\x1e` and then works (a subscription, then its event), as
// ASP.NET Core 8 accepts every version up to 2; the flow of signalrcore (the most used Python
// client: negotiate without a version, version 0 answered, handshake version 0); the negotiate
// answer's `useStatefulReconnect`, present only when asked.

import { afterEach, describe, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { RawHubClient, records, RS } from '../../support/hub-raw.ts';
import { replayApp, startSession, step } from '../../support/replay.ts';

let h: HubServer | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A listening server with the real hubs and a live NQ session with one bar played. */
async function gateway() {
  const t = await replayApp([[19995, 20005, 19990, 20000], 20001, 20002]);
  h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  const x = await startSession(t, h.token);
  await step(t, x);
  return { t, h, x };
}

/** Subscribes `c` to the session's orders, places a limit order over REST, and returns the event it got. */
async function subscribeAndPlace(g: Awaited<ReturnType<typeof gateway>>, c: RawHubClient): Promise<any> {
  c.send(records({ type: 1, target: 'SubscribeOrders', arguments: [g.x.accountId], invocationId: 's' }));
  await c.waitForText((t) => t.includes('"invocationId":"s"'));
  const placed = await g.t.post('Order/place', { accountId: g.x.accountId, contractId: g.x.contractId, type: 1, side: 0, size: 1, limitPrice: 19000 }, g.h.token);
  expect(placed.body.success).toBe(true);
  await c.waitForText((t) => t.includes('GatewayUserOrder'));
  const event = c.records.find((r) => r.target === 'GatewayUserOrder');
  expect(event.data ?? event.arguments[0].data).toMatchObject({ id: placed.body.orderId, status: 1, type: 1, limitPrice: 19000 });
  return event;
}

describe('handshake versions', () => {
  it('versions 0, 1 and 2: each answered {}\x1e, then a subscription and its event arrive', async () => {
    const g = await gateway();
    for (const version of [0, 1, 2]) {
      const c = await RawHubClient.open(`${g.h.baseUrl}/hubs/user?access_token=${g.h.token}`);
      c.send(records({ protocol: 'json', version }));
      await c.waitForText((t) => t.length > 0);
      expect([version, c.messages[0]]).toEqual([version, `{}${RS}`]);
      await subscribeAndPlace(g, c);
      expect(c.records.slice(1).map((r) => r.type)).toEqual([3, 1]); // the completion, then the event: nothing else
      c.close();
    }
  });

  it.each([[1.5], [2 ** 31]])('a version that is not an Int32 (%p) fails the handshake as ASP.NET\'s parser does', async (version) => {
    const g = await gateway();
    const c = await RawHubClient.open(`${g.h.baseUrl}/hubs/user?access_token=${g.h.token}`);
    c.send(records({ protocol: 'json', version }));
    await c.waitForClose();
    expect(c.messages).toEqual([records({ error: 'An unexpected error occurred during connection handshake.' })]);
  });
});

describe('signalrcore', () => {
  it('negotiate without a version → negotiateVersion 0, the connectionId presented, handshake version 0 → works', async () => {
    const g = await gateway();
    // signalrcore inserts /negotiate before the query and keeps the token there; it sends no negotiateVersion.
    const r = await fetch(`${g.h.baseUrl}/hubs/user/negotiate?access_token=${g.h.token}`, { method: 'POST' });
    expect(r.status).toBe(200);
    const n: any = await r.json();
    expect(n).toEqual({ negotiateVersion: 0, connectionId: n.connectionId, availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }] });
    const c = await RawHubClient.open(`${g.h.baseUrl}/hubs/user?id=${n.connectionId}&access_token=${g.h.token}`);
    c.send(records({ protocol: 'json', version: 0 }));
    await c.waitForText((t) => t.length > 0);
    expect(c.messages[0]).toBe(`{}${RS}`);
    expect(g.h.transport.connections().map((x) => x.id)).toEqual([n.connectionId]);
    await subscribeAndPlace(g, c);
    c.close();
  });
});

describe('negotiate: useStatefulReconnect', () => {
  it('asked, in any case: the answer carries useStatefulReconnect: true, first as ASP.NET writes it; not asked: no such key', async () => {
    const g = await gateway();
    const negotiate = async (query: string) => {
      const r = await fetch(`${g.h.baseUrl}/hubs/user/negotiate?negotiateVersion=1&${query}&access_token=${g.h.token}`, { method: 'POST' });
      return Object.entries((await r.json()) as object).filter(([k]) => k !== 'connectionId' && k !== 'connectionToken');
    };
    const transports: [string, unknown] = ['availableTransports', [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }]];
    for (const q of ['useStatefulReconnect=true', 'UseStatefulReconnect=True', 'usestatefulreconnect=%20TRUE%20']) {
      expect([q, await negotiate(q)]).toEqual([q, [['useStatefulReconnect', true], ['negotiateVersion', 1], transports]]);
    }
    for (const q of ['', 'useStatefulReconnect=false', 'useStatefulReconnect=1']) {
      expect([q, await negotiate(q)]).toEqual([q, [['negotiateVersion', 1], transports]]);
    }
  });
});
