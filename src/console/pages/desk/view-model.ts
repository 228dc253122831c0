// The chart's width during a session: the session plays at its own timeframe, and the chart may
// show the same bars in wider buckets (a 1 m session seen at 5 m, 15 m, 1 h…), merged in the
// browser from the bars played so far, so the last bucket is exactly as far as the clock and never
// shows a bar the session has not reached. Narrower widths than the session's are not offered: the
// bars played are the session's, and finer ones would be read from History up to the clock.
// Buckets are the server's (src/domain/timeframe.ts: fixed widths from the epoch).

import { useEffect, useRef, useState } from 'preact/hooks';
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

export function useView(chart: { current: PriceChart | null }, sessionTf: string, ready: boolean): ViewModel {
  const [width, setWidth] = useState(sessionTf);
  const drawn = useRef(sessionTf);
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready || drawn.current === width) return;
    drawn.current = width;
    c.setBuckets(width === sessionTf ? null : bucketOfWidth(width), width);
    c.showLast(VIEW_BARS);
  }, [chart.current, width, ready]);
  return { options: viewWidths(sessionTf), width, setWidth };
}
