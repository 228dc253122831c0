// Sliding-window rate limiter, in memory. Per process: with several server processes behind a
// balancer each would count separately (docs/decisions.md, scale-out).

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private takesSinceSweep = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly keysMax = 100_000,
  ) {}

  /** Counts one call for `key` at `nowMs` when allowed; a refused call is not counted. */
  take(key: string, nowMs: number): RateDecision {
    // Keys of callers who went quiet are dropped every so often, so the map stays bounded.
    if (++this.takesSinceSweep >= 1000 || this.hits.size >= this.keysMax) this.sweep(nowMs);
    const cut = nowMs - this.windowMs;
    let times = this.hits.get(key);
    if (times) {
      while (times.length > 0 && times[0] <= cut) times.shift();
    } else {
      times = [];
      this.hits.set(key, times);
    }
    if (times.length >= this.max) {
      const retryAfterS = Math.max(1, Math.ceil((times[0] + this.windowMs - nowMs) / 1000));
      return { allowed: false, retryAfterS };
    }
    times.push(nowMs);
    return { allowed: true };
  }

  /** Withdraws one call counted for `key` at `stampMs` (a `take` that turned out not to count). */
  release(key: string, stampMs: number): void {
    const times = this.hits.get(key);
    const i = times ? times.lastIndexOf(stampMs) : -1;
    if (times && i >= 0) times.splice(i, 1);
  }

  /** Forgets every call counted for `key`. */
  clear(key: string): void {
    this.hits.delete(key);
  }

  private sweep(nowMs: number): void {
    this.takesSinceSweep = 0;
    const cut = nowMs - this.windowMs;
    for (const [k, times] of this.hits) {
      if (times.length === 0 || times[times.length - 1] <= cut) this.hits.delete(k);
    }
  }
}
