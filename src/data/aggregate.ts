// Aggregation of stored-resolution bars into display timeframes (Replay chart bars, History bars).
//
// The model:
// - A bucket of the timeframe (see domain/timeframe.ts: epoch grid for fixed widths, ISO weeks,
//   UTC months, UTC years) becomes one bar: time = bucket start, open = first open, high = max
//   high, low = min low, close = last close, volume = sum of volumes.
// - Buckets without source bars produce no bar (gaps stay gaps: no flat filler bars).
// - The last bucket may be partial: it is emitted as is (one-shot), or by `flush()` (streaming).
//   The spec's History "trailing partial bar always included" and Replay's growing bar are this.
// - Source bars are sorted by strictly increasing time, within a chunk and across chunks. That is
//   asserted once per chunk, not per bar.
// - Volume is summed exactly in a double and saturates at 2^32 − 1 when written to the Uint32 column.
//
// Speed: the hot loop compares each bar time against the precomputed end of the current bucket
// (an integer compare, no division per bar) and allocates nothing; bucket arithmetic, including the
// calendar math, runs once per output bar. One-shot aggregation is the streaming Aggregator fed one
// chunk, so chunked and one-shot results are identical by construction.

import { coreLimits } from '../core-limits.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../domain/timeframe.ts';
import { assert } from '../lib/assert.ts';
import type { BarColumns } from './bar-columns.ts';

/**
 * Streams source bars (pushed in chunks, typically one stored day at a time) into bars of `tf`,
 * appended to `out` starting at `out.length`. Completed bars are written as soon as a later bucket
 * begins; `flush()` writes the bar still in progress. At most `barsMax` bars are written: once that
 * many are out, `full` is true and `push` consumes nothing more.
 */
export class Aggregator {
  readonly out: BarColumns;
  private readonly tf: Timeframe;
  /** Index in `out` one past the last bar this aggregator may write. */
  private readonly outEnd: number;
  /** Is a bucket in progress (its open, high, low, close, volume below are live)? */
  private inBucket = false;
  private startS = 0;
  /** Exclusive end of the bucket in progress: the next bucket's start. */
  private endS = 0;
  private o = 0;
  private h = 0;
  private l = 0;
  private c = 0;
  private v = 0;
  /** Earliest time the next pushed bar may have (ordering assertion, checked per chunk). */
  private nextTimeMinS = 0;

  constructor(tf: Timeframe, out: BarColumns, barsMax: number = out.time.length - out.length) {
    const room = out.time.length - out.length;
    const fits = Number.isInteger(barsMax) && barsMax >= 0 && barsMax <= room;
    assert(fits, `barsMax ${barsMax} exceeds the ${room} bars of room in out`);
    this.tf = tf;
    this.out = out;
    this.outEnd = out.length + barsMax;
  }

  /** True once `barsMax` bars have been written. */
  get full(): boolean {
    return this.out.length >= this.outEnd;
  }

  /**
   * Consumes source bars [from, to). Returns the index of the first bar not consumed: `to`, unless
   * the aggregator became full, in which case that bar opens the first bucket left out.
   */
  push(src: BarColumns, from: number = 0, to: number = src.length): number {
    assert(from >= 0 && to <= src.length, `chunk [${from}, ${to}) outside the ${src.length} source bars`);
    if (from >= to || this.full) return from;
    const t0 = src.time[from];
    assert(t0 >= this.nextTimeMinS, `source bar time ${t0} < ${this.nextTimeMinS}: chunks out of order`);
    let i = from;
    if (this.inBucket) i = this.fold(src, i, to);
    while (i < to) {
      // Bar i belongs to a later bucket: the bucket in progress (if any) is complete.
      if (this.inBucket) {
        this.emit();
        if (this.full) return i;
      }
      this.open(src, i);
      i = this.fold(src, i + 1, to);
    }
    this.nextTimeMinS = src.time[to - 1] + 1;
    return to;
  }

  /** Writes the bar in progress (the trailing partial bar), if any and if there is room. */
  flush(): void {
    if (this.inBucket && !this.full) this.emit();
    this.inBucket = false;
    // A later push must not reopen the bucket just written.
    this.nextTimeMinS = Math.max(this.nextTimeMinS, this.endS);
  }

  private open(src: BarColumns, i: number): void {
    const t = src.time[i];
    this.startS = bucketStart(this.tf, t);
    this.endS = this.tf.kind === 'fixed' ? this.startS + this.tf.widthS : nextBucketStart(this.tf, this.startS);
    this.o = src.open[i];
    this.h = src.high[i];
    this.l = src.low[i];
    this.c = src.close[i];
    this.v = src.volume[i];
    this.inBucket = true;
  }

  /** The hot loop: folds bars from i while they fall before the bucket's end; returns where it stopped. */
  private fold(src: BarColumns, i: number, to: number): number {
    const { time, high, low, volume } = src;
    const endS = this.endS;
    let h = this.h;
    let l = this.l;
    let v = this.v;
    let j = i;
    while (j < to && time[j] < endS) {
      const hj = high[j];
      if (hj > h) h = hj;
      const lj = low[j];
      if (lj < l) l = lj;
      v += volume[j];
      j++;
    }
    if (j > i) {
      this.h = h;
      this.l = l;
      this.v = v;
      this.c = src.close[j - 1];
    }
    return j;
  }

  private emit(): void {
    const out = this.out;
    const k = out.length;
    out.time[k] = this.startS;
    out.open[k] = this.o;
    out.high[k] = this.h;
    out.low[k] = this.l;
    out.close[k] = this.c;
    out.volume[k] = this.v > coreLimits.barVolumeMax ? coreLimits.barVolumeMax : this.v;
    out.length = k + 1;
    this.inBucket = false;
  }
}

/**
 * Aggregates source bars [from, to) into bars of `tf`, written at out[outStart…], including the
 * trailing partial bar. Writes at most `barsMax` bars (default: the room left in `out`) and returns
 * how many it wrote. `out.length` is left unchanged; the caller owns it.
 */
export function aggregateBars(
  src: BarColumns,
  from: number,
  to: number,
  tf: Timeframe,
  out: BarColumns,
  outStart: number,
  barsMax: number = out.time.length - outStart,
): number {
  const target: BarColumns = { ...out, length: outStart };
  const agg = new Aggregator(tf, target, barsMax);
  agg.push(src, from, to);
  agg.flush();
  return target.length - outStart;
}
