// The chart's width during a session: the session plays at its own timeframe, and the chart may
// show the same bars in wider buckets (a 1 m session seen at 5 m, 15 m, 1 h…), merged in the
// browser from the bars played so far, so the last bucket is exactly as far as the clock and never
// shows a bar the session has not reached. Narrower widths than the session's are not offered: the
// bars played are the session's, and finer ones would be read from History up to the clock.
// Buckets are the server's (src/domain/timeframe.ts: fixed widths from the epoch).
// The width is a pane's in the desk's layout (layout-model.ts, kept per session: multi-desk.ts): a
// change redraws the bars the chart holds in the new buckets and reads nothing.

import { useEffect, useRef } from 'preact/hooks';
import type { PriceChart } from '../../chart.ts';
import { bucketOfWidth, viewWidths } from './chart-rules.ts';

/** Bars in view after a change of width, as after the session's load. */
const VIEW_BARS = 160;

export interface ViewModel {
  /** The session's timeframe first, then every wider preset it divides. */
  options: readonly string[];
  width: string;
  setWidth(tf: string): void;
}

/** The chart drawn at `width` (the layout's), `setWidth` the layout's change. */
export function useView(chart: { current: PriceChart | null }, sessionTf: string, width: string, setWidth: (tf: string) => void, ready: boolean): ViewModel {
  const drawn = useRef<{ chart: PriceChart | null; width: string }>({ chart: null, width: sessionTf });
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    // A new chart (another instrument in a pane) draws the session's width until told otherwise.
    const was = drawn.current.chart === c ? drawn.current.width : sessionTf;
    drawn.current = { chart: c, width };
    if (was === width) return;
    c.setBuckets(width === sessionTf ? null : bucketOfWidth(width), width);
    c.showLast(VIEW_BARS);
  }, [chart.current, width, ready]);
  return { options: viewWidths(sessionTf), width, setWidth };
}
