// Reading a time range of one UTC day down the resolution ladder (data/rollup.ts) for a consumer of
// bars in time order: the coarsest rollup whose buckets tile the consumer's buckets, with the edges
// that cut a rollup bucket read from the next finer level. A rollup bar is the exact aggregate of its
// stored bars, so an Aggregator or a BucketCounter fed this way gives what the stored bars give.
// Also the one fact rollups do not keep: when the last stored bar before a time was.

import type { Instrument } from '../domain/instrument.ts';
import { openIntervalsForUtcDay } from '../domain/trading-hours.ts';
import { DAY_S } from '../lib/time-units.ts';
import { type BarColumns, lowerBound } from './bar-columns.ts';
import type { BarSource } from './bar-source.ts';
import { rollupWidthsFor } from './rollup.ts';

/** Takes bars [from, to) of a column set, in time order across calls (Aggregator, BucketCounter). */
export interface BarSink {
  push(bars: BarColumns, from: number, to: number): unknown;
}

/**
 * Pushes the day's bars with time in [loS, hiS) (inside the day) into `sink`, from the rollup of
 * `widthS` where whole buckets fit (0: stored bars), edges and days without that rollup finer.
 */
export function pushDayRange(
  source: BarSource,
  inst: Instrument,
  sink: BarSink,
  day: number,
  loS: number,
  hiS: number,
  widthS: number,
): void {
  if (loS >= hiS) return;
  if (widthS === 0) {
    const bars = source.day(inst, day);
    const a = lowerBound(bars.time, bars.length, loS);
    const b = lowerBound(bars.time, bars.length, hiS);
    if (a < b) sink.push(bars, a, b);
    return;
  }
  const finerS = rollupWidthsFor(inst).find((w) => w < widthS) ?? 0;
  const rollup = source.rollup(inst, day, widthS);
  const wholeLoS = Math.ceil(loS / widthS) * widthS;
  const wholeHiS = Math.floor(hiS / widthS) * widthS;
  if (rollup === null || wholeLoS >= wholeHiS) return pushDayRange(source, inst, sink, day, loS, hiS, finerS);
  pushDayRange(source, inst, sink, day, loS, wholeLoS, finerS);
  const a = lowerBound(rollup.time, rollup.length, wholeLoS);
  const b = lowerBound(rollup.time, rollup.length, wholeHiS);
  if (a < b) sink.push(rollup, a, b);
  pushDayRange(source, inst, sink, day, wholeHiS, hiS, finerS);
}

/** Pushes every bar with time in [fromS, toS) into `sink`, day by day (see pushDayRange). */
export function pushRange(source: BarSource, inst: Instrument, sink: BarSink, fromS: number, toS: number, widthS: number): void {
  for (let day = Math.floor(fromS / DAY_S); day * DAY_S < toS; day++) {
    pushDayRange(source, inst, sink, day, Math.max(fromS, day * DAY_S), Math.min(toS, (day + 1) * DAY_S), widthS);
  }
}

/**
 * The time of the day's last stored bar before `endS`, or null when it has none. A day in memory or
 * imported is searched; a synthetic day is not generated: the generator fills every open slot of the
 * trading hours (data/generator/intraday.ts), so the answer is the last open slot before `endS`.
 */
export function lastBarTimeBefore(source: BarSource, inst: Instrument, day: number, endS: number): number | null {
  const synthetic = source.inSyntheticSpan(day) && !source.isCached(inst, day) && !source.storedDays(inst, day, day).has(day);
  if (!synthetic) {
    const bars = source.day(inst, day);
    const i = lowerBound(bars.time, bars.length, endS);
    return i === 0 ? null : bars.time[i - 1];
  }
  const r = inst.storedResolutionS;
  let last: number | null = null;
  for (const [a, b] of openIntervalsForUtcDay(inst.session, day)) {
    const e = Math.min(b, endS);
    if (a < e) last = Math.max(last ?? a, a + Math.floor((e - 1 - a) / r) * r);
  }
  return last;
}
