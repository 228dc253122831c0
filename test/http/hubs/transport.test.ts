// The SignalR transport as bots meet it: the official client (@microsoft/signalr, as topstepx-cli
// and glitch-topstep use it in Node) against a tiny test hub over a real listening server.

import { afterEach, describe, expect, it } from 'bun:test';
import { HttpTransportType, type HubConnection as ClientConnection, HubConnectionBuilder, type ILogger, LogLevel } from '@microsoft/signalr';
import type { HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { waitFor } from '../../support/app.ts';
import { startHubServer, type HubServer, type HubServerOptions } from '../../support/hub-server.ts';

/** Slow waits until the test releases it; `slowEntered` says it is waiting. */
let release: () => void = () => {};
let slowEntered = false;

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
      await new Promise<void>((r) => {
        release = r;
        slowEntered = true;
      });
      c.send('Slowed', args);
      return { ok: true };
    },
  },
};

let h: HubServer;
const clients: ClientConnection[] = [];

async function serve(opts: Partial<HubServerOptions> = {}): Promise<HubServer> {
  h = await startHubServer({ hubs: [testHub], ...opts });
  return h;
}

/** Trace lines of the client, to see what it received. */
function captureLogger(lines: string[]): ILogger {
  return { log: (_level, message) => lines.push(message) };
}

function client(opts: { url?: string; skipNegotiation?: boolean; token?: string | null; reconnect?: boolean; lines?: string[] } = {}): ClientConnection {
  const token = opts.token === undefined ? h.token : opts.token;
  const b = new HubConnectionBuilder()
    .withUrl(opts.url ?? `${h.baseUrl}/hubs/test`, {
      skipNegotiation: opts.skipNegotiation ?? true,
      transport: HttpTransportType.WebSockets,
      accessTokenFactory: token === null ? undefined : () => token,
      logMessageContent: true,
    })
    .configureLogging(opts.lines ? captureLogger(opts.lines) : LogLevel.None);
  if (opts.reconnect) b.withAutomaticReconnect([0, 20, 100, 500, 1000]);
  const c = b.build();
  clients.push(c);
  return c;
}

/** Events `name` received by `c`, as argument lists. */
function events(c: ClientConnection, name: string): unknown[][] {
  const got: unknown[][] = [];
  c.on(name, (...args: unknown[]) => {
    got.push(args);
  });
  return got;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop().catch(() => {});
  await h?.stop();
});

describe('connecting with the official client', () => {
  it.each([
    ['direct WebSocket (skipNegotiation)', true],
    ['negotiate first', false],
  ])('%s: events and every kind of completion', async (_, skipNegotiation) => {
    await serve();
    const c = client({ skipNegotiation });
    const echoed = events(c, 'Echoed');
    const slowed = events(c, 'Slowed');
    await c.start();
    await c.invoke('Echo', 1, 'x');
    expect(echoed).toEqual([[1, 'x']]);
    await expect(c.invoke('Fail')).rejects.toThrow(/^Account not found$/);
    await expect(c.invoke('Throw')).rejects.toThrow(/^An unexpected error occurred invoking 'Throw' on the server\.$/);
    await expect(c.invoke('Nope', 1)).rejects.toThrow(
      /^Failed to invoke 'Nope' due to an error on the server\. HubException: Method does not exist\.$/,
    );
    // Still usable after the errors; a slow method completes when it finishes.
    slowEntered = false;
    const slow = c.invoke('Slow', 2);
    await waitFor(() => slowEntered);
    expect(slowed).toEqual([]);
    release();
    await slow;
    expect(slowed).toEqual([[2]]);
    await c.send('Echo', 'fire-and-forget');
    await waitFor(() => echoed.length === 2);
    expect(echoed[1]).toEqual(['fire-and-forget']);
    if (skipNegotiation) {
      expect(h.requests.map((r) => r.method)).toEqual(['GET']);
    } else {
      expect(h.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['POST /hubs/test/negotiate', 'GET /hubs/test']);
      expect(h.requests[0].url).toContain('negotiateVersion=1');
      expect(h.requests[1].url).toMatch(/[?&]id=/);
    }
  });

  it('the Node client sends the token only as Authorization: Bearer', async () => {
    await serve();
    const c = client();
    await c.start();
    expect(h.requests).toEqual([{ method: 'GET', url: '/hubs/test', authorization: `Bearer ${h.token}` }]);
    await c.invoke('Echo');
  });

  it.each([true, false])('a token only in the URL (?access_token=, no factory) is accepted (skipNegotiation %p)', async (skipNegotiation) => {
    await serve();
    const c = client({ url: `${h.baseUrl}/hubs/test?access_token=${h.token}`, token: null, skipNegotiation });
    await c.start();
    await c.invoke('Echo');
    expect(h.requests.every((r) => r.authorization === null && r.url.includes(`access_token=${h.token}`))).toBe(true);
  });

  it.each([true, false])('a bad token is refused (skipNegotiation %p)', async (skipNegotiation) => {
    await serve();
    const c = client({ token: 'not-a-token', skipNegotiation });
    await expect(c.start()).rejects.toThrow();
    expect(h.transport.connections()).toHaveLength(0);
  });
});

describe('keep-alive, reconnect and closing', () => {
  it('the server pings an idle client', async () => {
    await serve({ keepAliveMs: 50 });
    const lines: string[] = [];
    const c = client({ lines });
    await c.start();
    const pings = () => lines.filter((l) => l.includes('data received') && l.includes('{"type":6}')).length;
    await waitFor(() => pings() >= 2);
  });

  it('reconnects after the server closes with allowReconnect, and methods work again', async () => {
    await serve();
    const c = client({ reconnect: true });
    const echoed = events(c, 'Echoed');
    let reconnected = 0;
    c.onreconnected(() => {
      reconnected++;
    });
    await c.start();
    const first = h.transport.connections()[0];
    first.close(undefined, true);
    await waitFor(() => reconnected === 1);
    expect(h.transport.connections().map((x) => x.id)).not.toContain(first.id);
    await c.invoke('Echo', 'again');
    expect(echoed).toEqual([['again']]);
  });

  it('closeWhere: the client sees the error and does not reconnect', async () => {
    await serve();
    const c = client({ reconnect: true });
    let reconnecting = 0;
    c.onreconnecting(() => {
      reconnecting++;
    });
    const closed = new Promise<Error | undefined>((resolve) => c.onclose(resolve));
    await c.start();
    expect(h.transport.closeWhere((x) => x.principal.user.email === h.t.email, 'Connection closed: logged out.')).toBe(1);
    expect((await closed)?.message).toBe('Server returned an error on close: Connection closed: logged out.');
    expect(reconnecting).toBe(0);
  });

  it('closes when the token expires (service clock moved past expiresMs), without reconnect', async () => {
    await serve({ revalidateEveryMs: 100 });
    const c = client({ reconnect: true });
    const closed = new Promise<Error | undefined>((resolve) => c.onclose(resolve));
    await c.start();
    await c.invoke('Echo');
    h.t.clock.advance(25 * 3600_000);
    expect((await closed)?.message).toBe('Server returned an error on close: Connection closed: the access token expired.');
  });

  it('closes when revalidation fails (logout, key rotation elsewhere), without reconnect', async () => {
    let valid = true;
    let asked = 0;
    await serve({
      revalidateEveryMs: 40,
      revalidate: () => {
        asked++;
        return valid;
      },
    });
    const c = client({ reconnect: true });
    const closed = new Promise<Error | undefined>((resolve) => c.onclose(resolve));
    await c.start();
    await waitFor(() => asked >= 1);
    await c.invoke('Echo');
    valid = false;
    expect((await closed)?.message).toBe('Server returned an error on close: Connection closed: the access token is no longer valid.');
  });
});

describe('measurement hook (bench/hubs.bench.ts)', () => {
  it('onFrameWritten: each message carrying events gives their queue times and its write time; completions alone are not timed', async () => {
    const frames: { queued: number[]; written: number; connectionId: string }[] = [];
    await serve({ onFrameWritten: (queued, written, conn) => frames.push({ queued: [...queued], written, connectionId: conn.id }) });
    const c = client();
    const echoed = events(c, 'Echoed');
    await c.start();
    await expect(c.invoke('Fail')).rejects.toThrow(/^Account not found$/);
    expect(frames).toEqual([]); // handshake and completion: no event, nothing timed
    const before = performance.now();
    await c.invoke('Echo', 1); // the event and the completion leave in one message
    const after = performance.now();
    expect(echoed).toEqual([[1]]);
    expect(frames).toHaveLength(1);
    expect(frames[0].queued).toHaveLength(1);
    expect(frames[0].connectionId).toBe(h.transport.connections()[0].id);
    expect(before <= frames[0].queued[0] && frames[0].queued[0] <= frames[0].written && frames[0].written <= after).toBe(true);
    // Fire-and-forget: the event waits for the frame timer, then goes out alone.
    await c.send('Echo', 'x');
    await waitFor(() => echoed.length === 2);
    await waitFor(() => frames.length === 2);
    expect(frames[1].queued).toHaveLength(1);
    expect(frames[1].written).toBeGreaterThanOrEqual(frames[1].queued[0]);
  });
});
