// Counting the bars of a timeframe over a time range without aggregating them: a replay session's
// `totalBars` and the index moves of a jump. Imported days are counted from their time column;
// synthetic days are counted from the trading hours alone (the generator fills every open slot),
// so a two-year session does not generate two years of bars to learn its length.

import type { Instrument } from '../domain/instrument.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../domain/timeframe.ts';
import { openIntervalsForUtcDay } from '../domain/trading-hours.ts';
import { lowerBound } from './bar-columns.ts';
import type { BarSource } from './bar-source.ts';

const DAY_S = 86_400;

/** Distinct buckets of `tf` holding at least one stored bar with time in [fromS, toS). */
export function countBuckets(source: BarSource, inst: Instrument, tf: Timeframe, fromS: number, toS: number): number {
  if (toS <= fromS) return 0;
  const firstDay = Math.floor(fromS / DAY_S);
  const lastDay = Math.floor((toS - 1) / DAY_S);
  const stored = source.storedDays(inst, firstDay, lastDay);
  // `boundary` is the end of the last counted bucket: a bar at or after it opens a new bucket.
  let boundary = -Infinity;
  let count = 0;
  for (let day = firstDay; day <= lastDay; day++) {
    const lo = Math.max(fromS, day * DAY_S);
    const hi = Math.min(toS, (day + 1) * DAY_S);
    if (stored.has(day)) {
      const bars = source.day(inst, day);
      const time = bars.time;
      const end = lowerBound(time, bars.length, hi);
      for (let i = lowerBound(time, bars.length, lo); i < end; i++) {
        if (time[i] >= boundary) {
          count++;
          boundary = nextBucketStart(tf, time[i]);
        }
      }
    } else if (source.inSyntheticSpan(day)) {
      const r = inst.storedResolutionS;
      for (const [a0, b0] of openIntervalsForUtcDay(inst.session, day)) {
        const a = a0 + Math.max(0, Math.ceil((lo - a0) / r)) * r;
        const b = Math.min(b0, hi);
        if (a >= b) continue;
        const lastSlot = a + Math.floor((b - 1 - a) / r) * r;
        const first = Math.max(a, boundary);
        if (first > lastSlot) continue;
        const firstBucket = bucketStart(tf, first);
        const lastBucket = bucketStart(tf, lastSlot);
        count += bucketsBetween(tf, firstBucket, lastBucket);
        boundary = nextBucketStart(tf, lastBucket);
      }
    }
  }
  return count;
}

/** Buckets from the one starting at `a` to the one starting at `b`, both included. */
function bucketsBetween(tf: Timeframe, a: number, b: number): number {
  if (tf.kind === 'fixed') return (b - a) / tf.widthS + 1;
  let n = 1;
  for (let s = a; s < b; s = nextBucketStart(tf, s)) n++;
  return n;
}
