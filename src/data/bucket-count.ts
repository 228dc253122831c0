// Counting the bars of a timeframe over a time range without aggregating them: a replay session's
// `totalBars`, its chart history, and the index moves of a jump. Imported days are counted from
// their time column; synthetic days from the trading hours alone (the generator fills every open
// slot), so a two-year session does not generate two years of bars to learn its length.

import type { Instrument } from '../domain/instrument.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../domain/timeframe.ts';
import { openIntervalsForUtcDay } from '../domain/trading-hours.ts';
import { DAY_S } from '../lib/time-units.ts';
import { lowerBound } from './bar-columns.ts';
import type { BarSource } from './bar-source.ts';

/** Counts the buckets of `tf` that bars fed in time order fall into, across any number of calls. */
export class BucketCounter {
  total = 0;
  /** End of the last bucket counted: a bar at or after it opens a new one. */
  private boundary = -Infinity;

  constructor(private readonly tf: Timeframe) {}

  /** Bars time[from..to). */
  count(time: Uint32Array, from: number, to: number): void {
    let boundary = this.boundary;
    let n = 0;
    for (let i = from; i < to; i++) {
      if (time[i] >= boundary) {
        n++;
        boundary = nextBucketStart(this.tf, time[i]);
      }
    }
    this.boundary = boundary;
    this.total += n;
  }

  /** A bar in every slot from `firstS` to `lastS` (both included): only the buckets' ends matter. */
  countSpan(firstS: number, lastS: number): void {
    const first = Math.max(firstS, this.boundary);
    if (first > lastS) return;
    const a = bucketStart(this.tf, first);
    const b = bucketStart(this.tf, lastS);
    if (this.tf.kind === 'fixed') this.total += (b - a) / this.tf.widthS + 1;
    else for (let s = a; s <= b; s = nextBucketStart(this.tf, s)) this.total++;
    this.boundary = nextBucketStart(this.tf, b);
  }
}

/** Distinct buckets of `tf` holding at least one stored bar with time in [fromS, toS). */
export function countBuckets(source: BarSource, inst: Instrument, tf: Timeframe, fromS: number, toS: number): number {
  if (toS <= fromS) return 0;
  const firstDay = Math.floor(fromS / DAY_S);
  const lastDay = Math.floor((toS - 1) / DAY_S);
  const stored = source.storedDays(inst, firstDay, lastDay);
  const counter = new BucketCounter(tf);
  const r = inst.storedResolutionS;
  for (let day = firstDay; day <= lastDay; day++) {
    const lo = Math.max(fromS, day * DAY_S);
    const hi = Math.min(toS, (day + 1) * DAY_S);
    if (stored.has(day)) {
      const bars = source.day(inst, day);
      counter.count(bars.time, lowerBound(bars.time, bars.length, lo), lowerBound(bars.time, bars.length, hi));
    } else if (source.inSyntheticSpan(day)) {
      for (const [a0, b0] of openIntervalsForUtcDay(inst.session, day)) {
        const a = a0 + Math.max(0, Math.ceil((lo - a0) / r)) * r;
        const b = Math.min(b0, hi);
        if (a < b) counter.countSpan(a, a + Math.floor((b - 1 - a) / r) * r);
      }
    }
  }
  return counter.total;
}

/**
 * Distinct buckets of `tf` in which at least one of `insts` has a stored bar with time in
 * [fromS, toS): the clock of a session over several instruments. Each day's bars (a run per
 * imported bar, a run per open interval of a synthetic day) are counted in order of their start,
 * so a bucket two instruments share counts once.
 */
export function countUnionBuckets(source: BarSource, insts: readonly Instrument[], tf: Timeframe, fromS: number, toS: number): number {
  if (insts.length === 1) return countBuckets(source, insts[0], tf, fromS, toS);
  if (toS <= fromS) return 0;
  const firstDay = Math.floor(fromS / DAY_S);
  const lastDay = Math.floor((toS - 1) / DAY_S);
  const stored = insts.map((inst) => source.storedDays(inst, firstDay, lastDay));
  const counter = new BucketCounter(tf);
  const runs: number[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const lo = Math.max(fromS, day * DAY_S);
    const hi = Math.min(toS, (day + 1) * DAY_S);
    runs.length = 0;
    insts.forEach((inst, k) => dayRuns(source, inst, stored[k].has(day), day, lo, hi, runs));
    const order = Array.from({ length: runs.length / 2 }, (_, i) => i).sort((a, b) => runs[2 * a] - runs[2 * b]);
    for (const i of order) counter.countSpan(runs[2 * i], runs[2 * i + 1]);
  }
  return counter.total;
}

/** Appends [first, last] bar-time pairs of one instrument's bars in [lo, hi) of `day` to `runs`. */
function dayRuns(source: BarSource, inst: Instrument, isStored: boolean, day: number, lo: number, hi: number, runs: number[]): void {
  if (isStored) {
    const bars = source.day(inst, day);
    const b = lowerBound(bars.time, bars.length, hi);
    for (let i = lowerBound(bars.time, bars.length, lo); i < b; i++) runs.push(bars.time[i], bars.time[i]);
    return;
  }
  if (!source.inSyntheticSpan(day)) return;
  const r = inst.storedResolutionS;
  for (const [a0, b0] of openIntervalsForUtcDay(inst.session, day)) {
    const a = a0 + Math.max(0, Math.ceil((lo - a0) / r)) * r;
    const b = Math.min(b0, hi);
    if (a < b) runs.push(a, a + Math.floor((b - 1 - a) / r) * r);
  }
}
