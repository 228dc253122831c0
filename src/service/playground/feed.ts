// The bars of a playground run, one UTC day at a time: the stored bars of the day inside the run's
// span, the run-timeframe bars aggregated from them (the same aggregation Replay and History use),
// where each run bar's stored bars begin, and the context-timeframe bars completed in the day.
//
// Run and context timeframes are fixed widths that divide a day, so no bucket crosses a UTC day
// and each day's batch is complete on its own (docs/decisions.md).

import { aggregateBars } from '../../data/aggregate.ts';
import { allocBars, type BarColumns, lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { Timeframe } from '../../domain/timeframe.ts';

const DAY_S = 86_400;

export interface DayBatch {
  /** Stored bars of the UTC day (the whole day; use [from, to)). */
  stored: BarColumns;
  from: number;
  to: number;
  /** Run bars of the day. */
  run: BarColumns;
  /** End time of each run bar: the simulated now right after it (bucket end). */
  runEnd: Uint32Array;
  /** Index in `stored` where each run bar's stored bars begin; runStart[n] = `to`. */
  runStart: Int32Array;
  /** Context bars completed in the day, per context timeframe, with their end times. */
  ctx: { tf: Timeframe; bars: BarColumns; end: Uint32Array }[];
}

export interface RunSpan {
  inst: Instrument;
  tf: Timeframe;
  ctx: readonly Timeframe[];
  startS: number;
  endS: number;
}

function aggregate(stored: BarColumns, from: number, to: number, tf: Timeframe & { widthS: number }): { bars: BarColumns; end: Uint32Array } {
  const cap = Math.min(to - from, Math.ceil(DAY_S / tf.widthS) + 1);
  const bars = allocBars(cap);
  bars.length = aggregateBars(stored, from, to, tf, bars, 0);
  const end = new Uint32Array(bars.length);
  for (let j = 0; j < bars.length; j++) end[j] = bars.time[j] + tf.widthS;
  return { bars, end };
}

/** The batch of UTC day `day`, or null when the run has no bar that day. */
export function dayBatch(source: BarSource, span: RunSpan, day: number): DayBatch | null {
  const stored = source.day(span.inst, day);
  const from = lowerBound(stored.time, stored.length, span.startS);
  const to = lowerBound(stored.time, stored.length, span.endS, from);
  if (from >= to) return null;
  const { bars: run, end: runEnd } = aggregate(stored, from, to, span.tf as Timeframe & { widthS: number });
  const runStart = new Int32Array(run.length + 1);
  let i = from;
  for (let j = 0; j < run.length; j++) {
    i = lowerBound(stored.time, to, run.time[j], i);
    runStart[j] = i;
  }
  runStart[run.length] = to;
  const ctx = span.ctx.map((tf) => ({ tf, ...aggregate(stored, from, to, tf as Timeframe & { widthS: number }) }));
  return { stored, from, to, run, runEnd, runStart, ctx };
}

export function firstDay(span: RunSpan): number {
  return Math.floor(span.startS / DAY_S);
}

export function lastDay(span: RunSpan): number {
  return Math.floor((span.endS - 1) / DAY_S);
}
