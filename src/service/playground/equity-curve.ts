// A run's equity curve at a bounded number of points that still spans the whole run and keeps its
// extremes: the bars are cut into buckets of equal width, and each bucket keeps three bar closes,
// its lowest, its highest and its last. So every trough and peak of the run is a point (a drawdown
// can never fall between two samples), the curve ends where the run ends, and a run of any length
// costs at most `bucketsMax` buckets.
//
// Streaming, because a run's length is known only at its end (a stop, a timeout): buckets start one
// bar wide; when a new bucket would pass `bucketsMax`, neighbours merge pairwise (the lower of two
// lows, the higher of two highs, the later last) and the width doubles. Merging is exact, so the
// buckets are always what cutting the bars so far at the current width would give. Between
// `bucketsMax / 2` and `bucketsMax` buckets are in use once the run is long enough.
//
// Points: the first bar's close, each bucket's distinct points in time order, then the run's end
// (`end`), at most 3 × bucketsMax + 2. Adding a bar allocates nothing.

import { assert } from '../../lib/assert.ts';

export interface EquityPoint {
  timeS: number;
  equityCents: number;
}

// Columns of the buckets, one Float64Array each (cents and epoch seconds are exact in a double).
const MIN_T = 0;
const MIN_V = 1;
const MAX_T = 2;
const MAX_V = 3;
const LAST_T = 4;
const LAST_V = 5;
const COLUMNS = 6;

/** Buckets for a curve of at most `pointsMax` points: three a bucket, plus the first bar and the end; even, to merge in pairs. */
export function equityBucketsFor(pointsMax: number): number {
  const n = Math.floor((pointsMax - 2) / 3);
  return n - (n % 2);
}

export class EquityCurve {
  private readonly cols: Float64Array;
  /** Bars a bucket holds (every bucket but the last is full). */
  private width = 1;
  /** Buckets in use; the last is the one being filled. */
  private count = 0;
  private barsInLast = 0;
  private firstT = 0;
  private firstV = 0;
  private endT = -1;
  private endV = 0;

  constructor(private readonly bucketsMax: number) {
    assert(bucketsMax >= 2 && bucketsMax % 2 === 0, 'equity buckets: an even count of at least 2');
    this.cols = new Float64Array(bucketsMax * COLUMNS);
  }

  /** The equity at a bar's close, bars in time order. */
  add(timeS: number, equityCents: number): void {
    const c = this.cols;
    if (this.count === 0) {
      this.firstT = timeS;
      this.firstV = equityCents;
    }
    if (this.count === 0 || this.barsInLast === this.width) {
      if (this.count === this.bucketsMax) this.mergePairs();
      const o = this.count * COLUMNS;
      c[o + MIN_T] = c[o + MAX_T] = c[o + LAST_T] = timeS;
      c[o + MIN_V] = c[o + MAX_V] = c[o + LAST_V] = equityCents;
      this.count++;
      this.barsInLast = 1;
      return;
    }
    const o = (this.count - 1) * COLUMNS;
    if (equityCents < c[o + MIN_V]) {
      c[o + MIN_T] = timeS;
      c[o + MIN_V] = equityCents;
    }
    if (equityCents > c[o + MAX_V]) {
      c[o + MAX_T] = timeS;
      c[o + MAX_V] = equityCents;
    }
    c[o + LAST_T] = timeS;
    c[o + LAST_V] = equityCents;
    this.barsInLast++;
  }

  /** The run's end: the last point, replacing a bar close at the same time (the flat balance after the final flatten). */
  end(timeS: number, equityCents: number): void {
    this.endT = timeS;
    this.endV = equityCents;
  }

  /** The curve's points, in time order, without two at one time. */
  points(): EquityPoint[] {
    const out: EquityPoint[] = [];
    const push = (timeS: number, equityCents: number) => {
      const last = out[out.length - 1];
      if (last !== undefined && last.timeS === timeS) last.equityCents = equityCents;
      else out.push({ timeS, equityCents });
    };
    if (this.count > 0) push(this.firstT, this.firstV);
    const c = this.cols;
    for (let b = 0; b < this.count; b++) {
      const o = b * COLUMNS;
      const [lo, hi] = c[o + MIN_T] <= c[o + MAX_T] ? [MIN_T, MAX_T] : [MAX_T, MIN_T];
      for (const k of [lo, hi, LAST_T]) push(c[o + k], c[o + k + 1]);
    }
    if (this.endT >= 0) push(this.endT, this.endV);
    return out;
  }

  /** Bucket 2i and 2i + 1 become bucket i: the lower low, the higher high (the earlier one on a tie), the later last. */
  private mergePairs(): void {
    const c = this.cols;
    for (let i = 0; i < this.bucketsMax / 2; i++) {
      const a = 2 * i * COLUMNS;
      const b = a + COLUMNS;
      const o = i * COLUMNS;
      const minFrom = c[b + MIN_V] < c[a + MIN_V] ? b : a;
      const maxFrom = c[b + MAX_V] > c[a + MAX_V] ? b : a;
      c[o + MIN_T] = c[minFrom + MIN_T];
      c[o + MIN_V] = c[minFrom + MIN_V];
      c[o + MAX_T] = c[maxFrom + MAX_T];
      c[o + MAX_V] = c[maxFrom + MAX_V];
      c[o + LAST_T] = c[b + LAST_T];
      c[o + LAST_V] = c[b + LAST_V];
    }
    this.count = this.bucketsMax / 2;
    this.width *= 2;
  }
}
