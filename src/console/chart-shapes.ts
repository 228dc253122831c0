// Drawings a line series cannot draw (rectangles, rays, labelled levels, notes, the risk/reward
// tool's zones): shapes in time and price, painted by one series primitive over the candles on every
// frame the chart paints, so they follow scrolling, zooming and the price scale. Times go to the bar
// holding them (as trend lines do); a time before the drawn bars sits just off the left edge. The
// shapes' count and every label drawn are kept on the chart's element (`data-shapes`,
// `data-shape-labels`) for tests, as the other overlays' are.

import type { IChartApi, IPrimitivePaneRenderer, IPrimitivePaneView, ISeriesApi, ISeriesPrimitive, Time } from 'lightweight-charts';
import type { ChartRows } from './chart-rows.ts';

export type ShapeSpec =
  /** A box between two corners; `fill` is a CSS color with alpha. */
  | { kind: 'rect'; t1: number; p1: number; t2: number; p2: number; color: string; fill: string; width?: number; extendRight?: boolean }
  /** A horizontal segment from t1 at price p, to t2 or (null) the right edge, with a label at its left end. */
  | { kind: 'level'; t1: number; t2: number | null; p: number; color: string; label?: string; width?: number }
  /** A note anchored at a bar and price; `dy` moves its baseline down that many pixels (up when negative). */
  | { kind: 'text'; t: number; p: number; text: string; color: string; boxed?: boolean; dy?: number };

type Target = Parameters<IPrimitivePaneRenderer['draw']>[0];

export class ShapesPrimitive implements ISeriesPrimitive<Time> {
  private shapes: readonly ShapeSpec[] = [];
  private requestUpdate: (() => void) | null = null;
  private readonly view: IPrimitivePaneView;

  constructor(
    private readonly el: HTMLElement,
    private readonly chart: IChartApi,
    private readonly candles: ISeriesApi<'Candlestick'>,
    private readonly rows: ChartRows,
  ) {
    this.view = { renderer: () => ({ draw: (target) => this.draw(target) }) };
  }

  attached({ requestUpdate }: { requestUpdate: () => void }): void {
    this.requestUpdate = requestUpdate;
  }

  detached(): void {
    this.requestUpdate = null;
  }

  paneViews(): readonly IPrimitivePaneView[] {
    return [this.view];
  }

  set(shapes: readonly ShapeSpec[]): void {
    this.shapes = shapes;
    this.el.dataset.shapes = String(shapes.length);
    this.el.dataset.shapeLabels = shapes.map((s) => (s.kind === 'text' ? s.text : s.kind === 'level' ? (s.label ?? '') : '')).filter((l) => l !== '').join('|');
    this.requestUpdate?.();
  }

  /** The x of the bar holding `t`; -20 when before the drawn bars (off the left edge). */
  private x(t: number): number {
    const bar = this.rows.timeAtOrBefore(t);
    if (bar < 0) return -20;
    return this.chart.timeScale().timeToCoordinate(bar as Time) ?? -20;
  }

  private y(p: number): number | null {
    return this.candles.priceToCoordinate(p);
  }

  private draw(target: Target): void {
    target.useMediaCoordinateSpace(({ context: ctx, mediaSize }) => {
      ctx.save();
      ctx.font = '11px ui-monospace, SFMono-Regular, Menlo, monospace';
      for (const s of this.shapes) this.paint(ctx, s, mediaSize.width);
      ctx.restore();
    });
  }

  private paint(ctx: CanvasRenderingContext2D, s: ShapeSpec, right: number): void {
    if (s.kind === 'rect') {
      const [x1, x2, y1, y2] = [this.x(s.t1), s.extendRight ? right : this.x(s.t2), this.y(s.p1), this.y(s.p2)];
      if (y1 === null || y2 === null) return;
      const [l, t, w, h] = [Math.min(x1, x2), Math.min(y1, y2), Math.max(1, Math.abs(x2 - x1)), Math.max(1, Math.abs(y2 - y1))];
      ctx.fillStyle = s.fill;
      ctx.fillRect(l, t, w, h);
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.width ?? 1;
      ctx.strokeRect(l + 0.5, t + 0.5, w, h);
    } else if (s.kind === 'level') {
      const y = this.y(s.p);
      if (y === null) return;
      const [x1, x2] = [this.x(s.t1), s.t2 === null ? right : this.x(s.t2)];
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.width ?? 1;
      ctx.beginPath();
      ctx.moveTo(Math.min(x1, x2), Math.round(y) + 0.5);
      ctx.lineTo(Math.max(x1, x2), Math.round(y) + 0.5);
      ctx.stroke();
      if (s.label) {
        ctx.fillStyle = s.color;
        ctx.fillText(s.label, Math.max(2, Math.min(x1, x2) + 2), y - 3);
      }
    } else {
      const at = this.y(s.p);
      if (at === null) return;
      const [x, y] = [this.x(s.t), at + (s.dy ?? 0)];
      const w = ctx.measureText(s.text).width;
      if (s.boxed !== false) {
        ctx.fillStyle = 'rgba(13, 17, 23, 0.85)';
        ctx.fillRect(x - 2, y - 13, w + 8, 17);
        ctx.strokeStyle = s.color;
        ctx.strokeRect(x - 1.5, y - 12.5, w + 7, 16);
      }
      ctx.fillStyle = s.color;
      ctx.fillText(s.text, x + 2, y);
    }
  }
}
