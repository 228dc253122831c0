// The scans behind History/retrieveBars (history.ts runs the checks, budgets and cache around them).
// Range: bars whose bucket starts at or after `startTime` (a start inside a bucket moves to the next
// bucket, so paging with "just after the last bar" never repeats a bar) and built from stored bars
// strictly before `endTime`; the last bar may be partial. The scan stops at startTime + window.
// Counting back (`barsBack`, the earlier family): the last barsBack bars built from stored bars
// strictly before endTime, looked for back to endTime - window, walked one UTC day at a time from
// the end (each day cut on a bar boundary, so no bar is split).
// Resolution ladder: bars are read from the coarsest rollup (1 h, then 1 m, src/data/rollup.ts)
// whose width divides the timeframe's buckets, else from stored bars. Every range handed to the
// aggregation starts on a bucket boundary, hence on a rollup boundary; at its end only rollup bars
// that close by the end are read, and the partial piece after the last such bar comes from the next
// finer level, so the bars are the ones the stored bars give. Rollup bars count one each against
// the processing budget (docs/decisions.md, "History and market data").
// A scan is a generator that stops after each UTC day it reads: `drain` runs it at once, `drainSliced`
// yields to the event loop between days.

import type { Instrument } from '../domain/instrument.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../domain/timeframe.ts';
import { Aggregator } from '../data/aggregate.ts';
import { allocBars, appendBars, type BarColumns, copyBars, lowerBound } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import { rollupWidthForTimeframe, rollupWidthsFor } from '../data/rollup.ts';
import { DAY_S } from '../lib/time-units.ts';
import { limits } from '../config.ts';
import { TurnQueue } from '../lib/turns.ts';

/** What a scan found: the bars, and how many bars it read to build them (the processing budget's count). */
export interface Scanned {
  bars: BarColumns;
  sourceBars: number;
}

/** A scan that stops after each UTC day it reads, so a driver may yield between days. */
export type ScanSteps = Generator<void, Scanned, void>;

/** The first `barsMax` bars whose bucket starts at or after `startS`, built from stored bars before `endS`. */
export function* scanForward(source: BarSource, inst: Instrument, tf: Timeframe, startS: number, endS: number, barsMax: number): ScanSteps {
  const first = bucketStart(tf, startS);
  const fromS = first === startS ? startS : nextBucketStart(tf, first);
  const avail = source.range(inst);
  const toS = Math.min(endS, (avail.lastDay + 1) * DAY_S);
  const out = allocBars(barsMax);
  const agg = new Aggregator(tf, out, barsMax);
  const widthS = rollupWidthForTimeframe(inst, tf);
  let sourceBars = 0;
  for (let day = Math.max(Math.floor(fromS / DAY_S), avail.firstDay); day * DAY_S < toS && !agg.full; day++) {
    sourceBars += pushDay(source, agg, inst, day, Math.max(fromS, day * DAY_S), Math.min(toS, (day + 1) * DAY_S), widthS);
    yield;
  }
  agg.flush();
  // The cache keeps results for minutes: hold exactly the bars, not the request's full capacity.
  return { bars: out.length === barsMax ? out : copyBars(out), sourceBars };
}

/**
 * The last `barsMax` bars whose bucket starts at or after `lowS` (moved to a bucket boundary) and
 * built from stored bars before `endS`: one UTC day at a time from the end, each day's bars
 * aggregated forward from a bucket boundary, until enough bars or the lower bound.
 */
export function* scanBack(source: BarSource, inst: Instrument, tf: Timeframe, lowS: number, endS: number, barsMax: number): ScanSteps {
  const avail = source.range(inst);
  const first = bucketStart(tf, Math.max(lowS, avail.firstDay * DAY_S));
  const floorS = first >= lowS ? first : nextBucketStart(tf, first);
  let hiS = Math.min(endS, (avail.lastDay + 1) * DAY_S);
  const widthS = rollupWidthForTimeframe(inst, tf);
  const chunks: BarColumns[] = [];
  let have = 0;
  let sourceBars = 0;
  while (have < barsMax && hiS > floorS) {
    const loS = Math.max(floorS, bucketStart(tf, Math.floor((hiS - 1) / DAY_S) * DAY_S));
    // A calendar piece lies within one bucket (it starts at the bucket holding its last day): one bar.
    const capacity = tf.widthS > 0 ? Math.ceil((hiS - loS) / tf.widthS) + 1 : 2;
    const out = allocBars(capacity);
    const agg = new Aggregator(tf, out, capacity);
    for (let day = Math.floor(loS / DAY_S); day * DAY_S < hiS; day++) {
      sourceBars += pushDay(source, agg, inst, day, Math.max(loS, day * DAY_S), Math.min(hiS, (day + 1) * DAY_S), widthS);
      yield;
    }
    agg.flush();
    if (out.length > 0) chunks.unshift(out);
    have += out.length;
    hiS = loS;
  }
  return { bars: lastBars(chunks, Math.min(have, barsMax)), sourceBars };
}

/**
 * Pushes the day's bars with time in [loS, hiS) (within the day; loS on a boundary of `widthS`) into
 * `agg` from the rollup of `widthS` (0: stored bars): the rollup bars that end by hiS, then the
 * rest from the next finer level. A day without an exact rollup is read finer. Returns bars read.
 */
function pushDay(source: BarSource, agg: Aggregator, inst: Instrument, day: number, loS: number, hiS: number, widthS: number): number {
  if (loS >= hiS || agg.full) return 0;
  if (widthS === 0) {
    const bars = source.day(inst, day);
    const a = lowerBound(bars.time, bars.length, loS);
    const b = lowerBound(bars.time, bars.length, hiS);
    return a < b ? agg.push(bars, a, b) - a : 0;
  }
  const finerS = rollupWidthsFor(inst).find((w) => w < widthS) ?? 0;
  const rollup = source.rollup(inst, day, widthS);
  if (rollup === null) return pushDay(source, agg, inst, day, loS, hiS, finerS);
  const cutS = Math.max(loS, Math.floor(hiS / widthS) * widthS);
  const a = lowerBound(rollup.time, rollup.length, loS);
  const b = lowerBound(rollup.time, rollup.length, cutS);
  const read = a < b ? agg.push(rollup, a, b) - a : 0;
  return read + pushDay(source, agg, inst, day, cutS, hiS, finerS);
}

/** Runs a scan to its end at once. */
export function drain(steps: ScanSteps): Scanned {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The process's one queue of sliced work (History's scans and answers' encodings): a loop turn gives it
 * about `limits.historySliceMs`, beyond the slice under way (lib/turns.ts).
 */
export const slicedWork = new TurnQueue(limits.historySliceMs);

/**
 * Runs a scan in slices: after a day, when one more day as slow as the slowest so far would take the
 * slice past `sliceMs`, it yields to the event loop (lib/turns.ts: after pending I/O, so waiting
 * requests are read and answered) and starts a new slice. A single day is never split: a day whose
 * 1 s bars or rollups must first be generated costs ~10 ms (docs/decisions.md, "History and market data").
 */
export async function drainSliced(steps: ScanSteps, sliceMs: number): Promise<Scanned> {
  let sliceStartMs = performance.now();
  let stepMsMax = 0;
  for (;;) {
    const stepStartMs = performance.now();
    const step = steps.next();
    if (step.done) return step.value;
    const nowMs = performance.now();
    stepMsMax = Math.max(stepMsMax, nowMs - stepStartMs);
    if (nowMs - sliceStartMs + stepMsMax > sliceMs) {
      await slicedWork.next();
      sliceStartMs = performance.now();
    }
  }
}

/** The last `n` bars of `chunks` (in time order), in one exactly sized column set. */
function lastBars(chunks: readonly BarColumns[], n: number): BarColumns {
  const out = allocBars(n);
  let skip = chunks.reduce((sum, c) => sum + c.length, 0) - n;
  for (const c of chunks) {
    const from = Math.min(skip, c.length);
    skip -= from;
    appendBars(out, c, from);
  }
  return out;
}
