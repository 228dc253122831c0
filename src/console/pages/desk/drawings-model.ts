// The trader's drawings on a session's chart: horizontal lines (one click) and trend lines (two
// clicks), kept in this browser per session (localStorage, keyed by the replay account), so they
// survive a reload, a Leave and Resume, and another width. A session opened in another browser
// shows none: they are this trader's notes on this screen, like the bracket lines planned here, and
// keeping them on the server would need a table of its own (docs/decisions.md).

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChartClick, PriceChart } from '../../chart.ts';
import { onTick } from './chart-rules.ts';

export interface TrendLine {
  /** Epoch seconds and price of each end, in the order clicked. */
  t1: number;
  p1: number;
  t2: number;
  p2: number;
}

export interface Drawings {
  hlines: number[];
  trends: TrendLine[];
}

export type DrawMode = 'none' | 'hline' | 'trend';

export interface DrawingsModel extends Drawings {
  mode: DrawMode;
  /** Chooses a tool (choosing the current one puts it down). */
  choose(m: DrawMode): void;
  /** A click on the chart; true when a tool took it. */
  click(c: ChartClick): boolean;
  /** The first end of a trend line being drawn. */
  pending: { t: number; p: number } | null;
  clear(): void;
}

const KEY = (accountId: number) => `rd.desk.drawings.${accountId}`;
const NONE: Drawings = { hlines: [], trends: [] };
const DRAWING_COLOR = '#d2a8ff';

export function loadDrawings(accountId: number): Drawings {
  try {
    const v = JSON.parse(localStorage.getItem(KEY(accountId)) ?? 'null');
    return v && Array.isArray(v.hlines) && Array.isArray(v.trends) ? v : NONE;
  } catch {
    return NONE;
  }
}

function saveDrawings(accountId: number, d: Drawings): void {
  try {
    localStorage.setItem(KEY(accountId), JSON.stringify(d));
  } catch {
    // Not kept: drawn for this page only.
  }
}

export function useDrawings(chart: { current: PriceChart | null }, accountId: number, ready: boolean, tickSize: number): DrawingsModel {
  // Clicks can come faster than renders: the tool's state is kept in a ref, the state redraws.
  const tool = useRef<{ drawings: Drawings; mode: DrawMode; pending: { t: number; p: number } | null }>({ drawings: loadDrawings(accountId), mode: 'none', pending: null });
  const [, redraw] = useState(0);
  const set = (patch: Partial<typeof tool.current>) => {
    tool.current = { ...tool.current, ...patch };
    if (patch.drawings) saveDrawings(accountId, patch.drawings);
    redraw((n) => n + 1);
  };
  const { drawings, mode, pending } = tool.current;
  useDrawn(chart, drawings, ready);

  const click = (c: ChartClick): boolean => {
    const t = tool.current;
    if (t.mode === 'none' || c.time === null) return false;
    // On the tick grid, as the price scale prints it.
    const p = onTick(c.price, tickSize);
    const d = t.drawings;
    if (t.mode === 'hline') set({ drawings: { ...d, hlines: [...d.hlines, p] }, mode: 'none' });
    else if (!t.pending) set({ pending: { t: c.time, p } });
    else set({ drawings: { ...d, trends: [...d.trends, { t1: t.pending.t, p1: t.pending.p, t2: c.time, p2: p }] }, pending: null, mode: 'none' });
    return true;
  };
  return {
    ...drawings,
    mode,
    pending,
    choose: (m) => set({ pending: null, mode: tool.current.mode === m ? 'none' : m }),
    click,
    clear: () => set({ drawings: NONE }),
  };
}

/** Draws the lines on the chart, again when the bars change width (trend ends sit on drawn bars). */
function useDrawn(chart: { current: PriceChart | null }, d: Drawings, ready: boolean): void {
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    const draw = () => {
      c.setDrawingLines(d.hlines.map((price) => ({ price, color: DRAWING_COLOR, title: '' })));
      d.trends.forEach((t, i) => {
        const a = { time: c.barTimeAtOrBefore(t.t1), value: t.p1 };
        const b = { time: c.barTimeAtOrBefore(t.t2), value: t.p2 };
        const ends = a.time <= b.time ? [a, b] : [b, a];
        // Both ends on one bar (a wide view): a line needs two times, so it is left out until narrower.
        if (a.time < 0 || b.time < 0 || a.time === b.time) c.removeLine(`trend.${i}`);
        else c.setLine(`trend.${i}`, ends, { color: DRAWING_COLOR, width: 2 });
      });
      for (let i = d.trends.length; c.hasLine(`trend.${i}`); i++) c.removeLine(`trend.${i}`);
    };
    draw();
    return c.onBarsChange(draw);
  }, [chart.current, d, ready]);
}
