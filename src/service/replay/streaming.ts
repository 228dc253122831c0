// The spec's Replay/step limits whose numbers it leaves to us: a per-second egress rate and a
// daily streaming allowance, both counted in bars returned, per user. In memory: a restart
// forgives the day's usage (docs/decisions.md).

import { limits } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';

export type Allowance = { ok: true } | { ok: false; retryAfterS: number; message: string };

interface Usage {
  second: number;
  secondBars: number;
  day: number;
  dayBars: number;
}

export class StreamingAllowance {
  private readonly usage = new Map<number, Usage>();

  constructor(private readonly clock: Clock) {}

  take(userId: number, bars: number): Allowance {
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
    if (u.dayBars + bars > limits.streamBarsPerDayMax) {
      const retryAfterS = Math.max(1, Math.ceil(((day + 1) * 86_400_000 - nowMs) / 1000));
      return { ok: false, retryAfterS, message: 'Daily streaming allowance reached. Resets at 00:00 UTC.' };
    }
    if (u.secondBars + bars > limits.streamBarsPerSecondMax) {
      return { ok: false, retryAfterS: 1, message: 'Too many requests' };
    }
    u.secondBars += bars;
    u.dayBars += bars;
    return { ok: true };
  }
}
