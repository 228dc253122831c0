// The SignalR transport at the frame level: raw TCP for the HTTP answers and the 101, a bare
// WebSocket for the records (handshake, framing, completions, errors, keep-alive, the queue).

import { afterEach, describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import type { HubConnection, HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer, type HubServerOptions } from '../../support/hub-server.ts';
import { HANDSHAKE, RawHubClient, RawTcpUpgrade, records, RS } from '../../support/hub-raw.ts';

/** A gate a hub method can wait on, opened by the test. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened, entered: false };
}

let g = gate();

const testHub: HubDefinition = {
  path: '/hubs/test',
  methods: {
    Echo: (c, args) => {
      c.send('Echoed', args);
      return { ok: true };
    },
    Fail: () => ({ ok: false, error: 'Account not found' }),
    Throw: () => {
      throw new Error('boom');
    },
    Slow: async (c, args) => {
      g.entered = true;
      await g.opened;
      c.send('Slowed', args);
      return { ok: true };
    },
    // Quotes carry a coalesce key; the others do not.
    Burst: (c) => {
      c.send('A', [1]);
      c.send('Quote', ['k1', 1], { coalesceKey: 'k1' });
      c.send('B', [2]);
      c.send('Quote', ['k1', 2], { coalesceKey: 'k1' });
      c.send('Quote', ['k2', 1], { coalesceKey: 'k2' });
      c.send('C', [3]);
      return { ok: true };
    },
  },
};

let h: HubServer;

async function serve(opts: Partial<HubServerOptions> = {}): Promise<HubServer> {
  g = gate();
  h = await startHubServer({ hubs: [testHub], ...opts });
  return h;
}

const hubUrl = (query = `access_token=${h.token}`) => `${h.baseUrl}/hubs/test?${query}`;

afterEach(async () => {
  await h?.stop();
});

describe('HTTP answers before any WebSocket', () => {
  it('101: no Sec-WebSocket-Protocol or Sec-WebSocket-Extensions, even when the client offers them', async () => {
    await serve();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?access_token=${h.token}`, {
      'Sec-WebSocket-Protocol': 'json, messagepack',
      'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits',
    });
    const accept = createHash('sha1').update('dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    expect(u.head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    expect(Object.keys(u.headers).sort()).toEqual(['connection', 'date', 'sec-websocket-accept', 'upgrade']);
    expect(u.headers['sec-websocket-accept']).toBe(accept);
    u.destroy();
  });

  it('101 without any subprotocol offered carries no empty Sec-WebSocket-Protocol either', async () => {
    await serve();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test`, { Authorization: `Bearer ${h.token}` });
    expect(u.status).toBe(101);
    expect(Object.keys(u.headers).sort()).toEqual(['connection', 'date', 'sec-websocket-accept', 'upgrade']);
    u.destroy();
  });

  it.each([
    ['no token', ''],
    ['a bad token', 'access_token=nope'],
  ])('401 with %s, on the upgrade and on negotiate', async (_, query) => {
    await serve();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?${query}`);
    expect(u.status).toBe(401);
    expect(u.headers['www-authenticate']).toBe('Bearer');
    u.destroy();
    const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1&${query}`, { method: 'POST' });
    expect(r.status).toBe(401);
    expect(await r.text()).toBe('');
    expect(h.transport.connections()).toHaveLength(0);
  });

  it('a bad token in Authorization is refused even with a good negotiate id (401 comes first)', async () => {
    await serve();
    const n: any = await (await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1&access_token=${h.token}`, { method: 'POST' })).json();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${n.connectionToken}`, { Authorization: 'Bearer nope' });
    expect(u.status).toBe(401);
    u.destroy();
  });

  it('negotiate version 1: connectionId, connectionToken, WebSockets only, no useStatefulReconnect', async () => {
    await serve();
    const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1`, { method: 'POST', headers: { Authorization: `Bearer ${h.token}` } });
    expect(r.status).toBe(200);
    const body: any = await r.json();
    expect(Object.keys(body)).toEqual(['negotiateVersion', 'connectionId', 'connectionToken', 'availableTransports']);
    expect(body.negotiateVersion).toBe(1);
    expect(body.connectionToken).not.toBe(body.connectionId);
    expect(body.availableTransports).toEqual([{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }]);
    // The token is the id to present; it works once.
    const c = await RawHubClient.open(hubUrl(`id=${body.connectionToken}&access_token=${h.token}`), { handshake: true });
    expect(h.transport.connections().map((x) => x.id)).toEqual([body.connectionId]);
    const again = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${body.connectionToken}&access_token=${h.token}`);
    expect(again.status).toBe(404);
    again.destroy();
    c.close();
  });

  it('negotiate without negotiateVersion is version 0: no connectionToken, the connectionId is presented', async () => {
    await serve();
    const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?access_token=${h.token}`, { method: 'POST' });
    const body: any = await r.json();
    expect(body).toEqual({
      negotiateVersion: 0,
      connectionId: body.connectionId,
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }],
    });
    expect(typeof body.connectionId).toBe('string');
    const c = await RawHubClient.open(hubUrl(`id=${body.connectionId}&access_token=${h.token}`), { handshake: true });
    expect(h.transport.connections().map((x) => x.id)).toEqual([body.connectionId]);
    c.close();
  });

  it('an id we did not issue: 404 "No Connection with that ID", as ASP.NET', async () => {
    await serve();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?id=made-up&access_token=${h.token}`);
    expect(u.status).toBe(404);
    u.destroy();
    const r = await fetch(hubUrl(`id=made-up&access_token=${h.token}`));
    expect([r.status, await r.text()]).toEqual([404, 'No Connection with that ID']);
  });

  it('a GET without upgrade: 400 "Connection ID required" (we serve WebSockets only); GET negotiate: 405', async () => {
    await serve();
    const r = await fetch(hubUrl());
    expect([r.status, await r.text()]).toEqual([400, 'Connection ID required']);
    const n = await fetch(`${h.baseUrl}/hubs/test/negotiate?access_token=${h.token}`);
    expect(n.status).toBe(405);
  });

  it('a negotiated id not used within negotiatedIdTtlMs is forgotten (404)', async () => {
    await serve({ negotiatedIdTtlMs: 20 });
    const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1&access_token=${h.token}`, { method: 'POST' });
    const body: any = await r.json();
    await Bun.sleep(100); // only ever later than the ttl, however slow the machine
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${body.connectionToken}&access_token=${h.token}`);
    expect(u.status).toBe(404);
    u.destroy();
  });

  it('503 past connectionsMax open sockets; a slot frees when one closes', async () => {
    await serve({ connectionsMax: 1 });
    const first = await RawHubClient.open(hubUrl(), { handshake: true });
    const refused = await RawTcpUpgrade.open(h.port, `/hubs/test?access_token=${h.token}`);
    expect(refused.status).toBe(503);
    refused.destroy();
    first.close();
    await waitFor(() => h.transport.connections().length === 0);
    const again = await RawHubClient.open(hubUrl(), { handshake: true });
    again.close();
  });

  it('other paths fall through to the app', async () => {
    await serve();
    const r = await fetch(`${h.baseUrl}/api/sim/Auth/loginKey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: h.t.email, apiKey: h.t.apiKey }),
    });
    expect(((await r.json()) as any).success).toBe(true);
    expect(h.requests).toEqual([]);
  });
});

describe('handshake and records', () => {
  it('answers the handshake with exactly {}\\x1e', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl());
    c.send(HANDSHAKE);
    await c.waitForText((t) => t.length > 0);
    expect(c.messages).toEqual([`{}${RS}`]);
    c.close();
  });

  it('runs records that follow the handshake in the same frame', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl());
    c.send(HANDSHAKE + records({ type: 1, target: 'Echo', arguments: [7], invocationId: '1' }));
    await c.waitForText((t) => t.includes('"type":3'));
    expect(c.text).toBe(`{}${RS}` + records({ type: 1, target: 'Echoed', arguments: [7] }, { type: 3, invocationId: '1' }));
    c.close();
  });

  it('runs several records of one frame in order', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(records({ type: 1, target: 'Echo', arguments: ['a'], invocationId: '1' }, { type: 1, target: 'Echo', arguments: ['b'], invocationId: '2' }));
    await c.waitForText((t) => t.includes('"invocationId":"2"'));
    expect(c.messagesSent).toEqual([
      { type: 1, target: 'Echoed', arguments: ['a'] },
      { type: 3, invocationId: '1' },
      { type: 1, target: 'Echoed', arguments: ['b'] },
      { type: 3, invocationId: '2' },
    ]);
    c.close();
  });

  it('buffers a record split across two frames until its separator', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    const whole = records({ type: 1, target: 'Echo', arguments: ['split'], invocationId: '9' });
    c.send(whole.slice(0, 20));
    c.send(whole.slice(20));
    await c.waitForText((t) => t.includes('"invocationId":"9"'));
    expect(c.messagesSent).toEqual([{ type: 1, target: 'Echoed', arguments: ['split'] }, { type: 3, invocationId: '9' }]);
    c.close();
  });

  it.each([
    [{ protocol: 'messagepack', version: 1 }, "The protocol 'messagepack' is not supported."],
    [{ protocol: 'json', version: 3 }, "The server does not support version 3 of the 'json' protocol."],
    [{ hello: 1 }, 'An unexpected error occurred during connection handshake.'],
  ])('refuses the handshake %j with ASP.NET\'s error and closes', async (request, error) => {
    await serve();
    const c = await RawHubClient.open(hubUrl());
    c.send(records(request));
    await c.waitForClose();
    expect(c.messages).toEqual([records({ error })]);
  });

  it('cancels a handshake that does not come in time', async () => {
    await serve({ handshakeTimeoutMs: 100 });
    const c = await RawHubClient.open(hubUrl());
    await c.waitForClose();
    expect(c.messages).toEqual([records({ error: 'Handshake was canceled.' })]);
  });

  it('completes every invocation with an id exactly once, and none without an id', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(
      records(
        { type: 1, target: 'echo', arguments: [1], invocationId: '1' }, // names match ignoring case
        { type: 1, target: 'Fail', arguments: [], invocationId: '2' },
        { type: 1, target: 'Throw', arguments: [], invocationId: '3' },
        { type: 1, target: 'Nope', arguments: [], invocationId: '4' },
        { type: 4, target: 'Echo', arguments: [], invocationId: '5' },
        { type: 1, target: 'Echo', arguments: [2] }, // no id: no completion
        { type: 1, target: 'Nope', arguments: [] },
        { type: 1, target: 'Echo', arguments: [3], invocationId: '1' }, // a reused id is accepted
        { type: 2, invocationId: 'x', item: 1 }, // stream item, completion, cancel, unknown type: ignored
        { type: 3, invocationId: 'y' },
        { type: 5, invocationId: 'z' },
        { type: 99 },
        { type: 6 },
        { type: 1, target: 'Echo', arguments: ['end'], invocationId: '6' },
      ),
    );
    await c.waitForText((t) => t.includes('"invocationId":"6"'));
    expect(c.messagesSent).toEqual([
      { type: 1, target: 'Echoed', arguments: [1] },
      { type: 3, invocationId: '1' },
      { type: 3, invocationId: '2', error: 'Account not found' },
      { type: 3, invocationId: '3', error: "An unexpected error occurred invoking 'Throw' on the server." },
      { type: 3, invocationId: '4', error: "Failed to invoke 'Nope' due to an error on the server. HubException: Method does not exist." },
      { type: 3, invocationId: '5', error: "The client attempted to invoke the non-streaming 'Echo' method with a streaming invocation." },
      { type: 1, target: 'Echoed', arguments: [2] },
      { type: 1, target: 'Echoed', arguments: [3] },
      { type: 3, invocationId: '1' },
      { type: 1, target: 'Echoed', arguments: ['end'] },
      { type: 3, invocationId: '6' },
    ]);
    expect(h.logs.filter((l) => l.startsWith('error hub method failed'))).toHaveLength(1);
    expect(h.logs[0]).toContain('boom');
    c.close();
  });

  it('runs the invocations of one connection in order: a slow method is not overtaken', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(records({ type: 1, target: 'Slow', arguments: [1], invocationId: 's' }, { type: 1, target: 'Echo', arguments: [2], invocationId: 'e' }));
    await waitFor(() => g.entered);
    g.open();
    await c.waitForText((t) => t.includes('"invocationId":"e"'));
    expect(c.messagesSent).toEqual([
      { type: 1, target: 'Slowed', arguments: [1] },
      { type: 3, invocationId: 's' },
      { type: 1, target: 'Echoed', arguments: [2] },
      { type: 3, invocationId: 'e' },
    ]);
    c.close();
  });

  it('closes with an error on a record that is not a message', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(`{"type":1,${RS}`);
    await c.waitForClose();
    expect(c.messagesSent).toEqual([{ type: 7, error: 'Connection closed with an error. InvalidDataException: Error reading JSON.' }]);
  });

  it('closes with an error when an inbound record passes the size bound, even split over frames', async () => {
    await serve({ messageBytesMax: 1000 });
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(`{"type":1,"target":"Echo","arguments":["${'x'.repeat(600)}`);
    c.send(`${'x'.repeat(600)}"]}${RS}`);
    await c.waitForClose();
    expect(c.messagesSent).toEqual([
      { type: 7, error: 'Connection closed with an error. InvalidDataException: The maximum message size of 1000B was exceeded.' },
    ]);
  });

  it('pings an idle client every keepAliveMs, and closes a silent one after clientTimeoutMs', async () => {
    await serve({ keepAliveMs: 40, clientTimeoutMs: 400 });
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    await c.waitForText((t) => t.split(records({ type: 6 })).length > 2); // two pings
    await c.waitForClose();
    const sent = c.records.slice(1);
    expect(sent.slice(0, -1).every((r) => r.type === 6)).toBe(true);
    expect(sent.at(-1)).toEqual({ type: 7, error: 'Connection closed: no message from the client within 400 ms.', allowReconnect: true });
  });

  it('answers a WebSocket ping frame with a pong carrying the same payload', async () => {
    await serve();
    const u = await RawTcpUpgrade.open(h.port, `/hubs/test?access_token=${h.token}`);
    u.sendFrame(0x9, Buffer.from('hello'));
    await waitFor(() => u.body.length >= 7);
    expect([...u.body.subarray(0, 7)]).toEqual([0x8a, 5, ...Buffer.from('hello')]);
    u.destroy();
  });

  it('a client that pings is not timed out', async () => {
    await serve({ keepAliveMs: 25, clientTimeoutMs: 500 });
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    // Answer each server ping with one of ours, until the server has pinged well past the timeout.
    let answered = 0;
    await waitFor(() => {
      const pings = c.records.filter((r) => r.type === 6).length;
      while (answered < pings) {
        c.send(records({ type: 6 }));
        answered++;
      }
      return pings >= 50 || c.closeCode !== null; // ≥ 1.25 s: well past the timeout
    });
    expect(c.closeCode).toBeNull();
    c.close();
  });
});

describe('outbound queue', () => {
  it('coalesces keyed messages and keeps the order of everything else', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(records({ type: 1, target: 'Burst', arguments: [], invocationId: '1' }));
    await c.waitForText((t) => t.includes('"type":3'));
    expect(c.messagesSent).toEqual([
      { type: 1, target: 'A', arguments: [1] },
      { type: 1, target: 'B', arguments: [2] },
      { type: 1, target: 'Quote', arguments: ['k1', 2] },
      { type: 1, target: 'Quote', arguments: ['k2', 1] },
      { type: 1, target: 'C', arguments: [3] },
      { type: 3, invocationId: '1' },
    ]);
    c.close();
  });

  it('writes events sent outside any invocation at the next frame, many per WebSocket message', async () => {
    await serve({ frameIntervalMs: 50 });
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    const conn = h.transport.connections()[0];
    for (let i = 0; i < 100; i++) conn.send('Tick', [i], { coalesceKey: i % 2 === 0 ? undefined : 'odd' });
    await c.waitForText((t) => t.includes('"arguments":[98]'));
    const sent = c.messagesSent;
    expect(sent.map((m) => m.arguments[0])).toEqual([...Array.from({ length: 50 }, (_, i) => 2 * i), 99]);
    expect(c.messages.length).toBe(2); // the handshake answer, then one frame
    c.close();
  });

  it('closes a consumer that stops reading, once, and another connection keeps receiving', async () => {
    await serve({ queueBytesMax: 256 * 1024, closeGraceMs: 200 });
    const stalled = await RawTcpUpgrade.open(h.port, `/hubs/test?access_token=${h.token}`);
    stalled.sendText(HANDSHAKE);
    await waitFor(() => h.transport.connections().length === 1);
    stalled.socket.pause(); // reads nothing from now on: the kernel buffers fill, then Bun's, then ours
    const other = await RawHubClient.open(hubUrl(), { handshake: true });
    const [slow, fast] = [h.transport.connections()[0], h.transport.connections()[1]];
    const chunk = 'x'.repeat(32 * 1024);
    let sent = 0;
    while (!slow.closed && sent < 2_000) {
      slow.send('Flood', [sent, chunk]);
      fast.send('Tick', [sent], { coalesceKey: 'tick' });
      if (++sent % 16 === 0) await Bun.sleep(1); // let frames and the socket move
    }
    expect(slow.closed).toBe(true);
    await waitFor(() => h.transport.connections().length === 1); // cut after closeGraceMs
    expect(h.transport.connections()).toEqual([fast]);
    fast.send('After', ['still here']);
    await other.waitForText((t) => t.includes('still here'));
    other.send(records({ type: 1, target: 'Echo', arguments: ['ok'], invocationId: '1' }));
    await other.waitForText((t) => t.includes('"type":3'));
    expect(h.logs.filter((l) => l.includes('not reading'))).toHaveLength(1);
    other.close();
    stalled.destroy();
  });
});

describe('closing', () => {
  it('closeWhere sends a close message with the error, no reconnect, and counts', async () => {
    await serve();
    const a = await RawHubClient.open(hubUrl(), { handshake: true });
    const b = await RawHubClient.open(hubUrl(), { handshake: true });
    const bId = h.transport.connections()[1].id;
    expect(h.transport.closeWhere((c: HubConnection) => c.id === bId, 'Logged out.')).toBe(1);
    expect(await b.waitForClose()).toBe(1000);
    expect(b.messagesSent).toEqual([{ type: 7, error: 'Logged out.' }]);
    expect(h.transport.connections()).toHaveLength(1);
    expect(a.closeCode).toBeNull();
    a.close();
  });

  it('shutdown: {"type":7,"allowReconnect":true} to everyone, then 503', async () => {
    await serve();
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    h.transport.shutdown();
    await c.waitForClose();
    expect(c.text).toBe(`{}${RS}{"type":7,"allowReconnect":true}${RS}`);
    const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?access_token=${h.token}`, { method: 'POST' });
    expect(r.status).toBe(503);
  });

  it('a client close message ends the connection and calls onDisconnected once', async () => {
    const seen: string[] = [];
    const hub: HubDefinition = {
      ...testHub,
      onConnected: (c) => seen.push(`connected ${c.hubPath}`),
      onDisconnected: (c) => seen.push(`disconnected ${c.closed}`),
    };
    await serve({ hubs: [hub] });
    const c = await RawHubClient.open(hubUrl(), { handshake: true });
    c.send(records({ type: 7 }));
    await c.waitForClose();
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(['connected /hubs/test', 'disconnected true']);
    expect(c.messagesSent).toEqual([]);
  });
});
