// The bars a price chart (chart.ts) draws, kept beside its series: the source bars as given (the
// session's width) and the rows drawn from them, merged into wider buckets when a width is set.
// Bookkeeping only: the chart hands these rows to lightweight-charts.

import type { CandlestickData, HistogramData, UTCTimestamp } from 'lightweight-charts';
import type { Static } from '@sinclair/typebox';
import type { Bar } from '../http/shared/schemas.ts';
import { CHART_COLORS } from './chart-theme.ts';

/** A bar as History/retrieveBars and Replay/step return it. */
export type ApiBar = Static<typeof Bar>;
export type CandleRow = CandlestickData<UTCTimestamp>;
export type VolumeRow = HistogramData<UTCTimestamp>;

export interface ParsedBar {
  time: UTCTimestamp;
  open: number;
  high: number;
  low: number;
  close: number;
  value: number;
}

/** Epoch seconds of an ISO time (or seconds passed through). */
export function toSeconds(t: string | number): UTCTimestamp {
  return (typeof t === 'number' ? Math.floor(t) : Math.floor(Date.parse(t) / 1000)) as UTCTimestamp;
}

export const candle = (b: ParsedBar): CandleRow => ({ time: b.time, open: b.open, high: b.high, low: b.low, close: b.close });
export const vol = (b: ParsedBar): VolumeRow => ({ time: b.time, value: b.value, color: b.close >= b.open ? CHART_COLORS.upVolume : CHART_COLORS.downVolume });

export class ChartRows {
  /** The bars as given (the session's width); the rows below are these, bucketed when `bucketOf` is set. */
  private source: ParsedBar[] = [];
  bucketOf: ((timeS: number) => number) | null = null;
  /** What the series hold, kept here: a long append is one setData over them. */
  candles: CandleRow[] = [];
  volumes: VolumeRow[] = [];
  times: number[] = [];
  lastClose: number | null = null;
  /** The index of the first row the chart's series hold (chart.ts draws the latest rows only). */
  drawnFrom = 0;

  /** The rows the series hold: from `drawnFrom` on. */
  drawnCandles(): CandleRow[] {
    return this.drawnFrom === 0 ? this.candles : this.candles.slice(this.drawnFrom);
  }

  drawnVolumes(): VolumeRow[] {
    return this.drawnFrom === 0 ? this.volumes : this.volumes.slice(this.drawnFrom);
  }

  /** Replaces every source bar (the rows follow on rebuild). */
  setSource(bars: readonly ApiBar[]): void {
    this.source = dedupe(bars);
  }

  /** Every row again from the source bars. */
  rebuild(): void {
    const rows = this.bucketOf ? bucketed(this.source, this.bucketOf) : this.source;
    this.candles = rows.map(candle);
    this.volumes = rows.map(vol);
    this.times = rows.map((b) => b.time);
    this.lastClose = rows.length ? rows[rows.length - 1].close : null;
  }

  /** Adds the bars of `bars` at or after the last source bar to the source; returns them, parsed. */
  appendSource(bars: readonly ApiBar[]): ParsedBar[] {
    const fresh = this.afterLast(bars);
    for (const p of fresh) this.keepSource(p);
    return fresh;
  }

  /** The row an appended source bar is drawn as: itself, or the last bucket with it merged in. */
  rowOf(p: ParsedBar): ParsedBar {
    return this.bucketOf ? this.lastBucket(this.bucketOf(p.time)) : p;
  }

  /** Records a row the series now hold (replacing the last one at the same time). */
  keep(p: ParsedBar): void {
    const n = this.times.length;
    if (n > 0 && this.times[n - 1] === p.time) {
      this.candles[n - 1] = candle(p);
      this.volumes[n - 1] = vol(p);
    } else {
      this.times.push(p.time);
      this.candles.push(candle(p));
      this.volumes.push(vol(p));
    }
    this.lastClose = p.close;
  }

  get lastTime(): number | null {
    return this.times.length ? this.times[this.times.length - 1] : null;
  }

  /** The index of the last bar at or before `s` among every bar held (0 when none is). */
  indexAtOrBefore(s: number): number {
    const times = this.times;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= s) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  }

  /** The times of the bars at the series' logical positions `from` and `to` (counted from `drawnFrom`, clamped), null without bars. */
  timesAt(from: number, to: number): { fromS: number; toS: number } | null {
    const times = this.times;
    if (times.length === 0) return null;
    const at = (i: number) => times[Math.min(times.length - 1, Math.max(0, this.drawnFrom + Math.round(i)))];
    return { fromS: at(Math.ceil(from)), toS: at(Math.floor(to)) };
  }

  /** The time of the drawn bar at or before `s`; -1 if none. */
  timeAtOrBefore(s: number): number {
    const ts = this.times;
    // Only drawn bars hold a marker or a line's end: before them there is nothing on the chart.
    if (ts.length === 0 || s < ts[this.drawnFrom]) return -1;
    let lo = this.drawnFrom;
    let hi = ts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] <= s) {
        found = ts[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Records a source bar (replacing the last one at the same time). */
  private keepSource(p: ParsedBar): void {
    const n = this.source.length;
    if (n > 0 && this.source[n - 1].time === p.time) this.source[n - 1] = p;
    else this.source.push(p);
  }

  /** The bucket starting at `start`, merged from the source bars it holds (the last ones). */
  private lastBucket(start: number): ParsedBar {
    let i = this.source.length - 1;
    while (i > 0 && this.bucketOf!(this.source[i - 1].time) === start) i--;
    return bucketed(this.source.slice(i), () => start)[0];
  }

  /** The bars of `bars` at or after the last bar's time, parsed, one per time (the later wins). */
  private afterLast(bars: readonly ApiBar[]): ParsedBar[] {
    const out: ParsedBar[] = [];
    let last = this.source.length ? this.source[this.source.length - 1].time : -Infinity;
    for (const b of bars) {
      const p = parse(b);
      if (p.time < last) continue;
      if (p.time === last && out.length > 0) out[out.length - 1] = p;
      else out.push(p);
      last = p.time;
    }
    return out;
  }
}

/** Bars merged per bucket: first open, highest high, lowest low, last close, volumes summed. */
function bucketed(bars: readonly ParsedBar[], bucketOf: (timeS: number) => number): ParsedBar[] {
  const out: ParsedBar[] = [];
  for (const b of bars) {
    const time = bucketOf(b.time) as UTCTimestamp;
    const last = out[out.length - 1];
    if (last && last.time === time) {
      last.high = Math.max(last.high, b.high);
      last.low = Math.min(last.low, b.low);
      last.close = b.close;
      last.value += b.value;
    } else out.push({ ...b, time });
  }
  return out;
}

function parse(b: ApiBar): ParsedBar {
  return { time: toSeconds(b.t), open: b.o, high: b.h, low: b.l, close: b.c, value: b.v };
}

/** Chronological with one bar per time (the later one wins). */
function dedupe(bars: readonly ApiBar[]): ParsedBar[] {
  const byTime = new Map<number, ParsedBar>();
  for (const b of bars) {
    const p = parse(b);
    byTime.set(p.time, p);
  }
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}
