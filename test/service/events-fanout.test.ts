// The deferred fan-out of a call's events (service/events/fanout.ts): nothing leaves during the call,
// batches and their events leave in order, each to every subscriber, in slices that let other work
// run between them, and work queued with `after` waits for the events before it.

import { describe, expect, it } from 'bun:test';
import { LocalEventBus } from '../../src/service/events/bus.ts';
import { DeferredFanout } from '../../src/service/events/fanout.ts';

type Ev = { topic: string; n: number };
const turn = () => new Promise<void>((r) => setImmediate(r));

/** A bus with `subscribers` handlers on topic `t`, each recording what it got; a clock that moves 1 ms a reading. */
function setup(subscribers: number, sliceMs: number, queuedMax?: number) {
  const bus = new LocalEventBus<Ev>();
  const got: number[][] = Array.from({ length: subscribers }, () => []);
  for (const list of got) bus.subscribe('t', (e) => list.push(e.n));
  let now = 0;
  const errors: unknown[] = [];
  const fanout = new DeferredFanout(bus, sliceMs, (e) => errors.push(e), () => now++, queuedMax);
  const settled = () => new Promise<void>((r) => fanout.after(r));
  return { got, fanout, errors, settled };
}

const batch = (from: number, count: number): Ev[] => Array.from({ length: count }, (_, k) => ({ topic: 't', n: from + k }));

describe('deferred fan-out of replay events', () => {
  it('publishes nothing during the call; afterwards every subscriber gets every event, in order', async () => {
    const { got, fanout, settled } = setup(20, 1000);
    fanout.add(batch(0, 100));
    fanout.add(batch(100, 100));
    expect(got.every((l) => l.length === 0)).toBe(true);
    expect(fanout.idle).toBe(false);
    await settled();
    const all = Array.from({ length: 200 }, (_, k) => k);
    for (const list of got) expect(list).toEqual(all);
    expect(fanout.idle).toBe(true);
  });

  it('is bounded: past the bound a call publishes the queue down to it before its own events wait, and order holds', async () => {
    const { got, fanout, settled } = setup(3, 1000, 50);
    fanout.add(batch(0, 30));
    expect(got[0]).toEqual([]);
    // 30 waiting + 30 more is over 50: the first 10 go out now, so 50 wait.
    fanout.add(batch(30, 30));
    expect(got[0]).toEqual(batch(0, 10).map((e) => e.n));
    fanout.add(batch(60, 30));
    expect(got[0]).toEqual(batch(0, 40).map((e) => e.n));
    await settled();
    for (const list of got) expect(list).toEqual(batch(0, 90).map((e) => e.n));
    expect(fanout.idle).toBe(true);
  });

  it('delivers in bounded slices: other work runs between them, and order holds across them', async () => {
    // The clock moves 1 ms a reading: a slice of 3 ms takes a few events, then yields the turn.
    const { got, fanout, settled } = setup(2, 3);
    const seenBetween: number[] = [];
    fanout.add(batch(0, 30));
    const between = (async () => {
      for (let k = 0; k < 5; k++) {
        await turn();
        seenBetween.push(got[0].length);
      }
    })();
    await Promise.all([settled(), between]);
    expect(got[0]).toEqual(batch(0, 30).map((e) => e.n));
    expect(got[1]).toEqual(got[0]);
    // Other work saw the fan-out part-way: some events delivered, not all.
    expect(seenBetween.some((n) => n > 0 && n < 30)).toBe(true);
  });

  it('work queued with after() runs once the events queued before it are out, and at once when idle', async () => {
    const { got, fanout, settled } = setup(1, 2);
    let ranAtOnce = false;
    fanout.after(() => (ranAtOnce = true));
    expect(ranAtOnce).toBe(true);
    fanout.add(batch(0, 10));
    const seenByAfter: number[] = [];
    fanout.after(() => seenByAfter.push(got[0].length));
    fanout.add(batch(10, 10));
    await settled();
    expect(seenByAfter).toEqual([10]);
    expect(got[0]).toEqual(batch(0, 20).map((e) => e.n));
  });

  it("a failing subscriber or after() is reported and does not stop the others' events", async () => {
    const { got, fanout, errors, settled } = setup(1, 1000);
    fanout.after(() => {}); // idle: runs at once
    fanout.add(batch(0, 3));
    fanout.after(() => {
      throw new Error('boom');
    });
    fanout.add(batch(3, 3));
    await settled();
    expect(got[0]).toEqual([0, 1, 2, 3, 4, 5]);
    expect(errors.map(String)).toEqual(['Error: boom']);
  });

  it('while an event is published, says when its batch was queued (the frame-latency measure counts from there)', async () => {
    const bus = new LocalEventBus<Ev>();
    let now = 100;
    const fanout = new DeferredFanout(bus, 1000, () => {}, () => now);
    const seen: (number | undefined)[] = [];
    bus.subscribe('t', () => seen.push(fanout.publishingSinceMs));
    fanout.add(batch(0, 2));
    now = 200;
    fanout.add(batch(2, 1));
    now = 300;
    await new Promise<void>((r) => fanout.after(r));
    expect(seen).toEqual([100, 100, 200]);
    expect(fanout.publishingSinceMs).toBeUndefined();
  });

  it('publishNow: at once when nothing waits (up to a slice, the rest queued in order), else after what waits', async () => {
    const { got, fanout, settled } = setup(1, 3);
    fanout.publishNow(batch(0, 2));
    expect(got[0]).toEqual([0, 1]);
    // The clock moves 1 ms a reading: the slice of 3 ms ends part-way, the rest follows in a later turn.
    fanout.publishNow(batch(2, 10));
    expect(got[0].length).toBeGreaterThan(2);
    expect(got[0].length).toBeLessThan(12);
    fanout.publishNow(batch(12, 2)); // something waits: queued behind it
    const before = got[0].length;
    expect(before).toBeLessThan(12);
    await settled();
    expect(got[0]).toEqual(batch(0, 14).map((e) => e.n));
  });
});
