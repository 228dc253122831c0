// Rollups: a UTC day of stored bars aggregated to 1 m and 1 h by the ordinary Aggregator, kept in the
// same column layout, so a coarse History request reads 24 bars a day instead of 82,800.
//
// The model:
// - A rollup of width R is exactly `aggregateBars(day, fixed R)`: same open, high, low, close and
//   volume per bucket, on the epoch grid. R divides the day, so a day's rollup holds that day's bars.
// - A rollup of width R stands in for the stored bars it was built from only where every timeframe
//   bucket is a union of whole R buckets: R divides the timeframe's width (fixed widths, epoch grid)
//   or the timeframe is calendar (weeks, months and years start at UTC midnight).
// - R must be a multiple of the instrument's stored resolution (no stored bar straddles two rollup
//   bars) and coarser than it (else the stored bars are the rollup).
// - A rollup bar whose summed volume reached 2^32 − 1 may have saturated; summing such bars would not
//   give the Aggregator's answer, so that day has no rollup at that width (null) and is read finer.

import { coreLimits } from '../core-limits.ts';
import { parseTimeframe, type Timeframe } from '../domain/timeframe.ts';
import type { Instrument } from '../domain/instrument.ts';
import { DAY_S } from '../lib/time-units.ts';
import { aggregateBars } from './aggregate.ts';
import { allocBars, type BarColumns, copyBars } from './bar-columns.ts';

/** Rollup widths kept, coarsest first (the order History tries them in). */
export const ROLLUP_WIDTHS_S: readonly number[] = Object.freeze([3_600, 60]);

const FIXED: ReadonlyMap<number, Timeframe> = new Map(
  ROLLUP_WIDTHS_S.map((w) => {
    const tf = parseTimeframe(`${w / 60}m`, { customEnabled: true, storedResolutionS: 1 });
    if (!tf.ok) throw new Error(`rollup width ${w} s is not a timeframe`);
    return [w, tf.value];
  }),
);

/** The widths by stored resolution, built once each: replay asks for them per bar it looks for. */
const WIDTHS_BY_RESOLUTION = new Map<number, readonly number[]>();

/** The rollup widths an instrument keeps: multiples of its stored resolution, coarser than it. */
export function rollupWidthsFor(inst: Instrument): readonly number[] {
  const r = inst.storedResolutionS;
  let widths = WIDTHS_BY_RESOLUTION.get(r);
  if (widths === undefined) {
    widths = Object.freeze(ROLLUP_WIDTHS_S.filter((w) => w > r && w % r === 0));
    WIDTHS_BY_RESOLUTION.set(r, widths);
  }
  return widths;
}

/**
 * The coarsest rollup width that may stand in for stored bars when aggregating to `tf`, or 0 when
 * none may (the stored bars are read).
 */
export function rollupWidthForTimeframe(inst: Instrument, tf: Timeframe): number {
  for (const w of rollupWidthsFor(inst)) {
    if (tf.kind === 'calendar' || tf.widthS % w === 0) return w;
  }
  return 0;
}

/** A day's stored bars aggregated to `widthS`, exactly sized; null when a volume may have saturated. */
export function buildRollup(day: BarColumns, widthS: number): BarColumns | null {
  const tf = FIXED.get(widthS);
  if (!tf) throw new Error(`no rollup of width ${widthS} s`);
  const out = allocBars(Math.min(day.length, Math.ceil(DAY_S / widthS)));
  out.length = aggregateBars(day, 0, day.length, tf, out, 0);
  const volume = out.volume;
  for (let i = 0; i < out.length; i++) if (volume[i] === coreLimits.barVolumeMax) return null;
  return out.length === out.time.length ? out : copyBars(out);
}

/** Where rollups are kept between runs (the store implements it; the data layer knows no SQL). */
export interface RollupStore {
  /**
   * The rollup of one day, or null when none is kept. Rows built from imported bars are always
   * returned; rows built from generated bars only when built by `generatorVersion` (null: never).
   */
  get(symbol: string, day: number, widthS: number, generatorVersion: number | null): BarColumns | null;
  /**
   * The days in [fromDay, toDay] with at least `widthCount` rollups kept that `get` would return
   * (one query, no BLOB read): what a prepare or the warm-up need not build.
   */
  daysKept(symbol: string, fromDay: number, toDay: number, widthCount: number, generatorVersion: number | null): Set<number>;
  /**
   * Keeps a rollup built from the instrument's data at `dataVersion`; does nothing when the data
   * version has changed since (an import ran meanwhile and wrote its own days' rollups).
   */
  putIfVersion(symbol: string, day: number, widthS: number, source: RollupSource, bars: BarColumns, dataVersion: number): void;
}

/** What a rollup was built from: imported bars, or the generator of a given version. */
export type RollupSource = { kind: 'import' } | { kind: 'synthetic'; generatorVersion: number };
