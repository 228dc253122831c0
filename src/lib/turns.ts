// Sliced work (a long History scan, a long answer's encoding) gives the event loop back between its
// slices. Each slice waits its turn here, oldest first: a turn of the loop (setImmediate; an immediate
// queued from another runs in the next turn, after pending I/O and timers) lets waiters through until
// `turnBudgetMs` has passed since it began, then the rest wait for the next turn. With a bare
// setImmediate per slice, every reader waiting resumed in the same turn, so four readers' slices ran
// back to back before any other request was read (issue 32).

export class TurnQueue {
  private waiting: (() => void)[] = [];
  private armed = false;
  private turnStartMs = -Infinity;

  constructor(
    private readonly turnBudgetMs: number,
    private readonly monoMs: () => number = () => performance.now(),
  ) {}

  /** Resolves when this waiter's turn comes: in this turn while its budget lasts, else a later one. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.monoMs() - this.turnStartMs < this.turnBudgetMs) (this.waiting.shift() as () => void)();
      if (this.waiting.length > 0) this.arm();
    });
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.armed = false;
    this.turnStartMs = this.monoMs();
    const resolve = this.waiting.shift();
    if (this.waiting.length > 0) this.arm();
    resolve?.();
  };
}
