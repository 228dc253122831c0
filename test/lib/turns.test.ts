// Sliced work takes turns (issue 32): one waiter of the queue is let through per turn of the event
// loop, so other callbacks (I/O, timers, immediates queued meanwhile) run between two slices, however
// many pieces of sliced work wait.

import { describe, expect, it } from 'bun:test';
import { TurnQueue } from '../../src/lib/turns.ts';

describe('TurnQueue', () => {
  it('lets one waiter through per turn, oldest first, with the turn\'s other callbacks in between', async () => {
    const q = new TurnQueue();
    const order: string[] = [];
    const a = q.next().then(() => order.push('a'));
    const b = q.next().then(() => order.push('b'));
    const c = q.next().then(() => order.push('c'));
    setImmediate(() => order.push('other'));
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'other', 'b', 'c']);
  });

  it('a timer due meanwhile runs between two waiters', async () => {
    const q = new TurnQueue();
    const order: string[] = [];
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    await q.next();
    setTimeout(() => order.push('timer'), 1);
    busy(5); // the timer is due by now
    order.push('slice 1');
    await q.next();
    order.push('slice 2');
    expect(order).toEqual(['slice 1', 'timer', 'slice 2']);
  });
});
