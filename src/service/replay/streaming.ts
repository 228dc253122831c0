// The spec's Replay/step limits whose numbers it leaves to us: a per-second egress rate and a
// daily streaming allowance, both counted in bars returned, per user. In memory, on one SQLite node:
// a restart forgives the day's usage; a cluster keeps the day in the store (streaming-budget.ts).

import { limits } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { secondsToUtcMidnight } from '../../lib/iso-time.ts';

export type AllowanceRefusal = { kind: 'streaming_rate'; retryAfterS: number } | { kind: 'streaming_daily'; retryAfterS: number };

interface Usage {
  second: number;
  secondBars: number;
  day: number;
  dayBars: number;
}

export class StreamingAllowance {
  private readonly usage = new Map<number, Usage>();

  constructor(private readonly clock: Clock) {}

  /** Counts `bars` for the user; null when allowed, else why not (nothing is counted then). */
  take(userId: number, bars: number): AllowanceRefusal | null {
    const nowMs = this.clock.nowMs();
    const second = Math.floor(nowMs / 1000);
    const day = Math.floor(nowMs / 86_400_000);
    let u = this.usage.get(userId);
    if (!u) {
      u = { second, secondBars: 0, day, dayBars: 0 };
      this.usage.set(userId, u);
    }
    if (u.second !== second) {
      u.second = second;
      u.secondBars = 0;
    }
    if (u.day !== day) {
      u.day = day;
      u.dayBars = 0;
    }
    if (u.dayBars + bars > limits.streamBarsPerDayMax) return { kind: 'streaming_daily', retryAfterS: secondsToUtcMidnight(nowMs) };
    if (u.secondBars + bars > limits.streamBarsPerSecondMax) return { kind: 'streaming_rate', retryAfterS: 1 };
    u.secondBars += bars;
    u.dayBars += bars;
    return null;
  }
}
