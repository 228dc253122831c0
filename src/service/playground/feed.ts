// The bars of a playground run, one UTC day at a time: the run-timeframe bars of the day inside the
// run's span, the context-timeframe bars completed in the day, and, only when a bar can fill an
// order, the stored bars behind it.
//
// Run and context bars are aggregated from the coarsest rollup that divides their width (1 h, 1 m,
// else the stored bars): a rollup bar is exactly the aggregate of its stored bars (src/data/rollup.ts),
// so the result is the same bars Replay and History show, without reading a day's 1 s bars. Those
// are read on the first bar of the day whose range reaches a working order (the child's `need` or
// the ledger's walk): a quiet day never loads them.
//
// Run and context timeframes are fixed widths that divide a day, so no bucket crosses a UTC day
// and each day's batch is complete on its own (docs/decisions.md).

import { aggregateBars } from '../../data/aggregate.ts';
import { allocBars, type BarColumns, lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { rollupWidthsFor } from '../../data/rollup.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { Timeframe } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';

export interface RunSpan {
  inst: Instrument;
  tf: Timeframe;
  ctx: readonly Timeframe[];
  startS: number;
  endS: number;
}

/** One UTC day of a run. */
export class DayBatch {
  private storedBars: BarColumns | null = null;
  private starts: Int32Array | null = null;

  constructor(
    private readonly source: BarSource,
    private readonly span: RunSpan,
    readonly day: number,
    /** Run bars of the day. */
    readonly run: BarColumns,
    /** End time of each run bar: the simulated now right after it (bucket end). */
    readonly runEnd: Uint32Array,
    /** Context bars completed in the day, per context timeframe, with their end times. */
    readonly ctx: { tf: Timeframe; bars: BarColumns; end: Uint32Array }[],
  ) {}

  /** The day's stored bars (loaded on first use). */
  get stored(): BarColumns {
    this.load();
    return this.storedBars as BarColumns;
  }

  /** Index in `stored` where run bar j's stored bars begin; j = run.length gives the end. */
  storedStart(j: number): number {
    this.load();
    return (this.starts as Int32Array)[j];
  }

  private load(): void {
    if (this.storedBars !== null) return;
    const stored = this.source.day(this.span.inst, this.day);
    const from = lowerBound(stored.time, stored.length, this.span.startS);
    const to = lowerBound(stored.time, stored.length, this.span.endS, from);
    const starts = new Int32Array(this.run.length + 1);
    let i = from;
    for (let j = 0; j < this.run.length; j++) {
      i = lowerBound(stored.time, to, this.run.time[j], i);
      starts[j] = i;
    }
    starts[this.run.length] = to;
    this.storedBars = stored;
    this.starts = starts;
  }
}

/**
 * The day's bars in [startS, endS) at the coarsest rollup that divides `widthS` (the rollup must
 * also start and end on the span's edges), else its stored bars.
 */
function sourceBars(source: BarSource, span: RunSpan, day: number, widthS: number): { bars: BarColumns; from: number; to: number } {
  for (const r of rollupWidthsFor(span.inst)) {
    if (widthS % r !== 0 || span.startS % r !== 0 || span.endS % r !== 0) continue;
    const bars = source.rollup(span.inst, day, r);
    if (bars === null) continue;
    return clip(bars, span);
  }
  return clip(source.day(span.inst, day), span);
}

function clip(bars: BarColumns, span: RunSpan) {
  const from = lowerBound(bars.time, bars.length, span.startS);
  return { bars, from, to: lowerBound(bars.time, bars.length, span.endS, from) };
}

export function aggregate(source: BarSource, span: RunSpan, day: number, tf: Timeframe): { bars: BarColumns; end: Uint32Array } {
  const { bars: src, from, to } = sourceBars(source, span, day, tf.widthS);
  const cap = Math.min(to - from, Math.ceil(DAY_S / tf.widthS) + 1);
  const bars = allocBars(cap);
  bars.length = from < to ? aggregateBars(src, from, to, tf, bars, 0) : 0;
  const end = new Uint32Array(bars.length);
  for (let j = 0; j < bars.length; j++) end[j] = bars.time[j] + tf.widthS;
  return { bars, end };
}

/** The batch of UTC day `day`, or null when the run has no bar that day. */
export function dayBatch(source: BarSource, span: RunSpan, day: number): DayBatch | null {
  const { bars: run, end: runEnd } = aggregate(source, span, day, span.tf);
  if (run.length === 0) return null;
  const ctx = span.ctx.map((tf) => ({ tf, ...aggregate(source, span, day, tf) }));
  return new DayBatch(source, span, day, run, runEnd, ctx);
}

export function firstDay(span: RunSpan): number {
  return Math.floor(span.startS / DAY_S);
}

export function lastDay(span: RunSpan): number {
  return Math.floor((span.endS - 1) / DAY_S);
}
