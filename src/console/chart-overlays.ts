// What a price chart (chart.ts) draws over its bars: the price lines (working orders, the average
// price), the user's horizontal drawings, named lines (indicators, trend lines) in the price pane
// or the pane under it, and the fill markers, each placed on the bar holding its time.

import {
  createSeriesMarkers,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type LineData,
  LineSeries,
  LineStyle,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type ChartRows, toSeconds } from './chart-rows.ts';
import { type ShapeSpec, ShapesPrimitive } from './chart-shapes.ts';

export type { ShapeSpec };
import { CHART_COLORS } from './chart-theme.ts';

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

export interface LineSpec {
  color: string;
  width?: 1 | 2 | 3 | 4;
  /** 0: over the candles; 1: the pane under them (RSI, ATR). */
  pane?: 0 | 1;
  paneHeightPx?: number;
  title?: string;
}

export class ChartOverlays {
  private priceLines: IPriceLine[] = [];
  /** The price lines' prices: the candles' autoscale keeps them in view. */
  linePrices: number[] = [];
  private drawingLines: IPriceLine[] = [];
  private readonly lineSeries = new Map<string, ISeriesApi<'Line'>>();
  private readonly markersApi: ISeriesMarkersPluginApi<Time>;
  /** Set again on the bars' new times when the width changes. */
  private markerSpecs: readonly MarkerSpec[] = [];
  markerCount = 0;
  /** Rectangles, rays, levels and notes (chart-shapes.ts), attached at the first shapes. */
  private shapes: ShapesPrimitive | null = null;
  private readonly shapeLayers = new Map<string, readonly ShapeSpec[]>();

  constructor(
    private readonly el: HTMLElement,
    private readonly chart: IChartApi,
    private readonly candles: ISeriesApi<'Candlestick'>,
    private readonly rows: ChartRows,
  ) {
    this.markersApi = createSeriesMarkers(this.candles, []);
  }

  get priceLineCount(): number {
    return this.priceLines.length;
  }

  /** Replaces the horizontal price lines (working orders, average price…). */
  setPriceLines(lines: readonly PriceLineSpec[]): void {
    for (const l of this.priceLines) this.candles.removePriceLine(l);
    this.priceLines = lines.map((l) =>
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

  /** Replaces one layer of drawn shapes ('drawings': those other than lines; 'rr': the risk/reward tool); layers draw in the order first set. */
  setShapes(layer: string, shapes: readonly ShapeSpec[]): void {
    if (!this.shapes) {
      this.shapes = new ShapesPrimitive(this.el, this.chart, this.candles, this.rows);
      this.candles.attachPrimitive(this.shapes);
    }
    this.shapeLayers.set(layer, shapes);
    this.shapes.set([...this.shapeLayers.values()].flat());
  }

  /** Draws or replaces the line `key` in pane 0 or 1 (PriceChart.setLine). */
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

  /**
   * Empties the named lines before the bars change width: they hold the old width's times, which
   * the time scale would keep as points of its own. Their owners draw them again.
   */
  emptyLines(): void {
    for (const s of this.lineSeries.values()) s.setData([]);
  }

  /** Replaces the markers (fills, trades); each goes on the bar holding its time. */
  setMarkers(markers: readonly MarkerSpec[]): void {
    this.markerSpecs = markers;
    const out: SeriesMarker<Time>[] = markers
      .map((m) => {
        const buy = m.side === 'buy';
        return {
          time: this.rows.timeAtOrBefore(toSeconds(m.time)) as Time,
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
  }

  /** The markers placed again on the bars as they are now drawn (after a change of width). */
  replaceMarkers(): void {
    this.setMarkers(this.markerSpecs);
  }
}
