// The price chart under a run's trades: candlesticks (lightweight-charts) with the trades as markers,
// regrouped whenever the zoom changes so they never pile up (trade-marks.ts), and moved to a trade
// on request. The container's data attributes say what is drawn, for tests: data-bars, data-trades
// (trades on the chart), data-marks (their entry and exit marks), data-markers (markers drawn),
// data-grouped (drawn markers standing for several marks), data-cell-bars (how many bars apart a
// side's markers are at least), data-focused (the picked trade, or '') and data-focused-markers,
// data-visible-from / data-visible-to (epoch seconds at the edges of the view).

import {
  ColorType,
  createChart,
  createSeriesMarkers,
  CrosshairMode,
  type IChartApi,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type ApiBar, toSeconds } from '../../chart.ts';
import { addCandles, CHART_COLORS } from '../../chart-theme.ts';
import { groupMarks, type TradeMark, tradeMarks } from './trade-marks.ts';
import type { Trade } from './types.ts';
import { formatTime, zonedTickMark } from '../../time-format.ts';

/** Two markers of a side closer than this, in pixels, would overlap: they become one. */
const MARKER_GAP_PX = 14;
/** Single markers carry text up to this many trades, or when bars are at least this wide. */
const LABELLED_TRADES = 40;
const LABEL_SPACING_PX = 30;
const EXIT_COLOR = '#c9d1d9';
const GROUP_COLOR = '#8b949e';

export class TradesChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly markers: ISeriesMarkersPluginApi<Time>;
  private times: number[] = [];
  private trades: readonly Trade[] = [];
  private marks: TradeMark[] = [];
  private focused: number | null = null;
  private frame = 0;

  constructor(private readonly el: HTMLElement, opts: { precision: number; minMove: number; seconds: boolean }) {
    this.chart = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: 'transparent' }, textColor: CHART_COLORS.text, fontSize: 11, attributionLogo: false },
      grid: { vertLines: { color: CHART_COLORS.grid }, horzLines: { color: CHART_COLORS.grid } },
      crosshair: { mode: CrosshairMode.Normal },
      rightPriceScale: { borderColor: CHART_COLORS.border },
      // Fit shows every bar of a long run (the default minimum, 0.5 px a bar, would cut it).
      // The axis and the crosshair in the zone Settings chose, as the run's trade table.
      timeScale: { borderColor: CHART_COLORS.border, timeVisible: true, secondsVisible: opts.seconds, minBarSpacing: 0.01, tickMarkFormatter: (t: Time, kind: number) => zonedTickMark(t as number, kind) },
      localization: { timeFormatter: (t: Time) => formatTime((t as number) * 1000).slice(0, opts.seconds ? 19 : 16) },
    });
    this.candles = addCandles(this.chart, {
      priceFormat: { type: 'price', precision: opts.precision, minMove: opts.minMove },
    });
    this.markers = createSeriesMarkers(this.candles, []);
    const ts = this.chart.timeScale();
    ts.subscribeVisibleLogicalRangeChange(this.schedule);
    ts.subscribeSizeChange(this.schedule);
  }

  setBars(bars: readonly ApiBar[]): void {
    const byTime = new Map<number, ApiBar>();
    for (const b of bars) byTime.set(toSeconds(b.t), b);
    const times = [...byTime.keys()].sort((a, b) => a - b);
    this.candles.setData(times.map((t) => {
      const b = byTime.get(t)!;
      return { time: t as UTCTimestamp, open: b.o, high: b.h, low: b.l, close: b.c };
    }));
    this.times = times;
    this.marks = tradeMarks(this.trades, times);
    this.el.dataset.bars = String(times.length);
    this.schedule();
  }

  setTrades(trades: readonly Trade[]): void {
    this.trades = trades;
    this.marks = tradeMarks(trades, this.times);
    this.schedule();
  }

  /** Shows every bar. */
  fit(): void {
    this.chart.timeScale().fitContent();
  }

  /** Moves the view to trade `i` (its entry to its exit, with as much again around) and marks it. */
  focus(i: number): void {
    const own = this.marks.filter((m) => m.trade === i);
    this.focused = i;
    if (own.length > 0) {
      const from = Math.min(...own.map((m) => m.bar));
      const to = Math.max(...own.map((m) => m.bar));
      const pad = Math.max(15, to - from);
      this.chart.timeScale().setVisibleLogicalRange({ from: from - pad, to: to + pad });
    }
    this.schedule();
  }

  destroy(): void {
    cancelAnimationFrame(this.frame);
    this.chart.remove();
  }

  private readonly schedule = (): void => {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.draw());
  };

  /** Regroups the markers for the current bar spacing and records what is drawn. */
  private draw(): void {
    const ts = this.chart.timeScale();
    const range = ts.getVisibleLogicalRange();
    const spacingPx = range && range.to > range.from ? ts.width() / (range.to - range.from) : 1;
    const cellBars = Math.max(1, Math.ceil(MARKER_GAP_PX / spacingPx));
    const labelled = this.trades.length <= LABELLED_TRADES || spacingPx >= LABEL_SPACING_PX;
    const drawn = groupMarks(this.marks, cellBars, this.focused, labelled);
    const out: SeriesMarker<Time>[] = drawn.map((d) => ({
      time: this.times[d.bar]! as Time,
      position: d.side === 'buy' ? 'belowBar' : 'aboveBar',
      shape: d.kind === 'group' ? 'circle' : d.side === 'buy' ? 'arrowUp' : 'arrowDown',
      color: d.kind === 'focused' ? CHART_COLORS.warn : d.kind === 'group' ? GROUP_COLOR : d.kind === 'exit' ? EXIT_COLOR : d.side === 'buy' ? CHART_COLORS.up : CHART_COLORS.down,
      text: d.text || undefined,
      size: d.kind === 'focused' ? 2 : 1,
    }));
    this.markers.setMarkers(out);
    const d = this.el.dataset;
    d.trades = String(new Set(this.marks.map((m) => m.trade)).size);
    d.marks = String(this.marks.length);
    d.markers = String(out.length);
    d.grouped = String(drawn.filter((m) => m.kind === 'group').length);
    d.focused = this.focused === null ? '' : String(this.focused);
    d.focusedMarkers = String(drawn.filter((m) => m.kind === 'focused').length);
    d.cellBars = String(cellBars);
    const vis = ts.getVisibleRange();
    d.visibleFrom = vis ? String(vis.from) : '';
    d.visibleTo = vis ? String(vis.to) : '';
  }
}
