// The drawings' pure rules: the Fibonacci retracement's levels and a drawing moved to a point, on the
// tick grid (drawings-shapes.ts draws them, drawings-model.ts moves them).

import { onTick } from './chart-rules.ts';
import type { Drawing, Point } from './drawings-wire.ts';

/** TradingView's default retracement levels, as fractions from the end (0) to the start (1). */
export const FIB_LEVELS = [0, 0.236, 0.382, 0.5, 0.618, 0.786, 1] as const;

/** Each level's price on the tick grid, from the end (0 %) to the start (100 %). */
export function fibLevels(start: number, end: number, tickSize: number): { ratio: number; price: number }[] {
  return FIB_LEVELS.map((ratio) => ({ ratio, price: onTick(end + (start - end) * ratio, tickSize) }));
}

/** `d` moved so that its first point is at `to` (a horizontal line keeps no time), on the tick grid. */
export function moved(d: Drawing, to: Point, tickSize: number): Drawing {
  return shifted(d, to.t - d.pts[0].t, to.p - d.pts[0].p, tickSize);
}

/** `d` moved by `dt` seconds and `dp` in price (a horizontal line keeps no time), on the tick grid. */
export function shifted(d: Drawing, dt: number, dp: number, tickSize: number): Drawing {
  const byT = d.kind === 'hline' ? 0 : dt;
  return { ...d, pts: d.pts.map((pt) => ({ t: pt.t + byT, p: onTick(pt.p + dp, tickSize) })) };
}
