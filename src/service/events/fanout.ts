// Deferred fan-out of a call's events (issue 32, latency): a committed call hands its events over as
// one batch, which is delivered to the bus after the call has answered (setImmediate: the next turn
// of the event loop, so the HTTP answer is written first) and in bounded slices (once a slice has
// taken `sliceMs`, the rest waits for the next turn, so a burst to many subscribers never holds the
// loop much longer than a slice). Batches and the events in them leave in the order they were added,
// each event to all of its subscribers before the next one (bus.ts), so every subscriber still sees
// every event of its topics in order; work that must come after the events already queued (a new
// subscription's current quote) waits its turn in the same line (`after`). A batch is only ever added
// after its call's commit (replay/commands.ts), so no event leaves before the change it reports is stored.
// Bounded: past `queuedMax` events waiting, `add` first publishes the queue down to the bound, so a
// producer faster than the loop is held back (its answer waits) instead of the queue growing for ever.

import { asError } from '../../lib/thrown.ts';
import type { EventBus } from './bus.ts';

type Item<E> = { events: readonly E[]; next: number; atMs: number } | { run: () => void };

export class DeferredFanout<E extends { topic: string }> {
  private items: Item<E>[] = [];
  private head = 0;
  /** Events added and not yet published. */
  private queued = 0;
  private armed = false;
  /** While an event is being published: when its batch was queued (for the hubs' frame-latency measure). */
  publishingSinceMs: number | undefined = undefined;

  constructor(
    private readonly bus: EventBus<E>,
    private readonly sliceMs: number,
    private readonly onError: (error: Error) => void = () => {},
    private readonly monoMs: () => number = () => performance.now(),
    private readonly queuedMax = Number.POSITIVE_INFINITY,
  ) {}

  /** Queues one call's events, in order, to be published after what is already queued (down to the bound first). */
  add(events: readonly E[]): void {
    if (events.length === 0) return;
    // Not from inside a publication (a handler's own call): that event's remaining subscribers come first.
    while (this.queued + events.length > this.queuedMax && !this.idle && this.publishingSinceMs === undefined) this.publishNext();
    this.items.push({ events, next: 0, atMs: this.monoMs() });
    this.queued += events.length;
    this.arm();
  }

  /**
   * Publishes `events` at once when nothing waits (up to a slice; the rest is queued), else queues
   * them: for events no answer waits to go first (a playing session's ticks), which a turn's wait would only delay.
   */
  publishNow(events: readonly E[]): void {
    if (!this.idle) return this.add(events);
    const startMs = this.monoMs();
    for (let k = 0; k < events.length; k++) {
      this.publishingSinceMs = startMs;
      this.attempt(() => this.bus.publish(events[k]));
      this.publishingSinceMs = undefined;
      if (k + 1 < events.length && this.monoMs() - startMs >= this.sliceMs) return this.add(events.slice(k + 1));
    }
  }

  /** Runs `fn` once everything queued before it has been published (at once when nothing is). */
  after(fn: () => void): void {
    if (this.idle) return fn();
    this.items.push({ run: fn });
    this.arm();
  }

  /** Nothing is waiting to be published. */
  get idle(): boolean {
    return this.head === this.items.length;
  }

  /** One run of the queue per turn at most. */
  private arm(): void {
    if (!this.armed) setImmediate(this.run);
    this.armed = true;
  }

  private readonly run = (): void => {
    this.armed = false;
    const startMs = this.monoMs();
    while (this.head < this.items.length) {
      this.publishNext();
      if (this.monoMs() - startMs >= this.sliceMs) break;
    }
    if (this.idle) {
      this.items = [];
      this.head = 0;
      return;
    }
    if (this.head > 64) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.arm(); // the rest in the next turn: requests and timers due meanwhile run first
  };

  /** Publishes the queue's next event (or runs its next `after` work). */
  private publishNext(): void {
    const item = this.items[this.head];
    if ('run' in item) {
      this.head++;
      return this.attempt(item.run);
    }
    const e = item.events[item.next++];
    if (item.next === item.events.length) this.head++;
    this.queued--;
    this.publishingSinceMs = item.atMs;
    this.attempt(() => this.bus.publish(e));
    this.publishingSinceMs = undefined;
  }

  private attempt(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.onError(asError(e)); // one subscriber's failure is its own (the bus already isolates handlers)
    }
  }
}
