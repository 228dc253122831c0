// A price chart for the console: candlesticks with volume underneath, in the console's dark theme,
// over TradingView's lightweight-charts (v5). Pages hand it bars as the API returns them
// ({t, o, h, l, c, v}, `t` ISO 8601 UTC) and get price lines and markers on top. The bars it draws
// are kept in chart-rows.ts (bucketed into wider widths there), what it draws over them in
// chart-overlays.ts.
//
// For tests (and anyone curious in devtools) the container's data attributes always say what the
// chart holds: data-bars, data-volume-bars, data-price-lines, data-markers, data-last-close,
// data-last-time (ISO), and data-append-ms (how long the last append took to draw).

import { clearChartDataset, writeChartDataset } from './chart-dataset.ts';
import { formatTime, zonedTickMark } from './time-format.ts';
import {
  type AutoscaleInfo,
  ColorType,
  createChart,
  CrosshairMode,
  HistogramSeries,
  type IChartApi,
  type ISeriesApi,
  type MouseEventParams,
  type Time,
} from 'lightweight-charts';
import { CHART_DRAWN_BARS_MAX, CHART_UPDATES_PER_APPEND_MAX } from './limits.ts';
import { type LineSpec, type MarkerSpec, ChartOverlays, type PriceLineSpec, type ShapeSpec } from './chart-overlays.ts';
import { type ApiBar, type CandleRow, candle, ChartRows, type VolumeRow, vol } from './chart-rows.ts';
import { drawOlderOnScroll, showSpanOf } from './chart-window.ts';
import { addCandles, CHART_COLORS } from './chart-theme.ts';

export type { LineSpec, MarkerSpec, PriceLineSpec } from './chart-overlays.ts';
export { type ApiBar, type CandleRow, toSeconds, type VolumeRow } from './chart-rows.ts';

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

export class PriceChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly rows = new ChartRows();
  private readonly overlays: ChartOverlays;
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
      // The axis and the crosshair in the zone Settings chose, as the clock and the legend.
      timeScale: { borderColor: CHART_COLORS.border, timeVisible: true, secondsVisible: !!opts.seconds, rightOffset: 6, tickMarkFormatter: (t: Time, kind: number) => this.axisMark(t as number, kind) },
      localization: { timeFormatter: (t: Time) => formatTime((t as number) * 1000).slice(0, opts.seconds ? 19 : 16) },
    });
    const priceFormat =
      opts.precision !== undefined ? { type: 'price' as const, precision: opts.precision, minMove: opts.minMove ?? 10 ** -opts.precision } : undefined;
    this.candles = addCandles(this.chart, {
      ...(priceFormat ? { priceFormat } : {}),
      // Price lines (orders, stops, targets) stay in view: the scale covers them too.
      autoscaleInfoProvider: (base: () => AutoscaleInfo | null) => {
        const r = base();
        const prices = this.overlays.linePrices;
        if (!r || !r.priceRange || prices.length === 0) return r;
        const lo = Math.min(r.priceRange.minValue, ...prices);
        const hi = Math.max(r.priceRange.maxValue, ...prices);
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
    this.overlays = new ChartOverlays(el, this.chart, this.candles, this.rows);
    drawOlderOnScroll(this.chart.timeScale(), this.rows, () => this.drawnMoved());
    this.sync();
  }

  /** Replaces every bar. */
  setBars(bars: readonly ApiBar[]): void {
    this.rows.setSource(bars);
    this.redraw();
  }

  /**
   * Draws the bars in wider buckets (`bucketOf` maps a bar's open to its bucket's start), or as
   * given (null): a bucket is the bars it holds merged, the last one as far as it has been played.
   */
  setBuckets(bucketOf: ((timeS: number) => number) | null, widthText = ''): void {
    this.rows.bucketOf = bucketOf;
    this.el.dataset.width = widthText;
    // Emptied before the redraw: a view set now would be moved as the old width's points go.
    this.overlays.emptyLines();
    this.redraw();
    this.overlays.replaceMarkers();
    this.sync();
  }

  /** Every row again from the source bars: one setData per series. */
  private redraw(): void {
    this.rows.rebuild();
    this.rows.drawnFrom = Math.max(0, this.rows.times.length - CHART_DRAWN_BARS_MAX);
    this.setSeriesData();
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
    const fresh = this.rows.appendSource(bars);
    if (fresh.length <= CHART_UPDATES_PER_APPEND_MAX) {
      for (const p of fresh) {
        const row = this.rows.rowOf(p);
        this.candles.update(candle(row));
        this.volume.update(vol(row));
        this.rows.keep(row);
      }
    } else if (this.rows.bucketOf) {
      const following = this.followsLatest();
      this.redraw();
      if (following) this.chart.timeScale().scrollToRealTime();
    } else {
      const following = this.followsLatest();
      const view = this.chart.timeScale().getVisibleLogicalRange();
      for (const p of fresh) this.rows.keep(p);
      // Following: the latest bars only (the rest drawn as the view scrolls back); looking back: the drawn bars stay, the new ones join them.
      if (following) this.rows.drawnFrom = Math.max(0, this.rows.times.length - CHART_DRAWN_BARS_MAX);
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
    this.candles.setData(this.rows.drawnCandles());
    this.volume.setData(this.rows.drawnVolumes());
  }

  /** Whether the view shows the latest bar (then it keeps showing it after a jump). */
  private followsLatest(): boolean {
    const r = this.chart.timeScale().getVisibleLogicalRange();
    return r === null || r.to >= this.rows.times.length - this.rows.drawnFrom - 1;
  }

  /** The bars as drawn (bucketed when a width is set), oldest first: what indicators are computed over. */
  drawnBars(): readonly CandleRow[] {
    return this.rows.drawnCandles();
  }

  /** The volumes of drawnBars(), row for row. */
  drawnVolumes(): readonly VolumeRow[] {
    return this.rows.drawnVolumes();
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
    this.overlays.setLine(key, points, style);
  }

  hasLine(key: string): boolean {
    return this.overlays.hasLine(key);
  }

  removeLine(key: string): void {
    this.overlays.removeLine(key);
  }

  /** The user's horizontal lines (drawings), apart from the order lines and kept off the autoscale. */
  setDrawingLines(lines: readonly PriceLineSpec[]): void {
    this.overlays.setDrawingLines(lines);
  }

  /** Replaces one layer of the shapes drawn over the candles (chart-shapes.ts): rectangles, rays, levels, notes. */
  setShapes = (layer: string, shapes: readonly ShapeSpec[]): void => this.overlays.setShapes(layer, shapes);

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
    return this.rows.times.length;
  }

  get lastTime(): number | null {
    return this.rows.lastTime;
  }

  /** Replaces the horizontal price lines (working orders, average price…). */
  setPriceLines(lines: readonly PriceLineSpec[]): void {
    this.overlays.setPriceLines(lines);
    this.sync();
  }

  /** Replaces the markers (fills, trades); each goes on the bar holding its time. */
  setMarkers(markers: readonly MarkerSpec[]): void {
    this.overlays.setMarkers(markers);
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

  /**
   * Shows the bars from `fromS` to `toS` (epoch seconds, each on the bar holding it) with `padBars`
   * bars either side: a journal trade picked from its table.
   */
  showSpan(fromS: number, toS: number, padBars: number): void {
    showSpanOf(this.chart.timeScale(), this.rows, fromS, toS, padBars, () => this.drawnMoved());
  }

  /** The times of the first and last bars in view (epoch seconds), null without bars. */
  visibleSpan(): { fromS: number; toS: number } | null {
    const r = this.chart.timeScale().getVisibleLogicalRange();
    return r ? this.rows.timesAt(r.from, r.to) : null;
  }

  /** Shows the last `n` bars. */
  showLast(n: number): void {
    const count = this.rows.times.length - this.rows.drawnFrom;
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
    clearChartDataset(this.el);
  }

  /** The time of the drawn bar at or before `s` (lines must sit on bars); -1 if none. */
  barTimeAtOrBefore(s: number): number {
    return this.rows.timeAtOrBefore(s);
  }

  /** An axis label in the chosen zone; the last one drawn is kept on the element (`data-axis-mark`: epoch|kind|label) for tests. */
  private axisMark(epochS: number, kind: number): string {
    const label = zonedTickMark(epochS, kind);
    this.el.dataset.axisMark = `${epochS}|${kind}|${label}`;
    return label;
  }

  /** The drawn bars start elsewhere (`rows.drawnFrom`): the series, the markers on them, the dataset, the listeners. */
  private drawnMoved(): void {
    this.setSeriesData();
    this.overlays.replaceMarkers();
    this.sync();
    this.barsChanged();
  }

  private barsChanged(): void {
    for (const f of this.barListeners) f();
  }

  private sync(): void {
    writeChartDataset(this.el, this.rows, this.overlays);
  }
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

/** Creates a chart on an element (a convenience for `new PriceChart`). */
export function createPriceChart(el: HTMLElement, opts?: PriceChartOptions): PriceChart {
  return new PriceChart(el, opts);
}
