// The other instruments of a run over several instruments (docs/playground.md, "Several
// instruments"): for a slice of the main instrument's run bars, each other instrument's (a leg's)
// bars of the run timeframe that the slice's clock passes, and, when asked, its stored bars there.
//
// The clock is the main instrument's: right after main run bar k it stands at k's end. A leg's bar
// is visible from the first main bar whose end is at or after its own end; with one timeframe for
// all (buckets aligned to the UTC day), those are the leg bars opening in [clock before k, k's end).
// Their stored bars are walked (fills) at main bar k. A slice covers [fromS, toS): from the clock
// before its first bar to the end of its last, which may cross UTC days where the main instrument
// has no bars (a halt, a weekend, a gap in the data): so the leg's bars are gathered day by day.

import { allocBars, type BarColumns, lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { Timeframe } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { aggregate } from './feed.ts';

/** One leg's bars over a slice's clock span [fromS, toS). */
export class LegSlice {
  /** The leg's run-timeframe bars opening in [fromS, toS), oldest first. */
  readonly run: BarColumns;
  /** End time of each (its open time plus the timeframe's width). */
  readonly runEnd: Uint32Array;
  private storedBars: BarColumns | null = null;

  constructor(
    private readonly source: BarSource,
    readonly inst: Instrument,
    tf: Timeframe,
    readonly fromS: number,
    readonly toS: number,
  ) {
    const parts: BarColumns[] = [];
    for (let d = Math.floor(fromS / DAY_S); d * DAY_S < toS; d++) {
      parts.push(aggregate(source, { inst, tf, ctx: [], startS: fromS, endS: toS }, d, tf).bars);
    }
    this.run = concat(parts);
    this.runEnd = new Uint32Array(this.run.length);
    for (let j = 0; j < this.run.length; j++) this.runEnd[j] = this.run.time[j] + (tf.widthS as number);
  }

  /** The leg's stored bars with time in [fromS, toS) (read on first use: a leg without orders never reads them). */
  get stored(): BarColumns {
    if (this.storedBars === null) {
      const parts: BarColumns[] = [];
      for (let d = Math.floor(this.fromS / DAY_S); d * DAY_S < this.toS; d++) {
        const day = this.source.day(this.inst, d);
        const a = lowerBound(day.time, day.length, this.fromS);
        parts.push(slice(day, a, lowerBound(day.time, day.length, this.toS, a)));
      }
      this.storedBars = concat(parts);
    }
    return this.storedBars;
  }

  /** Index range in `stored` of the bars with time in [fromS, toS). */
  storedRange(fromS: number, toS: number): [number, number] {
    const s = this.stored;
    const a = lowerBound(s.time, s.length, fromS);
    return [a, lowerBound(s.time, s.length, toS, a)];
  }
}

/** Bars [a, b) of `bars` as a view (no copy). */
function slice(bars: BarColumns, a: number, b: number): BarColumns {
  return {
    length: b - a, time: bars.time.subarray(a, b), open: bars.open.subarray(a, b), high: bars.high.subarray(a, b),
    low: bars.low.subarray(a, b), close: bars.close.subarray(a, b), volume: bars.volume.subarray(a, b),
  };
}

/** The parts one after the other (the one part itself when there is one). */
function concat(parts: readonly BarColumns[]): BarColumns {
  if (parts.length === 1) return parts[0];
  const out = allocBars(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.time.set(p.time.subarray(0, p.length), at);
    out.open.set(p.open.subarray(0, p.length), at);
    out.high.set(p.high.subarray(0, p.length), at);
    out.low.set(p.low.subarray(0, p.length), at);
    out.close.set(p.close.subarray(0, p.length), at);
    out.volume.set(p.volume.subarray(0, p.length), at);
    at += p.length;
  }
  out.length = at;
  return out;
}
