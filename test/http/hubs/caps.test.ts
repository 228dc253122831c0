// Per-user caps on a node's hub connections (a user holds at most connectionsPerUserMax; negotiate
// answers the error as ASP.NET answers negotiate errors, an upgraded WebSocket gets the handshake and
// then a close message without reconnect), per-user pending negotiated ids (one user's flood evicts
// only its own), and negotiations without a token per client address.

import { afterEach, describe, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection as ClientConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { hubAuthentication } from '../../../src/http/hubs/auth.ts';
import type { HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { makeApp, makeWebUser, waitFor, webLogin } from '../../support/app.ts';
import { HANDSHAKE, RawHubClient, RawTcpUpgrade, records, RS } from '../../support/hub-raw.ts';
import { startHubServer, type HubServer, type HubServerOptions } from '../../support/hub-server.ts';

const testHub: HubDefinition = {
  path: '/hubs/test',
  methods: {
    Echo: (c, args) => {
      c.send('Echoed', args);
      return { ok: true };
    },
  },
};

const CAP = 'Connection refused: at most 2 hub connections per user may be open at once.';

let h: HubServer;
const clients: ClientConnection[] = [];
const raws: RawHubClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop().catch(() => {});
  for (const r of raws.splice(0)) r.close();
  await h?.stop();
});

async function serve(opts: Partial<HubServerOptions> = {}) {
  h = await startHubServer({ hubs: [testHub], connectionsPerUserMax: 2, ...opts });
  return h;
}

/** A second Pro user's bearer token. */
async function userB(email = 'b@example.com'): Promise<string> {
  const created = await h.t.s.users.create({ email, plan: 'pro' });
  if (!created.ok) throw new Error('cannot create user');
  const r = await h.t.post('Auth/loginKey', { userName: email, apiKey: created.value.apiKey });
  return r.body.token as string;
}

function official(token: string, skipNegotiation: boolean): ClientConnection {
  const c = new HubConnectionBuilder()
    .withUrl(`${h.baseUrl}/hubs/test`, { skipNegotiation, transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
    .withAutomaticReconnect([0, 10, 10])
    .configureLogging(LogLevel.None)
    .build();
  clients.push(c);
  return c;
}

async function raw(token: string): Promise<RawHubClient> {
  const c = await RawHubClient.open(`${h.baseUrl}/hubs/test?access_token=${token}`, { handshake: true });
  raws.push(c);
  return c;
}

async function negotiate(token: string): Promise<any> {
  const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1&access_token=${token}`, { method: 'POST' });
  expect(r.status).toBe(200);
  return r.json();
}

describe('connections per user', () => {
  it('A at its cap: negotiate answers the error JSON, the official client fails with it; B still connects', async () => {
    await serve();
    await raw(h.token);
    await raw(h.token);
    expect(await negotiate(h.token)).toEqual({ error: CAP });
    const c = official(h.token, false);
    await expect(c.start()).rejects.toThrow(CAP);
    const b = official(await userB(), false);
    await b.start();
    await b.invoke('Echo', 1);
    expect(h.transport.connections()).toHaveLength(3);
  });

  it('A at its cap: a direct WebSocket gets the handshake answer, then {"type":7,"error":…} without reconnect, and is closed', async () => {
    await serve();
    await raw(h.token);
    await raw(h.token);
    const refused = await RawHubClient.open(`${h.baseUrl}/hubs/test?access_token=${h.token}`);
    refused.send(HANDSHAKE);
    expect(await refused.waitForClose()).toBe(1000);
    expect(refused.text).toBe(`{}${RS}` + records({ type: 7, error: CAP }));
    expect(h.transport.connections()).toHaveLength(2);
    // The official client (skipNegotiation, automatic reconnect on) surfaces it and does not retry.
    const c = official(h.token, true);
    let reconnecting = 0;
    c.onreconnecting(() => reconnecting++);
    const closed = new Promise<Error | undefined>((resolve) => c.onclose(resolve));
    const started = await c.start().then(
      () => null,
      (e: Error) => e,
    );
    const error = started ?? (await closed);
    expect(error?.message).toBe(`Server returned an error on close: ${CAP}`);
    expect(reconnecting).toBe(0);
    // B is not held by A's cap.
    const b = await raw(await userB());
    b.send(records({ type: 1, target: 'Echo', arguments: ['b'], invocationId: '1' }));
    await b.waitForText((t) => t.includes('"invocationId":"1"'));
  });

  it('a slot frees when one of A\'s connections ends; stateful connections waiting for their client count', async () => {
    await serve();
    const first = await raw(h.token);
    // A stateful connection whose socket dropped still holds its slot while it waits for its client.
    const n = await (await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1&useStatefulReconnect=true&access_token=${h.token}`, { method: 'POST' })).json() as any;
    const dropped = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${n.connectionToken}&access_token=${h.token}`);
    dropped.sendText(records({ protocol: 'json', version: 2 }));
    await waitFor(() => dropped.texts().length > 0);
    dropped.destroy();
    await waitFor(() => h.logs.some((l) => l.includes('hub connection lost')));
    expect(await negotiate(h.token)).toEqual({ error: CAP });
    first.close();
    await waitFor(() => h.transport.connections().length === 1);
    const again = await negotiate(h.token);
    expect(typeof again.connectionToken).toBe('string');
  });
});

describe('negotiated ids per user', () => {
  it('A\'s negotiate flood evicts only A\'s own oldest ids; B\'s pending id still connects', async () => {
    await serve({ negotiatedIdsPerUserMax: 5, negotiatedIdsMax: 8 });
    const bToken = await userB();
    const bPending = await negotiate(bToken);
    const aIds: string[] = [];
    for (let i = 0; i < 50; i++) aIds.push((await negotiate(h.token)).connectionToken);
    // A's five newest are pending, its older ones are gone.
    const gone = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${aIds[44]}&access_token=${h.token}`);
    expect(gone.status).toBe(404);
    gone.destroy();
    const kept = await RawHubClient.open(`${h.baseUrl}/hubs/test?id=${aIds[49]}&access_token=${h.token}`, { handshake: true });
    raws.push(kept);
    const b = await RawHubClient.open(`${h.baseUrl}/hubs/test?id=${bPending.connectionToken}&access_token=${bToken}`, { handshake: true });
    raws.push(b);
    // B's connection and A's kept one: two, B's among them (sorting an id against a matcher would compare texts with an object).
    const ids = h.transport.connections().map((c) => c.id);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(bPending.connectionId);
  });

  it('with the whole table full of other users\' ids, a user with none pending is refused, never by evicting theirs', async () => {
    await serve({ negotiatedIdsPerUserMax: 5, negotiatedIdsMax: 6 });
    const bToken = await userB();
    const bPending = await negotiate(bToken);
    for (let i = 0; i < 5; i++) await negotiate(h.token);
    const cToken = await userB('c@example.com');
    expect(await negotiate(cToken)).toEqual({ error: 'Negotiation refused: too many negotiated connections are waiting to connect; retry shortly.' });
    // A, which has ids pending, still negotiates (its own oldest goes), and B's id still connects.
    expect(typeof (await negotiate(h.token)).connectionToken).toBe('string');
    const b = await RawHubClient.open(`${h.baseUrl}/hubs/test?id=${bPending.connectionToken}&access_token=${bToken}`, { handshake: true });
    raws.push(b);
  });
});

describe('negotiations without a token, per client address', () => {
  it('a cookie (the console) negotiates up to the cap; past it the error JSON comes before any authentication; a token still negotiates', async () => {
    const t = await makeApp();
    await serve({ t, authenticate: hubAuthentication(t.s).authenticate, negotiationsPerAddressMax: 3 });
    const web = await makeWebUser(t);
    const cookie = await webLogin(t, web.email, web.password);
    const byCookie = async (withCookie = true) => {
      const headers: Record<string, string> = { origin: h.baseUrl };
      if (withCookie) headers.cookie = `rd_session=${cookie}`;
      const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1`, { method: 'POST', headers });
      return { status: r.status, body: r.status === 200 ? await r.json() : null } as { status: number; body: any };
    };
    for (let i = 0; i < 3; i++) expect(typeof (await byCookie()).body.connectionToken).toBe('string');
    const refused = { status: 200, body: { error: 'Negotiation refused: at most 3 negotiations without a token per client address every 60 s.' } };
    expect(await byCookie()).toEqual(refused);
    expect(await byCookie(false)).toEqual(refused); // not even authenticated: no work spent on it
    expect(typeof (await negotiate(h.token)).connectionToken).toBe('string');
  });
});
