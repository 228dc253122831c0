// How the drawings look on the chart and which one a click picks: horizontal lines as the chart's
// price lines, trend lines as line series, rectangles, rays, Fibonacci levels and notes as shapes
// (chart-shapes.ts). A drawing kept for the instrument has its own color; the selected one is drawn
// brighter and thicker.

import type { PriceChart } from '../../chart.ts';
import type { ShapeSpec } from '../../chart-shapes.ts';
import { fibLevels } from './drawings-rules.ts';
import type { Drawing, Point } from './drawings-wire.ts';

const SESSION_COLOR = '#d2a8ff';
const INSTRUMENT_COLOR = '#e3b341';
const SELECTED_COLOR = '#ffffff';

const colorOf = (d: Drawing, selected: boolean) => (selected ? SELECTED_COLOR : d.instrument ? INSTRUMENT_COLOR : SESSION_COLOR);

/** The shapes of the drawings that are not lines. */
function shapesOf(ds: readonly Drawing[], selected: number | null, tickSize: number, decimals: number): ShapeSpec[] {
  return ds.flatMap((d, i): ShapeSpec[] => {
    const color = colorOf(d, i === selected);
    const width = i === selected ? 2 : 1;
    const [a, b] = d.pts;
    if (d.kind === 'rect') return [{ kind: 'rect', t1: a.t, p1: a.p, t2: b.t, p2: b.p, color, fill: d.instrument ? 'rgba(227, 179, 65, 0.12)' : 'rgba(210, 168, 255, 0.12)', width }];
    if (d.kind === 'ray') return [{ kind: 'level', t1: a.t, t2: null, p: a.p, color, width: width + 1 }];
    if (d.kind === 'text') return [{ kind: 'text', t: a.t, p: a.p, text: d.text ?? '', color }];
    if (d.kind !== 'fib') return [];
    const [t1, t2] = [Math.min(a.t, b.t), Math.max(a.t, b.t)];
    return fibLevels(a.p, b.p, tickSize).map((l) => ({ kind: 'level', t1, t2, p: l.price, color, width, label: `${+(l.ratio * 100).toFixed(1)}% ${l.price.toFixed(decimals)}` }));
  });
}

/** Draws every drawing (again when the bars change width: ends sit on drawn bars). */
export function drawDrawings(c: PriceChart, ds: readonly Drawing[], selected: number | null, tickSize: number, decimals: number): void {
  c.setDrawingLines(ds.flatMap((d, i) => (d.kind === 'hline' ? [{ price: d.pts[0].p, color: colorOf(d, i === selected), title: d.instrument ? 'all sessions' : '' }] : [])));
  const trends = ds.map((d, i) => ({ d, i })).filter(({ d }) => d.kind === 'trend');
  trends.forEach(({ d, i }, n) => {
    const [a, b] = d.pts.map((pt) => ({ time: c.barTimeAtOrBefore(pt.t), value: pt.p }));
    const ends = a.time <= b.time ? [a, b] : [b, a];
    // Both ends on one bar (a wide view): a line needs two times, so it is left out until narrower.
    if (a.time < 0 || b.time < 0 || a.time === b.time) c.removeLine(`trend.${n}`);
    else c.setLine(`trend.${n}`, ends, { color: colorOf(d, i === selected), width: i === selected ? 3 : 2 });
  });
  for (let n = trends.length; c.hasLine(`trend.${n}`); n++) c.removeLine(`trend.${n}`);
  c.setShapes('drawings', shapesOf(ds, selected, tickSize, decimals));
}

const within = (x: number, a: number, b: number) => x >= Math.min(a, b) && x <= Math.max(a, b);

/** Whether a click at `at` touches `d`; `tol` is a few pixels in price, `spanS` the seconds in view. */
function touches(d: Drawing, at: Point, tol: number, spanS: number): boolean {
  const [a, b] = d.pts;
  switch (d.kind) {
    case 'hline':
      return Math.abs(at.p - a.p) <= tol;
    case 'ray':
      return Math.abs(at.p - a.p) <= tol && at.t >= a.t;
    case 'text':
      // The note's box: about a tenth of the view wide, a line high above its anchor.
      return at.p >= a.p - tol && at.p <= a.p + 3 * tol && at.t >= a.t && at.t - a.t <= spanS * 0.1;
    case 'rect':
    case 'fib':
      return within(at.t, a.t, b.t) && within(at.p, a.p - tol, b.p + (b.p >= a.p ? tol : -tol));
    case 'trend': {
      if (!within(at.t, a.t, b.t) || a.t === b.t) return false;
      return Math.abs(a.p + ((b.p - a.p) * (at.t - a.t)) / (b.t - a.t) - at.p) <= tol * 2;
    }
  }
}

/** The topmost drawing under a click (the last drawn first), or null. */
export function drawingAt(c: PriceChart, ds: readonly Drawing[], at: Point): number | null {
  const y0 = c.priceToY(at.p);
  const other = y0 === null ? null : c.yToPrice(y0 + 6);
  const tol = other === null ? 0 : Math.abs(other - at.p);
  const span = c.visibleSpan();
  const spanS = span ? span.toS - span.fromS : 0;
  for (let i = ds.length - 1; i >= 0; i--) if (touches(ds[i], at, tol, spanS)) return i;
  return null;
}
