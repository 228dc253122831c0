// When hub events leave (issue 32): one flush scheduler per transport writes every connection's
// queued events at the end of the event-loop turn that sent them, oldest first, in slices bounded in
// time, the rest in later turns; a connection asks as often as it likes and is written once.

import { afterEach, describe, expect, it } from 'bun:test';
import { FlushScheduler, type Flushable } from '../../../src/http/hubs/signalr/flush-scheduler.ts';
import type { HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { RawHubClient } from '../../support/hub-raw.ts';
import { waitFor } from '../../support/app.ts';

const turn = () => new Promise<void>((r) => setImmediate(r));

function writer(name: string, log: string[], onFlush?: () => void): Flushable {
  return {
    flushDue: false,
    flush() {
      log.push(name);
      onFlush?.();
    },
  };
}

describe('flush scheduler', () => {
  it('writes each writer once, oldest first, at the end of the turn', async () => {
    const log: string[] = [];
    const f = new FlushScheduler(0, 1_000);
    const [a, b] = [writer('a', log), writer('b', log)];
    f.add(a);
    f.add(b);
    f.add(a);
    expect(log).toEqual([]);
    await turn();
    expect(log).toEqual(['a', 'b']);
    expect(f.waiting).toBe(0);
    f.add(b);
    await turn();
    expect(log).toEqual(['a', 'b', 'b']);
  });

  it('stops a slice once it took sliceMs; the writers left go on in the next turns', async () => {
    let now = 0;
    const log: string[] = [];
    // Each write "takes" 1 ms on the scheduler's clock; a slice is 2 ms.
    const f = new FlushScheduler(0, 2, () => now);
    const ws = ['a', 'b', 'c', 'd', 'e'].map((n) => writer(n, log, () => (now += 1)));
    for (const w of ws) f.add(w);
    await turn();
    expect(log).toEqual(['a', 'b']);
    expect(f.waiting).toBe(3);
    f.add(ws[0]); // asks again meanwhile: after those already waiting
    f.add(ws[2]); // already waiting: not listed twice
    await turn();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    await turn();
    expect(log).toEqual(['a', 'b', 'c', 'd', 'e', 'a']);
    expect(f.waiting).toBe(0);
  });
});

describe('the transport with the default frame interval (0)', () => {
  let h: HubServer | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('an event sent outside an invocation is written by the end of the turn that sent it, with the rest of that turn', async () => {
    const hub: HubDefinition = { path: '/hubs/test', methods: {} };
    const written: number[] = [];
    h = await startHubServer({ hubs: [hub], onFrameWritten: (queued) => written.push(queued.length) });
    const c = await RawHubClient.open(`${h.baseUrl}/hubs/test?access_token=${h.token}`, { handshake: true });
    await waitFor(() => h!.transport.connections().length === 1);
    const conn = h.transport.connections()[0];
    conn.send('Tick', [1]);
    conn.send('Tick', [2]);
    await turn();
    expect(written).toEqual([2]); // one WebSocket message for both, already handed to the socket
    await c.waitForText((t) => t.includes('"arguments":[2]'));
    expect(c.messagesSent).toEqual([
      { type: 1, target: 'Tick', arguments: [1] },
      { type: 1, target: 'Tick', arguments: [2] },
    ]);
    c.close();
  });
});

describe('flush scheduler, a writer that throws', () => {
  it('is reported, and the writers after it are still written', async () => {
    const log: string[] = [];
    const errors: string[] = [];
    const f = new FlushScheduler(0, 1_000, undefined, (e) => errors.push(String(e)));
    f.add(writer('bad', log, () => {
      throw new Error('boom');
    }));
    f.add(writer('after', log));
    await turn();
    expect(log).toEqual(['bad', 'after']);
    expect(errors).toEqual(['Error: boom']);
    expect(f.waiting).toBe(0);
  });
});
