// Sliced work (a long History scan, a long answer's encoding) gives the event loop back between its
// slices. Each slice waits its turn here: one waiter is let through per turn of the loop (setImmediate;
// an immediate queued from another runs in the next turn, after pending I/O and timers), oldest first.
// With a bare setImmediate per slice, every reader waiting resumed in the same turn, so four readers'
// slices ran back to back before any other request was read (issue 32).

export class TurnQueue {
  private waiting: (() => void)[] = [];
  private armed = false;

  /** Resolves in a later turn of the event loop, at most one waiter a turn. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.armed = false;
    const resolve = this.waiting.shift();
    if (this.waiting.length > 0) this.arm();
    resolve?.();
  };
}

/** The process's one queue of sliced work. */
export const slicedWork = new TurnQueue();
