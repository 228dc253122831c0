// Where every format parser puts its records: validation of each line (tick grid, OHLC consistency,
// volume, time order), then the whole-file steps (bar width, alignment, close→open time) and the
// aggregation of finer bars to the stored resolution. The format parsers only turn text into numbers.
//
// The model:
// - A record is a bar (o h l c v at a time stamp) or a tick (one price and a volume at an instant,
//   kept as a zero-width bar o = h = l = c). Ticks may share a time stamp; bars may not.
// - Times are UTC epoch seconds of the file's own stamp (open or close of the bar, per format) until
//   finishBars, which knows the bar width and moves close stamps to open times. Bars must start on
//   whole seconds; ticks keep their sub-second part only for the order check, then drop it.
// - Bar width is the format's declared width (Databento rtype, HistData M1) or else the smallest
//   positive gap between consecutive stamps: gaps in the data only make other gaps larger. Every stamp
//   must then be a multiple of that width (bars are on the epoch grid, as stored bars are).
// - Coarser bars than the stored resolution cannot be split, and a width that does not divide the
//   stored one would make buckets straddle bars: both are refused for the whole file (line 0).
// - Aggregation is on the epoch grid (bucket = t − t mod width): open of the first, max high, min low,
//   close of the last, summed volume, matching how stored bars are built from finer ones elsewhere.
// - Capacity is the file's line count, an upper bound on records, so the columns never grow.

import { coreLimits } from '../../core-limits.ts';
import { priceToTicks, ticksToPrice, type Instrument } from '../../domain/instrument.ts';
import { err, ok } from '../../lib/result.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { allocBars, type BarColumns } from '../bar-columns.ts';
import { parseDecimal, type FieldSplitter } from './text-scan.ts';
import { importError, type ImportError, type ImportResult, type ParsedBars } from './types.ts';

export class BarSink {
  readonly inst: Instrument;
  readonly isTicks: boolean;
  readonly bars: BarColumns;
  /** Line number of each record, to name the line when a whole-file check fails. */
  readonly lineOf: Uint32Array;
  length = 0;
  /** Stamp of the last record (UTC seconds); -1 before the first. Zone conversion reads it for DST. */
  prevS = -1;
  private prevFracNs = 0;
  private prevLine = 0;

  constructor(inst: Instrument, capacity: number, isTicks: boolean) {
    this.inst = inst;
    this.isTicks = isTicks;
    this.bars = allocBars(Math.max(capacity, 1));
    this.lineOf = new Uint32Array(Math.max(capacity, 1));
  }

  /**
   * Parses the price and volume fields named by `cols` (open, high, low, close, volume field indexes;
   * volume -1 when the file has none, the same index four times for a tick's price) and pushes them.
   * `priceScale` divides prices by 10^priceScale (9 for Databento fixed-point integers).
   */
  pushFields(
    line: number, timeS: number, fracNs: number, text: string, f: FieldSplitter,
    cols: Int32Array, names: readonly string[], priceScale: number,
  ): ImportError | null {
    const starts = f.starts;
    const ends = f.ends;
    const o = parseDecimal(text, starts[cols[0]], ends[cols[0]], priceScale);
    const h = parseDecimal(text, starts[cols[1]], ends[cols[1]], priceScale);
    const l = parseDecimal(text, starts[cols[2]], ends[cols[2]], priceScale);
    const c = parseDecimal(text, starts[cols[3]], ends[cols[3]], priceScale);
    const v = cols[4] < 0 ? 0 : parseDecimal(text, starts[cols[4]], ends[cols[4]]);
    if (Number.isNaN(o + h + l + c + v)) return numberError(line, text, f, cols, names);
    return this.push(line, timeS, fracNs, o, h, l, c, v);
  }

  /** Validates one record and appends it; returns the first rule it breaks, or null. */
  push(
    line: number,
    timeS: number,
    fracNs: number,
    openPx: number,
    highPx: number,
    lowPx: number,
    closePx: number,
    volume: number,
  ): ImportError | null {
    if (!(timeS >= 0 && timeS <= coreLimits.barTimeSMax)) {
      return importError(line, 'bad_time', 'time is outside the storable range 1970-01-01 to 2106-02-07');
    }
    if (!this.isTicks && fracNs !== 0) {
      return importError(line, 'misaligned_time', `bar time ${stampText(timeS, fracNs)} is not on a whole second`);
    }
    const inst = this.inst;
    const o = priceToTicks(inst, openPx);
    const h = priceToTicks(inst, highPx);
    const l = priceToTicks(inst, lowPx);
    const c = priceToTicks(inst, closePx);
    if (o === undefined || h === undefined || l === undefined || c === undefined) {
      return gridError(inst, line, openPx, highPx, lowPx, closePx);
    }
    if (Math.max(Math.abs(o), Math.abs(h), Math.abs(l), Math.abs(c)) > coreLimits.barPriceTicksAbsMax) {
      return importError(line, 'bad_number', `price out of range for ${inst.symbol}`);
    }
    const top = o > c ? o : c;
    const bottom = o < c ? o : c;
    if (h < top) {
      return importError(line, 'ohlc_inconsistent',
        `high ${ticksToPrice(inst, h)} is below max(open, close) ${ticksToPrice(inst, top)}`);
    }
    if (l > bottom) {
      return importError(line, 'ohlc_inconsistent',
        `low ${ticksToPrice(inst, l)} is above min(open, close) ${ticksToPrice(inst, bottom)}`);
    }
    if (volume < 0) return importError(line, 'negative_volume', `volume ${volume} is negative`);
    if (!Number.isInteger(volume)) return importError(line, 'bad_number', `volume ${volume} is not a whole number`);
    if (volume > coreLimits.barVolumeMax) return importError(line, 'volume_too_large', `volume ${volume} exceeds ${coreLimits.barVolumeMax}`);
    if (this.length > 0) {
      const orderError = this.orderError(line, timeS, fracNs);
      if (orderError !== null) return orderError;
    }
    const i = this.length++;
    const b = this.bars;
    b.time[i] = timeS;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = volume;
    this.lineOf[i] = line;
    this.prevS = timeS;
    this.prevFracNs = fracNs;
    this.prevLine = line;
    return null;
  }

  private orderError(line: number, timeS: number, fracNs: number): ImportError | null {
    const prevS = this.prevS;
    if (timeS < prevS || (timeS === prevS && fracNs < this.prevFracNs)) {
      return importError(line, 'time_out_of_order',
        `time ${stampText(timeS, fracNs)} is before ${stampText(prevS, this.prevFracNs)} on line ${this.prevLine}`);
    }
    if (!this.isTicks && timeS === prevS) {
      return importError(line, 'duplicate_time', `time ${stampText(timeS, fracNs)} repeats line ${this.prevLine}`);
    }
    return null;
  }
}

function numberError(
  line: number, text: string, f: FieldSplitter, cols: Int32Array, names: readonly string[],
): ImportError {
  let k = 0;
  while (k < 4 && !Number.isNaN(parseDecimal(text, f.starts[cols[k]], f.ends[cols[k]]))) k++;
  return importError(line, 'bad_number', `${names[k]} "${f.text(text, cols[k])}" is not a number`);
}

function gridError(
  inst: Instrument, line: number, openPx: number, highPx: number, lowPx: number, closePx: number,
): ImportError {
  const fields: [string, number][] = [['open', openPx], ['high', highPx], ['low', lowPx], ['close', closePx]];
  const [name, px] = fields.find(([, p]) => priceToTicks(inst, p) === undefined) ?? fields[3];
  return importError(line, 'off_tick_grid',
    `${name} ${px} is not on the ${inst.tickSize} tick grid of ${inst.symbol}`);
}

/** `2024-01-02T14:30:00Z`, or with the sub-second part when there is one (messages only). */
export function stampText(timeS: number, fracNs: number): string {
  const iso = isoFromEpochS(timeS);
  if (fracNs === 0) return iso;
  return `${iso.slice(0, -1)}.${String(fracNs).padStart(9, '0').replace(/0+$/, '')}Z`;
}

/** Why bars of `widthS` seconds cannot become the instrument's stored bars, or null when they can. */
export function resolutionError(inst: Instrument, widthS: number): ImportError | null {
  const stored = inst.storedResolutionS;
  if (widthS > stored) {
    return importError(0, 'coarser_than_stored', `Bars are ${widthS}-second bars; ${inst.symbol} is stored at `
      + `${stored}-second resolution and cannot be built from coarser bars`);
  }
  if (widthS > 0 && stored % widthS !== 0) {
    return importError(0, 'width_not_divisor', `Bars are ${widthS}-second bars; ${inst.symbol} is stored at `
      + `${stored}-second resolution, which is not a whole number of ${widthS}-second bars`);
  }
  return null;
}

/**
 * Whole-file steps after the last line: bar width (declared, or inferred when `declaredWidthS` is 0),
 * refusal of unusable widths, alignment of every stamp, and close→open for `stamp: 'close'` formats.
 */
export function finishBars(sink: BarSink, declaredWidthS: number, stamp: 'open' | 'close'): ImportResult<ParsedBars> {
  const n = sink.length;
  const b = sink.bars;
  if (n === 0) return err(importError(0, 'empty_file', 'The file holds no bars'));
  let width = 0;
  if (!sink.isTicks) {
    if (declaredWidthS > 0) width = declaredWidthS;
    else if (n === 1) {
      return err(importError(sink.lineOf[0], 'single_bar',
        'One bar cannot tell its own width; import at least two consecutive bars'));
    } else width = smallestGapS(b.time, n);
  }
  const refusal = resolutionError(sink.inst, width);
  if (refusal !== null) return err(refusal);
  if (width > 0) {
    const time = b.time;
    for (let i = 0; i < n; i++) {
      if (time[i] % width !== 0) {
        return err(importError(sink.lineOf[i], 'misaligned_time',
          `bar time ${isoFromEpochS(time[i])} is not on the ${width}-second grid of this file's bars`));
      }
    }
    if (stamp === 'close') {
      // Close stamps are at least one width after the epoch: aligned and > 0 unless the stamp is 0.
      if (time[0] < width) return err(importError(sink.lineOf[0], 'bad_time', 'bar opens before 1970'));
      for (let i = 0; i < n; i++) time[i] -= width;
    }
  }
  b.length = n;
  return ok({ bars: b, sourceResolutionS: width, lines: n });
}

function smallestGapS(time: Uint32Array, n: number): number {
  let gap: number = coreLimits.barTimeSMax;
  for (let i = 1; i < n; i++) {
    const d = time[i] - time[i - 1];
    if (d > 0 && d < gap) gap = d;
  }
  return gap;
}

/**
 * Folds bars (or ticks) into `widthS`-second bars on the epoch grid, in place: the write index never
 * passes the read index. Returns -1, or the bucket time whose summed volume overflows 32 bits.
 */
export function aggregateInPlace(b: BarColumns, widthS: number): number {
  const { time, open, high, low, close, volume } = b;
  const n = b.length;
  let w = -1;
  let bucket = -1;
  for (let i = 0; i < n; i++) {
    const t = time[i];
    const start = t - (t % widthS);
    if (start !== bucket) {
      w++;
      bucket = start;
      time[w] = start;
      open[w] = open[i];
      high[w] = high[i];
      low[w] = low[i];
      close[w] = close[i];
      volume[w] = volume[i];
      continue;
    }
    if (high[i] > high[w]) high[w] = high[i];
    if (low[i] < low[w]) low[w] = low[i];
    close[w] = close[i];
    const v = volume[w] + volume[i];
    if (v > coreLimits.barVolumeMax) return start;
    volume[w] = v;
  }
  b.length = w + 1;
  return -1;
}
