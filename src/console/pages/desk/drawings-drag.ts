// Dragging a drawing, as TradingView does: with no tool in hand, a press on a drawing selects it and
// holds it (the chart does not pan), the drawing follows the pointer (the bar under it from the
// crosshair, the price from the scale), and the release writes it once. The press is caught before
// the chart's own listeners (capture on its element); a press on nothing pans the chart as before.

import { useEffect, useRef } from 'preact/hooks';
import type { PriceChart } from '../../chart.ts';
import { onTick } from './chart-rules.ts';
import { shifted } from './drawings-rules.ts';
import { drawingAt } from './drawings-shapes.ts';
import type { Drawing, Point } from './drawings-wire.ts';

export interface DragHost {
  /** No tool in hand and the drawings read: a press may take a drawing. */
  idle(): boolean;
  drawings(): Drawing[];
  select(i: number): void;
  /** The drawings shown while dragging (not written). */
  preview(ds: Drawing[], selected: number): void;
  /** The drag's end: the drawings written. */
  commit(ds: Drawing[], selected: number): void;
}

export function useDrawingDrag(el: { current: HTMLElement | null } | undefined, chart: { current: PriceChart | null }, ready: boolean, tickSize: number, host: DragHost): void {
  const latest = useRef(host);
  latest.current = host;
  useEffect(() => {
    const c = chart.current;
    const box = el?.current;
    if (!c || !box || !ready) return;
    let hoverT: number | null = null;
    /** The drag under way: its window listeners, removed at its end or when the chart goes (no commit then). */
    let dropDrag: (() => void) | null = null;
    const offHover = c.onHover((row) => {
      hoverT = row ? row.time : null;
    });
    const pointAt = (e: MouseEvent): Point | null => {
      const p = c.yToPrice(e.clientY - box.getBoundingClientRect().top);
      return p === null || hoverT === null ? null : { t: hoverT, p: onTick(p, tickSize) };
    };
    const press = (e: MouseEvent) => {
      const h = latest.current;
      if (e.button !== 0 || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || !h.idle()) return;
      const from = pointAt(e);
      const ds = h.drawings();
      const i = from && drawingAt(c, ds, from);
      if (!from || i === null) return;
      // Ours: the chart must not pan.
      e.stopPropagation();
      e.preventDefault();
      h.select(i);
      const [x0, y0] = [e.clientX, e.clientY];
      let last = ds;
      const move = (m: MouseEvent) => {
        const to = pointAt(m);
        if (!to || Math.abs(m.clientX - x0) + Math.abs(m.clientY - y0) <= 3) return;
        last = ds.map((d, k) => (k === i ? shifted(d, to.t - from.t, to.p - from.p, tickSize) : d));
        latest.current.preview(last, i);
      };
      const up = () => {
        dropDrag?.();
        if (last !== ds) latest.current.commit(last, i);
      };
      dropDrag = () => {
        removeEventListener('mousemove', move);
        removeEventListener('mouseup', up);
        dropDrag = null;
      };
      addEventListener('mousemove', move);
      addEventListener('mouseup', up);
    };
    box.addEventListener('mousedown', press, { capture: true });
    return () => {
      dropDrag?.();
      offHover();
      box.removeEventListener('mousedown', press, { capture: true });
    };
  }, [chart.current, el?.current, ready]);
}
