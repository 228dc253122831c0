// A price chart for the console: candlesticks with volume underneath, in the console's dark theme,
// over TradingView's lightweight-charts (v5). Pages hand it bars as the API returns them
// ({t, o, h, l, c, v}, `t` ISO 8601 UTC) and get price lines and markers on top.
//
// For tests (and anyone curious in devtools) the container's data attributes always say what the
// chart holds: data-bars, data-volume-bars, data-price-lines, data-markers, data-last-close,
// data-last-time (ISO), and data-append-ms (how long the last append took to draw).

import { formatTime } from './time-format.ts';
import {
  type AutoscaleInfo,
  type CandlestickData,
  ColorType,
  createChart,
  createSeriesMarkers,
  CrosshairMode,
  type HistogramData,
  HistogramSeries,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type LineData,
  LineSeries,
  LineStyle,
  type MouseEventParams,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import type { Static } from '@sinclair/typebox';
import type { Bar } from '../http/shared/schemas.ts';
import { CHART_UPDATES_PER_APPEND_MAX } from './limits.ts';
import { addCandles, CHART_COLORS } from './chart-theme.ts';

/** A bar as History/retrieveBars and Replay/step return it. */
export type ApiBar = Static<typeof Bar>;

export interface PriceLineSpec {
  price: number;
  title: string;
  color: string;
  /** Dashed by default; 'solid' for an average price, say. */
  style?: 'solid' | 'dashed' | 'dotted';
}

export interface MarkerSpec {
  /** ISO 8601 or epoch seconds; placed on the bar holding that time. */
  time: string | number;
  side: 'buy' | 'sell';
  text?: string;
  /** Overrides the side's color. */
  color?: string;
}

export interface PriceChartOptions {
  /** Price format precision, e.g. from the instrument's tick size (see decimalsOf). */
  precision?: number;
  minMove?: number;
  /** Show seconds on the time axis (second timeframes). */
  seconds?: boolean;
}

/** Decimals needed to print a tick size: 0.25 → 2, 0.00001 → 5, 1 → 0. */
export function decimalsOf(tickSize: number): number {
  const s = String(tickSize);
  if (s.includes('e-')) return Number(s.split('e-')[1]);
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/** Epoch seconds of an ISO time (or seconds passed through). */
export function toSeconds(t: string | number): UTCTimestamp {
  return (typeof t === 'number' ? Math.floor(t) : Math.floor(Date.parse(t) / 1000)) as UTCTimestamp;
}

export class PriceChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly markersApi: ISeriesMarkersPluginApi<Time>;
  private lines: IPriceLine[] = [];
  private linePrices: number[] = [];
  private barTimes: number[] = [];
  /** What the series hold, kept here: a long append is one setData over them. */
  private candleRows: CandleRow[] = [];
  private volumeRows: VolumeRow[] = [];
  private markerCount = 0;
  /** Set again on the bars' new times when the width changes. */
  private markerSpecs: readonly MarkerSpec[] = [];
  private lastClose: number | null = null;
  /** The bars as given (the session's width); the rows above are these, bucketed when `bucketOf` is set. */
  private source: ParsedBar[] = [];
  private bucketOf: ((timeS: number) => number) | null = null;
  private readonly lineSeries = new Map<string, ISeriesApi<'Line'>>();
  private drawingLines: IPriceLine[] = [];
  private readonly barListeners = new Set<() => void>();

  constructor(
    private readonly el: HTMLElement,
    opts: PriceChartOptions = {},
  ) {
    this.chart = createChart(el, {
      autoSize: true,
      layout: {
        background: { type: ColorType.Solid, color: 'transparent' },
        textColor: CHART_COLORS.text,
        fontSize: 11,
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
        attributionLogo: false,
      },
      grid: { vertLines: { color: CHART_COLORS.grid }, horzLines: { color: CHART_COLORS.grid } },
      crosshair: { mode: CrosshairMode.Normal },
      rightPriceScale: { borderColor: CHART_COLORS.border, scaleMargins: { top: 0.08, bottom: 0.24 } },
      timeScale: { borderColor: CHART_COLORS.border, timeVisible: true, secondsVisible: !!opts.seconds, rightOffset: 6 },
      // The crosshair's time in the zone Settings chose (the axis' tick labels stay UTC).
      localization: { timeFormatter: (t: Time) => formatTime((t as number) * 1000).slice(0, opts.seconds ? 19 : 16) },
    });
    const priceFormat =
      opts.precision !== undefined ? { type: 'price' as const, precision: opts.precision, minMove: opts.minMove ?? 10 ** -opts.precision } : undefined;
    this.candles = addCandles(this.chart, {
      ...(priceFormat ? { priceFormat } : {}),
      // Price lines (orders, stops, targets) stay in view: the scale covers them too.
      autoscaleInfoProvider: (base: () => AutoscaleInfo | null) => {
        const r = base();
        if (!r || !r.priceRange || this.linePrices.length === 0) return r;
        const lo = Math.min(r.priceRange.minValue, ...this.linePrices);
        const hi = Math.max(r.priceRange.maxValue, ...this.linePrices);
        return { ...r, priceRange: { minValue: lo, maxValue: hi } };
      },
    });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: '',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.markersApi = createSeriesMarkers(this.candles, []);
    this.sync();
  }

  /** Replaces every bar. */
  setBars(bars: readonly ApiBar[]): void {
    this.source = dedupe(bars);
    this.redraw();
  }

  /**
   * Draws the bars in wider buckets (`bucketOf` maps a bar's open to its bucket's start), or as
   * given (null): a bucket is the bars it holds merged, the last one as far as it has been played.
   */
  setBuckets(bucketOf: ((timeS: number) => number) | null, widthText = ''): void {
    this.bucketOf = bucketOf;
    this.el.dataset.width = widthText;
    // The lines hold the old width's times, which the time scale would keep as points of its own
    // (and a view set now would be moved as they go): emptied here, drawn again by their owners.
    for (const s of this.lineSeries.values()) s.setData([]);
    this.redraw();
    this.setMarkers(this.markerSpecs);
  }

  /** Every row again from the source bars: one setData per series. */
  private redraw(): void {
    const rows = this.bucketOf ? bucketed(this.source, this.bucketOf) : this.source;
    this.candleRows = rows.map(candle);
    this.volumeRows = rows.map(vol);
    this.setSeriesData();
    this.barTimes = rows.map((b) => b.time);
    this.lastClose = rows.length ? rows[rows.length - 1].close : null;
    this.sync();
    this.barsChanged();
  }

  /**
   * Adds bars after the last one (a bar with the last one's time replaces it; older ones are ignored).
   * A few bars (a step, the hub's bars while playing) are updates; more (a jump) are one setData over
   * the merged rows: lightweight-charts' update re-derives the whole time scale per call, so a month
   * of 1 m bars updated one by one took 51 s to draw.
   */
  appendBars(bars: readonly ApiBar[]): void {
    const t0 = performance.now();
    const fresh = this.afterLast(bars);
    for (const p of fresh) this.keepSource(p);
    if (fresh.length <= CHART_UPDATES_PER_APPEND_MAX) {
      for (const p of fresh) {
        const row = this.bucketOf ? this.lastBucket(this.bucketOf(p.time)) : p;
        this.candles.update(candle(row));
        this.volume.update(vol(row));
        this.keep(row);
      }
    } else if (this.bucketOf) {
      const following = this.followsLatest();
      this.redraw();
      if (following) this.chart.timeScale().scrollToRealTime();
    } else {
      const following = this.followsLatest();
      const view = this.chart.timeScale().getVisibleLogicalRange();
      for (const p of fresh) this.keep(p);
      this.setSeriesData();
      // The bars before the new ones keep their indexes: a trader looking back stays where they were.
      if (following) this.chart.timeScale().scrollToRealTime();
      else if (view) this.chart.timeScale().setVisibleLogicalRange(view);
    }
    this.el.dataset.appendMs = (performance.now() - t0).toFixed(1);
    this.sync();
    this.barsChanged();
  }

  /**
   * Both series' rows at once. Emptied first: lightweight-charts merges a series' new times with every
   * other series' on setData (unlinking the old ones point by point, then sorting all): a month of 1 m
   * bars set over 500 took 392 and 846 ms where emptied first it took 326 and 545 (medians of 20, two
   * runs at load 15 on the shared machine).
   */
  private setSeriesData(): void {
    this.candles.setData([]);
    this.volume.setData([]);
    this.candles.setData(this.candleRows);
    this.volume.setData(this.volumeRows);
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

  /** Records a bar the series now holds (replacing the last one at the same time). */
  private keep(p: ParsedBar): void {
    const n = this.barTimes.length;
    if (n > 0 && this.barTimes[n - 1] === p.time) {
      this.candleRows[n - 1] = candle(p);
      this.volumeRows[n - 1] = vol(p);
    } else {
      this.barTimes.push(p.time);
      this.candleRows.push(candle(p));
      this.volumeRows.push(vol(p));
    }
    this.lastClose = p.close;
  }

  /** Whether the view shows the latest bar (then it keeps showing it after a jump). */
  private followsLatest(): boolean {
    const r = this.chart.timeScale().getVisibleLogicalRange();
    return r === null || r.to >= this.barTimes.length - 1;
  }

  /** The bars as drawn (bucketed when a width is set), oldest first: what indicators are computed over. */
  drawnBars(): readonly CandleRow[] {
    return this.candleRows;
  }

  /** The volumes of drawnBars(), row for row. */
  drawnVolumes(): readonly VolumeRow[] {
    return this.volumeRows;
  }

  /** Calls `f` after the drawn bars change (set, appended, rebucketed). Returns an unsubscribe. */
  onBarsChange(f: () => void): () => void {
    this.barListeners.add(f);
    return () => this.barListeners.delete(f);
  }

  /**
   * Draws or replaces the line `key` (an indicator, a trend line) in pane 0 (over the candles, on
   * their price scale) or pane 1 (under them, its own scale). Null values are gaps.
   */
  setLine(key: string, points: readonly { time: number; value: number | null }[], style: LineSpec): void {
    let series = this.lineSeries.get(key);
    if (!series) {
      series = this.chart.addSeries(
        LineSeries,
        { color: style.color, lineWidth: style.width ?? 1, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false, title: style.title ?? '' },
        style.pane ?? 0,
      );
      this.lineSeries.set(key, series);
      if ((style.pane ?? 0) === 1) this.chart.panes()[1]?.setHeight(style.paneHeightPx ?? 110);
    }
    series.setData(points.map((p) => (p.value === null ? { time: p.time as UTCTimestamp } : ({ time: p.time, value: p.value } as LineData<UTCTimestamp>))));
    this.el.dataset.lines = [...this.lineSeries.keys()].sort().join(' ');
  }

  hasLine(key: string): boolean {
    return this.lineSeries.has(key);
  }

  removeLine(key: string): void {
    const series = this.lineSeries.get(key);
    if (!series) return;
    this.chart.removeSeries(series);
    this.lineSeries.delete(key);
    this.el.dataset.lines = [...this.lineSeries.keys()].sort().join(' ');
  }

  /** The user's horizontal lines (drawings), apart from the order lines and kept off the autoscale. */
  setDrawingLines(lines: readonly PriceLineSpec[]): void {
    for (const l of this.drawingLines) this.candles.removePriceLine(l);
    this.drawingLines = lines.map((l) =>
      this.candles.createPriceLine({ price: l.price, color: l.color, title: l.title, lineWidth: 1, lineStyle: LineStyle.Solid, axisLabelVisible: true }),
    );
    this.el.dataset.drawingLines = String(lines.length);
    this.el.dataset.drawingPrices = lines.map((l) => l.price).join(' ');
  }

  /**
   * Calls `f` on a click in the price pane with the price and bar time under the pointer and the keys
   * held. Read from the element's own clicks: the library drops a second click that comes quickly
   * (its double-click window) anywhere but at the first one's place, such as a trend line's second end.
   * A press that moved (a pan) is not a click.
   */
  onClick(f: (c: ChartClick) => void): () => void {
    let down: { x: number; y: number } | null = null;
    const press = (e: MouseEvent) => {
      down = { x: e.clientX, y: e.clientY };
    };
    const click = (e: MouseEvent) => {
      const moved = down ? Math.abs(e.clientX - down.x) + Math.abs(e.clientY - down.y) : 0;
      const c = moved > 4 ? null : this.clickAt(e);
      if (c) f(c);
    };
    this.el.addEventListener('mousedown', press);
    this.el.addEventListener('click', click);
    return () => {
      this.el.removeEventListener('mousedown', press);
      this.el.removeEventListener('click', click);
    };
  }

  private clickAt(e: MouseEvent): ChartClick | null {
    const r = this.el.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const paneHeight = this.chart.panes()[0]?.getHeight() ?? 0;
    if (y < 0 || y >= paneHeight || x < 0 || x >= this.chart.timeScale().width()) return null;
    const price = this.candles.coordinateToPrice(y);
    if (price === null) return null;
    const t = this.chart.timeScale().coordinateToTime(x);
    const time = t === null ? this.lastTime : this.barTimeAtOrBefore(t as number);
    return { price, time: time === null || time < 0 ? null : time, shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey || e.metaKey };
  }

  /** Calls `f` as the pointer moves over a bar (its row), or leaves the bars (null). */
  onHover(f: (row: CandleRow | null, volume: number | null) => void): () => void {
    const h = (p: MouseEventParams<Time>) => {
      const row = p.time === undefined ? undefined : (p.seriesData.get(this.candles) as CandleRow | undefined);
      const v = p.time === undefined ? undefined : (p.seriesData.get(this.volume) as VolumeRow | undefined);
      f(row && 'open' in row ? row : null, v && 'value' in v ? v.value : null);
    };
    this.chart.subscribeCrosshairMove(h);
    return () => this.chart.unsubscribeCrosshairMove(h);
  }

  /** The price at a y coordinate of the price pane (dragging an order), null off the scale. */
  yToPrice(y: number): number | null {
    return this.candles.coordinateToPrice(y);
  }

  get barCount(): number {
    return this.barTimes.length;
  }

  get lastTime(): number | null {
    return this.barTimes.length ? this.barTimes[this.barTimes.length - 1] : null;
  }

  /** Replaces the horizontal price lines (working orders, average price…). */
  setPriceLines(lines: readonly PriceLineSpec[]): void {
    for (const l of this.lines) this.candles.removePriceLine(l);
    this.lines = lines.map((l) =>
      this.candles.createPriceLine({
        price: l.price,
        color: l.color,
        title: l.title,
        lineWidth: 1,
        lineStyle: l.style === 'solid' ? LineStyle.Solid : l.style === 'dotted' ? LineStyle.Dotted : LineStyle.Dashed,
        axisLabelVisible: true,
      }),
    );
    this.linePrices = lines.map((l) => l.price);
    this.el.dataset.priceLineTitles = lines.map((l) => l.title).join('|');
    this.sync();
  }

  /** Replaces the markers (fills, trades); each goes on the bar holding its time. */
  setMarkers(markers: readonly MarkerSpec[]): void {
    this.markerSpecs = markers;
    const out: SeriesMarker<Time>[] = markers
      .map((m) => {
        const buy = m.side === 'buy';
        return {
          time: this.barTimeAtOrBefore(toSeconds(m.time)) as Time,
          position: buy ? ('belowBar' as const) : ('aboveBar' as const),
          shape: buy ? ('arrowUp' as const) : ('arrowDown' as const),
          color: m.color ?? (buy ? CHART_COLORS.up : CHART_COLORS.down),
          text: m.text,
        };
      })
      .filter((m) => (m.time as number) >= 0)
      .sort((a, b) => (a.time as number) - (b.time as number));
    this.markersApi.setMarkers(out);
    this.markerCount = out.length;
    this.sync();
  }

  /** Shows every bar. */
  fit(): void {
    this.chart.timeScale().fitContent();
  }

  /** Scrolls so the latest bar is at the right edge (keeps the zoom). */
  scrollToLatest(): void {
    this.chart.timeScale().scrollToRealTime();
  }

  /** Shows the last `n` bars. */
  showLast(n: number): void {
    const count = this.barTimes.length;
    if (count === 0) return;
    this.chart.timeScale().setVisibleLogicalRange({ from: Math.max(-2, count - n), to: count + 4 });
  }

  /** The y coordinate of a price in the chart's pane, null when off scale (for overlays). */
  priceToY(price: number): number | null {
    return this.candles.priceToCoordinate(price);
  }

  /** Width of the right price scale in px (for overlays that stay left of it). */
  priceScaleWidth(): number {
    return this.chart.priceScale('right').width();
  }

  /** Calls `f` whenever the view may have moved (scroll, zoom, resize). Returns an unsubscribe. */
  onViewChange(f: () => void): () => void {
    const ts = this.chart.timeScale();
    ts.subscribeVisibleLogicalRangeChange(f);
    ts.subscribeSizeChange(f);
    return () => {
      ts.unsubscribeVisibleLogicalRangeChange(f);
      ts.unsubscribeSizeChange(f);
    };
  }

  destroy(): void {
    this.chart.remove();
    for (const k of ['bars', 'volumeBars', 'priceLines', 'markers', 'lastClose', 'lastTime', 'appendMs', 'priceLineTitles', 'lines', 'drawingLines', 'drawingPrices', 'width']) delete this.el.dataset[k];
  }

  /** The time of the drawn bar at or before `s` (lines must sit on bars); -1 if none. */
  barTimeAtOrBefore(s: number): number {
    const ts = this.barTimes;
    let lo = 0;
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

  private barsChanged(): void {
    for (const f of this.barListeners) f();
  }

  private sync(): void {
    const d = this.el.dataset;
    // Our own rows, not series.data(), which copies every bar on each call.
    d.bars = String(this.candleRows.length);
    d.volumeBars = String(this.volumeRows.length);
    d.lastTime = this.barTimes.length ? new Date(this.barTimes[this.barTimes.length - 1] * 1000).toISOString() : '';
    d.priceLines = String(this.lines.length);
    d.markers = String(this.markerCount);
    d.lastClose = this.lastClose === null ? '' : String(this.lastClose);
  }
}

export interface LineSpec {
  color: string;
  width?: 1 | 2 | 3 | 4;
  /** 0: over the candles; 1: the pane under them (RSI, ATR). */
  pane?: 0 | 1;
  paneHeightPx?: number;
  title?: string;
}

export interface ChartClick {
  price: number;
  /** The bar under the pointer (epoch seconds), or the last bar right of the bars; null without bars. */
  time: number | null;
  shift: boolean;
  alt: boolean;
  /** Ctrl, or ⌘ on a Mac. */
  ctrl: boolean;
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

interface ParsedBar {
  time: UTCTimestamp;
  open: number;
  high: number;
  low: number;
  close: number;
  value: number;
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

export type CandleRow = CandlestickData<UTCTimestamp>;
export type VolumeRow = HistogramData<UTCTimestamp>;

const candle = (b: ParsedBar): CandleRow => ({ time: b.time, open: b.open, high: b.high, low: b.low, close: b.close });
const vol = (b: ParsedBar): VolumeRow => ({ time: b.time, value: b.value, color: b.close >= b.open ? CHART_COLORS.upVolume : CHART_COLORS.downVolume });

/** Creates a chart on an element (a convenience for `new PriceChart`). */
export function createPriceChart(el: HTMLElement, opts?: PriceChartOptions): PriceChart {
  return new PriceChart(el, opts);
}
