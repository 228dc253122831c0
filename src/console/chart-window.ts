// The chart draws the latest bars only (limits.ts' CHART_DRAWN_BARS_MAX), and every bar stays at
// hand: scrolled near the oldest drawn bar, the series take that many older ones, the view staying
// on the same bars. Setting a month of 1 m bars at once held the tab for over a second (issue 30).

import type { ITimeScaleApi, Time } from 'lightweight-charts';
import type { ChartRows } from './chart-rows.ts';
import { CHART_DRAWN_BARS_MAX } from './limits.ts';

/** Within this many bars of the oldest drawn one, older bars are drawn. */
const NEAR_EDGE_BARS = CHART_DRAWN_BARS_MAX / 20;

/**
 * Watches the view: near the oldest drawn bar, moves `rows.drawnFrom` back and calls `redraw` (the
 * series' data set again), in the next frame rather than inside the library's callback.
 */
export function drawOlderOnScroll(ts: ITimeScaleApi<Time>, rows: ChartRows, redraw: () => void): void {
  let pending = false;
  ts.subscribeVisibleLogicalRangeChange((r) => {
    if (!r || rows.drawnFrom === 0 || r.from > NEAR_EDGE_BARS || pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const view = ts.getVisibleLogicalRange();
      const add = Math.min(rows.drawnFrom, CHART_DRAWN_BARS_MAX);
      rows.drawnFrom -= add;
      redraw();
      // The same bars stay in view: their indexes grew by the bars put before them.
      if (view) ts.setVisibleLogicalRange({ from: view.from + add, to: view.to + add });
    });
  });
}

/**
 * Shows the bars from `fromS` to `toS` with `padBars` either side; a span older than the bars drawn
 * draws from there first (`redraw`), as a scroll to it would.
 */
export function showSpanOf(ts: ITimeScaleApi<Time>, rows: ChartRows, fromS: number, toS: number, padBars: number, redraw: () => void): void {
  if (rows.times.length === 0) return;
  const from = rows.indexAtOrBefore(fromS) - padBars;
  if (from < rows.drawnFrom) {
    rows.drawnFrom = Math.max(0, from);
    redraw();
  }
  const d = rows.drawnFrom;
  ts.setVisibleLogicalRange({ from: from - d, to: rows.indexAtOrBefore(toS) + padBars - d });
}
