// Replay/step's streaming limits behind one asynchronous interface: a per-second egress rate and a
// daily allowance, both in bars returned, per user. On one node both are counted in memory
// (replay/streaming.ts, as before). In a cluster the daily allowance is counted in the store, so a
// user's day holds across nodes; the per-second rate stays per node: it guards this node's egress
// (each node's own CPU and socket), a shared count would cost a store round trip on every step for
// a bound that resets every second, and a balancer spreading a user over N nodes lets at most N
// times the rate through for that second (docs/decisions.md, "Replay").

import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { secondsToUtcMidnight } from '../lib/iso-time.ts';
import type { StreamUsageStore } from '../store/stream-usage.ts';
import { type AllowanceRefusal, StreamingAllowance } from './replay/streaming.ts';

const DAY_MS = 86_400_000;

export interface StreamingBudget {
  /** Counts `bars` for the user; null when allowed, else why not (nothing is counted then). */
  take(userId: number, bars: number): Promise<AllowanceRefusal | null>;
}

export class MemoryStreamingBudget implements StreamingBudget {
  private readonly allowance: StreamingAllowance;

  constructor(clock: Clock) {
    this.allowance = new StreamingAllowance(clock);
  }

  async take(userId: number, bars: number): Promise<AllowanceRefusal | null> {
    return this.allowance.take(userId, bars);
  }
}

/**
 * The day in the store (an atomic check-and-add per user and UTC day), the second on this node. The
 * answers are the in-memory ones: the daily refusal comes first when both apply, and a refused
 * call counts nowhere.
 */
export class SharedStreamingBudget implements StreamingBudget {
  /** Bars per user in the current second on this node (only that second's: earlier ones are dropped). */
  private readonly secondBars = new Map<number, number>();
  private second = -1;
  private sweptDay = -1;

  constructor(
    private readonly store: StreamUsageStore,
    private readonly clock: Clock,
  ) {}

  async take(userId: number, bars: number): Promise<AllowanceRefusal | null> {
    const nowMs = this.clock.nowMs();
    const day = Math.floor(nowMs / DAY_MS);
    if (bars === 0) return null;
    const daily: AllowanceRefusal = { kind: 'streaming_daily', retryAfterS: secondsToUtcMidnight(nowMs) };
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.secondBars.clear();
    }
    const held = this.secondBars.get(userId) ?? 0;
    if (held + bars > limits.streamBarsPerSecondMax) {
      const used = await this.store.get(userId, day);
      return used + bars > limits.streamBarsPerDayMax ? daily : { kind: 'streaming_rate', retryAfterS: 1 };
    }
    // Held for this second while the store answers, so a parallel step of the user sees it.
    this.secondBars.set(userId, held + bars);
    let added = false;
    try {
      await this.sweep(day);
      added = await this.store.addWithin(userId, day, bars, limits.streamBarsPerDayMax);
    } finally {
      // Given back unless the second moved on meanwhile (its count is gone then).
      if (!added && this.second === second) this.secondBars.set(userId, (this.secondBars.get(userId) ?? bars) - bars);
    }
    return added ? null : daily;
  }

  /** The first take of a UTC day on this node drops the past days' rows. */
  private async sweep(day: number): Promise<void> {
    if (day === this.sweptDay) return;
    this.sweptDay = day;
    await this.store.sweepBefore(day);
  }
}
