// Stateful reconnect (JSON protocol version 2, negotiated with useStatefulReconnect) at the frame
// level: a raw TCP WebSocket that is cut without a close, comes back with the same connection token,
// and checks what the server resends (a Sequence record, then every message not acknowledged), that
// the client's own resent invocation runs once, the Ack the server sends, and the bounds: the grace
// period, a Sequence past what arrived, an unacknowledged buffer past its bound.

import { afterEach, describe, expect, it } from 'bun:test';
import type { HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { waitFor } from '../../support/app.ts';
import { records, RawTcpUpgrade, RS } from '../../support/hub-raw.ts';
import { startHubServer, type HubServer, type HubServerOptions } from '../../support/hub-server.ts';

const seen: string[] = [];
const testHub: HubDefinition = {
  path: '/hubs/test',
  methods: {
    Echo: (c, args) => {
      c.send('Echoed', args);
      return { ok: true };
    },
    Remember: (c, args) => {
      c.state.set('remembered', args[0]);
      return { ok: true };
    },
    Recall: (c) => {
      c.send('Recalled', [c.state.get('remembered') ?? null]);
      return { ok: true };
    },
  },
  onConnected: (c) => seen.push(`connected ${c.id}`),
  onDisconnected: (c) => seen.push(`disconnected ${c.id}`),
};

let h: HubServer;
afterEach(async () => {
  await h?.stop();
});

/** What onConnected / onDisconnected saw of one connection (a previous test's server may still be closing its own). */
const seenOf = (id: string) => seen.filter((x) => x.endsWith(` ${id}`));

async function serve(opts: Partial<HubServerOptions> = {}) {
  h = await startHubServer({ hubs: [testHub], ...opts });
  return h;
}

/** Negotiates (version 1, stateful reconnect asked unless told) and returns the connection token. */
async function negotiate(stateful = true): Promise<{ connectionId: string; connectionToken: string; useStatefulReconnect?: boolean }> {
  const q = stateful ? '&useStatefulReconnect=true' : '';
  const r = await fetch(`${h.baseUrl}/hubs/test/negotiate?negotiateVersion=1${q}&access_token=${h.token}`, { method: 'POST' });
  return (await r.json()) as any;
}

/** A raw socket with the negotiated token; with `version`, the handshake is sent and its answer awaited. */
async function open(token: string, version?: number): Promise<RawTcpUpgrade> {
  const u = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${token}&access_token=${h.token}`);
  expect(u.status).toBe(101);
  if (version !== undefined) {
    u.sendText(records({ protocol: 'json', version }));
    await waitFor(() => u.texts().join('').startsWith(`{}${RS}`));
  }
  return u;
}

/** Records after the handshake answer, without pings. */
const sent = (u: RawTcpUpgrade) => u.records.slice(1).filter((r) => r.type !== 6);

const logged = (text: string) => h.logs.filter((l) => l.includes(text)).length;

describe('stateful reconnect, frame by frame', () => {
  it('a cut socket: the connection waits; the same token resumes it with a Sequence and every unacknowledged message; a resent invocation runs once', async () => {
    await serve();
    const n = await negotiate();
    expect(n.useStatefulReconnect).toBe(true);
    const a = await open(n.connectionToken, 2);
    a.sendText(records({ type: 1, target: 'Remember', arguments: ['kept'], invocationId: 'r' }, { type: 1, target: 'Echo', arguments: ['a'], invocationId: '1' }));
    await waitFor(() => sent(a).length === 3);
    // Server sequence: 1 completion r, 2 Echoed a, 3 completion 1.
    expect(sent(a)).toEqual([
      { type: 3, invocationId: 'r' },
      { type: 1, target: 'Echoed', arguments: ['a'] },
      { type: 3, invocationId: '1' },
    ]);
    // The client acknowledges the first two (records of one frame are read in order), then invokes again: 4 Echoed b, 5 completion 2.
    a.sendText(records({ type: 8, sequenceId: 2 }, { type: 1, target: 'Echo', arguments: ['b'], invocationId: '2' }));
    await waitFor(() => a.records.some((r) => r.type === 8 && r.sequenceId === 3)); // the server acknowledges the client's three invocations
    expect(sent(a).filter((r) => r.type !== 8).slice(3)).toEqual([{ type: 1, target: 'Echoed', arguments: ['b'] }, { type: 3, invocationId: '2' }]);
    const conn = h.transport.connections()[0];
    a.destroy(); // no close frame: a network failure
    await waitFor(() => logged('hub connection lost') === 1);
    expect(h.transport.connections()).toEqual([conn]); // still there, with its id
    conn.send('WhileAway', [1]); // queued for the client's return: sequence 6
    const b = await open(n.connectionToken); // no handshake on a resumed socket
    await waitFor(() => b.records.length >= 5);
    expect(b.records).toEqual([
      { type: 9, sequenceId: 3 },
      { type: 3, invocationId: '1' },
      { type: 1, target: 'Echoed', arguments: ['b'] },
      { type: 3, invocationId: '2' },
      { type: 1, target: 'WhileAway', arguments: [1] },
    ]);
    // Say the client never saw the server's Ack: it resends its invocations from 1; the first three ran already.
    b.sendText(
      records(
        { type: 9, sequenceId: 1 },
        { type: 1, target: 'Remember', arguments: ['kept'], invocationId: 'r' },
        { type: 1, target: 'Echo', arguments: ['a'], invocationId: '1' },
        { type: 1, target: 'Echo', arguments: ['b'], invocationId: '2' },
        { type: 1, target: 'Recall', arguments: [], invocationId: '3' },
      ),
    );
    await waitFor(() => b.records.some((r) => r.type === 3 && r.invocationId === '3'));
    expect(b.records.slice(5).filter((r) => r.type !== 8 && r.type !== 6)).toEqual([
      { type: 1, target: 'Recalled', arguments: ['kept'] }, // the state survived the drop
      { type: 3, invocationId: '3' },
    ]);
    await waitFor(() => b.records.some((r) => r.type === 8));
    expect(b.records.filter((r) => r.type === 8)).toEqual([{ type: 8, sequenceId: 4 }]);
    expect(h.transport.connections()).toEqual([conn]);
    expect(conn.id).toBe(n.connectionId);
    expect(seenOf(n.connectionId)).toEqual([`connected ${n.connectionId}`]); // never disconnected
    expect(logged('hub connection resumed')).toBe(1);
    b.destroy();
  });

  it('the client returning before the server noticed the drop takes the connection over from the old socket', async () => {
    await serve();
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    const conn = h.transport.connections()[0];
    conn.send('First', [1]);
    await waitFor(() => sent(a).length === 1);
    a.socket.pause(); // the old socket still looks alive to the server
    const b = await open(n.connectionToken);
    await waitFor(() => b.records.length >= 2);
    expect(b.records).toEqual([{ type: 9, sequenceId: 1 }, { type: 1, target: 'First', arguments: [1] }]);
    await waitFor(() => a.ended); // the server cut the old socket
    conn.send('Second', [2]);
    await waitFor(() => b.records.length >= 3);
    expect(b.records[2]).toEqual({ type: 1, target: 'Second', arguments: [2] });
    expect(h.transport.connections()).toEqual([conn]);
    expect(seenOf(n.connectionId)).toEqual([`connected ${n.connectionId}`]);
    b.destroy();
  });

  it('past the reconnect grace the connection ends (onDisconnected once) and its token is refused with 404', async () => {
    await serve({ reconnectGraceMs: 50 });
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    a.destroy();
    await waitFor(() => seenOf(n.connectionId).length === 2);
    expect(seenOf(n.connectionId)).toEqual([`connected ${n.connectionId}`, `disconnected ${n.connectionId}`]);
    expect(h.transport.connections()).toEqual([]);
    const b = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${n.connectionToken}&access_token=${h.token}`);
    expect(b.status).toBe(404);
    b.destroy();
  });

  it('a client that closes the WebSocket (a close frame) has left: the connection ends at once', async () => {
    await serve();
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    a.sendFrame(0x8, Buffer.from([0x03, 0xe8])); // Close, 1000
    await waitFor(() => seenOf(n.connectionId).length === 2);
    const b = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${n.connectionToken}&access_token=${h.token}`);
    expect(b.status).toBe(404);
    a.destroy();
    b.destroy();
  });

  it('without stateful reconnect (not negotiated, or a version 1 handshake, as ASP.NET turns it off) a cut socket ends the connection; Ack and Sequence are ignored', async () => {
    await serve();
    for (const [stateful, version] of [[false, 2], [true, 1]] as const) {
      const n = await negotiate(stateful);
      const a = await open(n.connectionToken, version);
      a.sendText(records({ type: 8, sequenceId: 5 }, { type: 9, sequenceId: 7 }, { type: 1, target: 'Echo', arguments: ['x'], invocationId: '1' }));
      await waitFor(() => sent(a).length === 2);
      expect(sent(a)).toEqual([{ type: 1, target: 'Echoed', arguments: ['x'] }, { type: 3, invocationId: '1' }]);
      a.destroy();
      await waitFor(() => seenOf(n.connectionId).length === 2);
      const b = await RawTcpUpgrade.open(h.port, `/hubs/test?id=${n.connectionToken}&access_token=${h.token}`);
      expect([stateful, version, b.status]).toEqual([stateful, version, 404]);
      b.destroy();
    }
  });

  it('a Sequence past the messages received closes the connection with ASP.NET\'s error', async () => {
    await serve();
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    a.sendText(records({ type: 1, target: 'Echo', arguments: ['x'], invocationId: '1' }, { type: 9, sequenceId: 3 }));
    await waitFor(() => a.records.some((r) => r.type === 7));
    expect(sent(a).at(-1)).toEqual({
      type: 7,
      error: "Connection closed with an error. InvalidOperationException: Sequence ID greater than amount of messages we've received.",
    });
    a.destroy();
  });

  it('a client that never acknowledges is closed once the unacknowledged messages pass resendBytesMax', async () => {
    await serve({ resendBytesMax: 4096 });
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    const conn = h.transport.connections()[0];
    const chunk = 'x'.repeat(1000);
    for (let i = 0; i < 5 && !conn.closed; i++) {
      conn.send('Big', [i, chunk]);
      await waitFor(() => sent(a).length > i || conn.closed);
    }
    await waitFor(() => a.records.some((r) => r.type === 7));
    expect(sent(a).map((r) => r.type)).toEqual([1, 1, 1, 1, 7]); // four records of 1,045 bytes pass 4096
    expect(sent(a).at(-1)).toEqual({
      type: 7,
      error: 'Connection closed: the client did not acknowledge 4096 bytes of messages (stateful reconnect\'s buffer is full).',
      allowReconnect: true,
    });
    expect(logged('hub client not acknowledging')).toBe(1);
    a.destroy();
  });

  it('acknowledged messages leave the buffer: a client that acknowledges is never closed', async () => {
    await serve({ resendBytesMax: 4096 });
    const n = await negotiate();
    const a = await open(n.connectionToken, 2);
    const conn = h.transport.connections()[0];
    const chunk = 'x'.repeat(1000);
    for (let i = 1; i <= 20; i++) {
      conn.send('Big', [i, chunk]);
      await waitFor(() => sent(a).length === i);
      a.sendText(records({ type: 8, sequenceId: i }));
    }
    expect(conn.closed).toBe(false);
    a.destroy();
  });
});
