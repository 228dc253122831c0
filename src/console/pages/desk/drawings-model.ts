// The trader's drawings on a session's chart: horizontal lines and rays (one click), trend lines,
// rectangles and Fibonacci retracements (two clicks), notes (the text typed in the toolbar, then a
// click), kept on the server (drawings-wire.ts) so that a reload, a Leave and Resume, another width or
// another browser shows them. Each is kept for this session (the default, as before) or for the
// instrument (every session of it: yesterday's levels in today's session). With no tool in hand, a
// plain click on a drawing selects it and a press drags it (drawings-drag.ts): Delete removes it, Move
// puts its first point at the next click, and its scope can be changed. Loaded when the session opens (the tools wait for it); each change is
// written whole at once; a write the server refuses puts the last kept drawings back. No copy in this
// browser: a drawing made while the server is unreachable is shown, said to be unsaved, and written
// with the next change.

import { useEffect, useRef, useState } from 'preact/hooks';
import { type ChartClick, decimalsOf, type PriceChart } from '../../chart.ts';
import { onTick } from './chart-rules.ts';
import { type DragHost, useDrawingDrag } from './drawings-drag.ts';
import { moved } from './drawings-rules.ts';
import { drawDrawings, drawingAt } from './drawings-shapes.ts';
import { canonical, type DrawKind, type Drawing, drawingsWriter, fetchDrawings, type Point } from './drawings-wire.ts';

export type { DrawKind, Drawing };

export interface TrendLine {
  /** Epoch seconds and price of each end, in the order clicked. */
  t1: number;
  p1: number;
  t2: number;
  p2: number;
}

/** A tool in hand: a kind to draw, or moving the selected drawing. */
export type DrawMode = 'none' | DrawKind | 'move';

/** The tools beyond lines; absent where a chart has no drawings (a second pane). */
export interface DrawingTools {
  items: readonly Drawing[];
  /** The selected drawing's index in `items`, or null. */
  selected: number | null;
  /** New drawings are kept for the instrument. */
  forInstrument: boolean;
  setForInstrument(b: boolean): void;
  /** The next note's text. */
  noteText: string;
  setNoteText(s: string): void;
  remove(): void;
  /** Keeps the selected drawing for the instrument, or for this session only. */
  setScope(instrument: boolean): void;
  deselect(): void;
}

export interface DrawingsModel {
  hlines: number[];
  trends: TrendLine[];
  mode: DrawMode;
  /** False until the session's drawings are read: the tools wait. */
  loaded: boolean;
  /** Why the drawings shown are not the server's (not read, not saved), or null. */
  problem: string | null;
  /** Chooses a tool (choosing the current one puts it down). */
  choose(m: DrawMode): void;
  /** A click on the chart; true when a tool (or a selection) took it. */
  click(c: ChartClick): boolean;
  /** The first point of a two-click drawing being made. */
  pending: { t: number; p: number } | null;
  /** Removes this session's own drawings (those kept for the instrument stay). */
  clear(): void;
  tools?: DrawingTools;
}

const TWO_CLICKS: readonly DrawMode[] = ['trend', 'rect', 'fib'];

interface ToolState {
  drawings: Drawing[];
  mode: DrawMode;
  pending: Point | null;
  selected: number | null;
  forInstrument: boolean;
  noteText: string;
  loaded: boolean;
  problem: string | null;
}

const START: ToolState = { drawings: [], mode: 'none', pending: null, selected: null, forInstrument: false, noteText: '', loaded: false, problem: null };

export function useDrawings(chart: { current: PriceChart | null }, accountId: number, ready: boolean, tickSize: number, el?: { current: HTMLElement | null }): DrawingsModel {
  // Clicks can come faster than renders: the tool's state is kept in a ref, the state redraws.
  const tool = useRef<ToolState>(START);
  const [, redraw] = useState(0);
  const update = (patch: Partial<ToolState>) => {
    tool.current = { ...tool.current, ...patch };
    redraw((n) => n + 1);
  };
  const write = useLoaded(accountId, update);
  /** A change of the drawings (kept in the server's order), written at once. */
  const change = (drawings: Drawing[], patch: Partial<ToolState> = {}) => {
    update({ ...patch, drawings: canonical(drawings) });
    write.current(tool.current.drawings);
  };
  const { drawings, mode, pending, selected, loaded, problem } = tool.current;
  useDrawn(chart, drawings, selected, ready, tickSize);
  useDeleteKey(selected !== null, () => removeSelected());
  useDrawingDrag(el, chart, ready, tickSize, dragHost(tool, update, write));

  const removeSelected = () => {
    const t = tool.current;
    if (t.selected !== null) change(t.drawings.filter((_, i) => i !== t.selected), { selected: null, mode: 'none' });
  };
  const click = (c: ChartClick): boolean => {
    const at = c.time === null ? null : { t: c.time, p: onTick(c.price, tickSize) };
    const r = clicked(tool.current, at, chart.current, c, tickSize);
    if (!r) return false;
    if (r.drawings) change(r.drawings, r.patch);
    else update(r.patch);
    return r.took;
  };
  const setScope = (instrument: boolean) => {
    const t = tool.current;
    if (t.selected === null) return;
    const chosen = { ...t.drawings[t.selected], instrument };
    const rest = t.drawings.map((d, i) => (i === t.selected ? chosen : d));
    change(rest);
    update({ selected: tool.current.drawings.indexOf(chosen) });
  };
  return {
    hlines: drawings.filter((d) => d.kind === 'hline').map((d) => d.pts[0].p),
    trends: drawings.filter((d) => d.kind === 'trend').map((d) => ({ t1: d.pts[0].t, p1: d.pts[0].p, t2: d.pts[1].t, p2: d.pts[1].p })),
    mode,
    pending,
    loaded,
    problem,
    choose: (m) => tool.current.loaded && update({ pending: null, mode: tool.current.mode === m ? 'none' : m, ...(m === 'move' ? {} : { selected: null }) }),
    click,
    clear: () => change(tool.current.drawings.filter((d) => d.instrument), { selected: null }),
    tools: {
      items: drawings,
      selected,
      forInstrument: tool.current.forInstrument,
      setForInstrument: (b) => update({ forInstrument: b }),
      noteText: tool.current.noteText,
      setNoteText: (s) => update({ noteText: s }),
      remove: removeSelected,
      setScope,
      deselect: () => update({ selected: null, mode: 'none' }),
    },
  };
}

/** What a drag of a drawing reads and changes (drawings-drag.ts). */
function dragHost(tool: { current: ToolState }, update: (p: Partial<ToolState>) => void, write: { current: (d: Drawing[]) => void }): DragHost {
  return {
    idle: () => tool.current.loaded && tool.current.mode === 'none',
    drawings: () => tool.current.drawings,
    select: (i) => update({ selected: i }),
    preview: (ds, i) => update({ drawings: ds, selected: i }),
    commit: (ds, i) => {
      update({ drawings: ds, selected: i });
      write.current(ds);
    },
  };
}

interface Clicked {
  took: boolean;
  drawings?: Drawing[];
  patch: Partial<ToolState>;
}

/** What a click does with the tool in hand, or null when it is not the drawings' (trading's, say). */
function clicked(t: ToolState, at: Point | null, c: PriceChart | null, click: ChartClick, tickSize: number): Clicked | null {
  if (!at) return t.mode === 'none' ? null : { took: true, patch: {} };
  const make = (kind: DrawKind, pts: Point[], text?: string): Drawing => ({ kind, pts, instrument: t.forInstrument, ...(text === undefined ? {} : { text }) });
  const done = { mode: 'none' as const, pending: null };
  switch (t.mode) {
    case 'none': {
      if (click.shift || click.alt || click.ctrl || !c) return null;
      const hit = drawingAt(c, t.drawings, at);
      // A plain click on nothing leaves a selection; it is not the drawings' either way unless it picks one.
      return hit === null ? (t.selected === null ? null : { took: false, patch: { selected: null } }) : { took: true, patch: { selected: hit } };
    }
    case 'move': {
      if (t.selected === null) return { took: true, patch: done };
      const m = moved(t.drawings[t.selected], at, tickSize);
      return { took: true, drawings: t.drawings.map((d, i) => (i === t.selected ? m : d)), patch: done };
    }
    case 'hline':
    case 'ray':
      return { took: true, drawings: [...t.drawings, make(t.mode, [t.mode === 'hline' ? { t: 0, p: at.p } : at])], patch: done };
    case 'text': {
      const text = t.noteText.trim();
      if (!text) return { took: true, patch: { problem: 'Type the note first, then click where it goes' } };
      return { took: true, drawings: [...t.drawings, make('text', [at], text)], patch: { ...done, noteText: '', problem: null } };
    }
    default:
      if (!TWO_CLICKS.includes(t.mode) || !t.pending) return { took: true, patch: { pending: at } };
      return { took: true, drawings: [...t.drawings, make(t.mode, [t.pending, at])], patch: done };
  }
}

/** Reads the session's drawings when it opens; the writer is ready once they are read. */
function useLoaded(accountId: number, update: (patch: Partial<ToolState>) => void): { current: (d: Drawing[]) => void } {
  const write = useRef<(d: Drawing[]) => void>(() => {});
  useEffect(() => {
    let gone = false;
    const loaded = (drawings: Drawing[]) => {
      if (gone) return;
      write.current = drawingsWriter(accountId, drawings, (s) => !gone && update(s));
      update({ drawings, loaded: true, problem: null });
    };
    fetchDrawings(accountId).then(loaded, (e) => !gone && update({ problem: `Drawings not loaded: ${(e as Error).message}` }));
    return () => {
      gone = true;
      write.current = () => {};
    };
  }, [accountId]);
  return write;
}

/** Draws the drawings on the chart, again when the bars change width (ends sit on drawn bars). */
/** Draws `d` on a chart and again whenever its bars change (the session's chart, and a pane of its instrument: pane.tsx). */
export function useDrawn(chart: { current: PriceChart | null }, d: readonly Drawing[], selected: number | null, ready: boolean, tickSize: number): void {
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    const draw = () => drawDrawings(c, d, selected, tickSize, decimalsOf(tickSize));
    draw();
    return c.onBarsChange(draw);
  }, [chart.current, d, selected, ready]);
}

/** Delete or Backspace removes the selected drawing (not while typing in a field). */
function useDeleteKey(active: boolean, remove: () => void): void {
  const latest = useRef(remove);
  latest.current = remove;
  useEffect(() => {
    if (!active) return;
    const key = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && (e.target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.target.tagName));
      if (typing || (e.key !== 'Delete' && e.key !== 'Backspace')) return;
      e.preventDefault();
      latest.current();
    };
    document.addEventListener('keydown', key);
    return () => document.removeEventListener('keydown', key);
  }, [active]);
}
