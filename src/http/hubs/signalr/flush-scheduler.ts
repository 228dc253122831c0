// When hub events leave: one scheduler for every connection of a transport, instead of a frame timer
// per connection. A connection with events queued asks to be flushed (`due`); the scheduler writes
// the connections that asked, oldest first, at the end of the event-loop turn (setImmediate: after
// the timers and I/O callbacks of this turn, so everything a turn published shares one WebSocket
// message per connection), or `intervalMs` later when that is above 0. It writes in slices: once a
// slice has taken `sliceMs`, the connections still waiting go on in the next turn, so a publish to
// hundreds of connections never holds the loop for more than about a slice (plus one connection's
// write, itself at most a queue's bound in frames of `frameBytesMax`).

/** A connection's writer as the scheduler sees it. */
export interface Flushable {
  /** Set by the scheduler while the writer waits in its list (so it is listed once). */
  flushDue: boolean;
  flush(): void;
}

export class FlushScheduler {
  private due: Flushable[] = [];
  private next = 0;
  private armed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly sliceMs: number,
    private readonly monoMs: () => number = () => performance.now(),
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  /** `w` has events to write: it is written at the next flush (once, however often it asks). */
  add(w: Flushable): void {
    if (w.flushDue) return;
    w.flushDue = true;
    this.due.push(w);
    if (this.armed) return;
    this.armed = true;
    if (this.intervalMs > 0) setTimeout(this.run, this.intervalMs);
    else setImmediate(this.run);
  }

  /** Writers waiting (for tests and the bench's introspection). */
  get waiting(): number {
    return this.due.length - this.next;
  }

  private readonly run = (): void => {
    this.armed = false;
    const startMs = this.monoMs();
    while (this.next < this.due.length) {
      const w = this.due[this.next++];
      w.flushDue = false;
      try {
        w.flush();
      } catch (e) {
        this.onError(e); // one writer's failure is its own: the others are still written
      }
      if (this.monoMs() - startMs >= this.sliceMs) break;
    }
    if (this.next === this.due.length) {
      this.due = [];
      this.next = 0;
      return;
    }
    // The rest in the next turn: requests and timers due meanwhile run first.
    this.due = this.due.slice(this.next);
    this.next = 0;
    this.armed = true;
    setImmediate(this.run);
  };
}
