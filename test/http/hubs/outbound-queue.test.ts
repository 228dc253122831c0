// The per-connection queue: coalescing keeps everything else in order, and replaced records never
// pile up while nothing is written (a client that stopped reading, subscribed to quotes only).
import { describe, expect, it } from 'bun:test';
import { OutboundQueue } from '../../../src/http/hubs/signalr/outbound-queue.ts';

describe('OutboundQueue', () => {
  it('a newer record of a key replaces the older one still queued, which leaves its place; others keep order', () => {
    const q = new OutboundQueue();
    q.push('q1', 'q');
    q.push('o1');
    q.push('q2', 'q');
    q.push('o2');
    expect(q.takeFrame(1024)).toBe('o1q2o2');
    expect(q.empty).toBe(true);
  });

  it('100,000 quotes replacing each other while nothing is taken hold a bounded number of slots', () => {
    const q = new OutboundQueue();
    q.push('order');
    for (let i = 0; i < 100_000; i++) q.push(`quote ${i}`, 'q:NQ');
    expect(q.length).toBeLessThan(200);
    expect(q.bytes).toBe('order'.length + 'quote 99999'.length);
    expect(q.takeFrame(1 << 20)).toBe('orderquote 99999');
    // Replacing after a compaction still drops the right record.
    q.push('a', 'k');
    for (let i = 0; i < 500; i++) q.push(`x${i}`, 'q');
    q.push('b', 'k');
    expect(q.takeFrame(1 << 20)).toBe('x499b');
  });
});
