// Where an instrument's next bar is: the first stored bar at or after a time, found on the rollups
// when one tiles the session's timeframe (a step looks n bars ahead without reading stored bars),
// else on the stored bars. One per instrument of a session (session.ts `endOfNextBars`); it keeps
// the rollups of the day it last looked at, for the n lookups of one step.

import { type BarColumns, EMPTY_BARS, lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { rollupWidthForTimeframe, rollupWidthsFor } from '../../data/rollup.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { Timeframe } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';

export class LegPeek {
  /** The rollup width whose buckets tile the timeframe's (0: none), and the instrument's widths. */
  readonly tfRollupWidthS: number;
  private readonly rollupWidthsS: readonly number[];
  /** The rollups of one day (`peekDay`), by width index. */
  private peekDay = Number.NaN;
  private readonly peekRollups: (BarColumns | null | undefined)[] = [];
  /** The stored bars of one day (`storedDay`). */
  private storedDay = Number.NaN;
  private stored: BarColumns = EMPTY_BARS;

  constructor(
    private readonly source: BarSource,
    readonly inst: Instrument,
    tf: Timeframe,
    private readonly endS: number,
  ) {
    this.tfRollupWidthS = rollupWidthForTimeframe(inst, tf);
    this.rollupWidthsS = rollupWidthsFor(inst);
  }

  /** Forgets the day's rollups and bars (the end of one step's lookups). */
  reset(): void {
    this.peekDay = Number.NaN;
    this.peekRollups.length = 0;
    this.storedDay = Number.NaN;
    this.stored = EMPTY_BARS;
  }

  /**
   * The time of the first stored bar at or after `t` (its rollup bucket's start when a rollup
   * answers: it names the same timeframe bar), in t's day or the following ones up to `lastDay`;
   * −1 when there is none. `ladder` false reads stored bars only (the flat walk).
   */
  firstAtOrAfter(t: number, lastDay: number, ladder: boolean): number {
    for (let d = Math.floor(t / DAY_S); d <= lastDay; d++) {
      const fromRollup = ladder ? this.firstRollupTimeAtOrAfter(d, t) : -1;
      if (fromRollup >= 0) return fromRollup;
      if (fromRollup === -2) continue;
      if (d !== this.storedDay) {
        this.storedDay = d;
        this.stored = this.source.day(this.inst, d);
      }
      const bars = this.stored;
      const i = lowerBound(bars.time, bars.length, t);
      if (i < bars.length) return bars.time[i];
    }
    return -1;
  }

  /**
   * The start of the first rollup bucket of day `d` at or after `t`, from a rollup whose buckets lie
   * inside one timeframe bucket (so it names the same timeframe bar as the stored bar it holds):
   * −2 when the day has none, −1 when no rollup can tell (then the stored bars are read).
   */
  private firstRollupTimeAtOrAfter(d: number, t: number): number {
    const tfWidthS = this.tfRollupWidthS;
    if (tfWidthS === 0) return -1;
    if (d !== this.peekDay) {
      this.peekDay = d;
      this.peekRollups.length = 0;
    }
    const widths = this.rollupWidthsS;
    for (let k = 0; k < widths.length; k++) {
      const w = widths[k];
      if (w > tfWidthS || t % w !== 0) continue;
      let r = this.peekRollups[k];
      if (r === undefined) {
        r = this.source.rollup(this.inst, d, w);
        this.peekRollups[k] = r;
      }
      if (r === null) continue;
      const i = lowerBound(r.time, r.length, t);
      if (i === r.length) return -2;
      // A bucket straddling the session's end may hold only bars after it: ask the stored bars.
      return r.time[i] + w > this.endS && r.time[i] < this.endS ? -1 : r.time[i];
    }
    return -1;
  }
}
