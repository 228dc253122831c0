// Sliced work takes turns (issue 32): a turn of the event loop lets waiters through, oldest first,
// until its budget is spent; the rest wait for the next turn, so other callbacks (I/O, timers,
// immediates queued meanwhile) run between, however many pieces of sliced work wait.

import { describe, expect, it } from 'bun:test';
import { TurnQueue } from '../../src/lib/turns.ts';

describe('TurnQueue', () => {
  it('with no budget, lets one waiter through per turn, oldest first, with the turn\'s other callbacks in between', async () => {
    const q = new TurnQueue(0);
    const order: string[] = [];
    const a = q.next().then(() => order.push('a'));
    const b = q.next().then(() => order.push('b'));
    const c = q.next().then(() => order.push('c'));
    setImmediate(() => order.push('other'));
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'other', 'b', 'c']);
  });

  it('a timer due meanwhile runs between two waiters once the turn\'s budget is spent', async () => {
    const q = new TurnQueue(2);
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

describe('TurnQueue with a budget', () => {
  it('lets the next waiter through in the same turn while the budget lasts, not after', async () => {
    let now = 0;
    const q = new TurnQueue(4, () => now);
    const order: string[] = [];
    // Two slices of 3 ms each on the queue's clock: a slice that ends within a turn's 4 ms lets the
    // oldest waiter through at once; one that ends past it waits for the next turn, as the rest do.
    const worker = async (name: string) => {
      await q.next();
      order.push(name);
      now += 3;
      await q.next();
      order.push(`${name}2`);
      now += 3;
    };
    const done = Promise.all(['a', 'b', 'c'].map(worker));
    setImmediate(() => order.push('other'));
    await done;
    expect(order).toEqual(['a', 'b', 'other', 'c', 'a2', 'b2', 'c2']);
  });
});
