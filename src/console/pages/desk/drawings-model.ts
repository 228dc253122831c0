// The trader's drawings on a session's chart: horizontal lines (one click) and trend lines (two
// clicks), kept with the session on the server (GET/PUT /api/auth/replay-sessions/:id/drawings), so
// a reload, a Leave and Resume, another width or another browser shows them. Loaded when the session
// opens (the tools wait for it); each change is written whole at once, one write in flight and the
// newest sent after it; a write the server refuses (over its bound) puts the last kept lines back.
// No copy in this browser: a line drawn while the server is unreachable is shown, said to be unsaved,
// and written with the next change.

import type { Static } from '@sinclair/typebox';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionDrawings } from '../../../http/web/shapes.ts';
import { ApiError, auth } from '../../api.ts';
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
  /** False until the session's lines are read: the tools wait. */
  loaded: boolean;
  /** Why the lines shown are not the server's (not read, not saved), or null. */
  problem: string | null;
  /** Chooses a tool (choosing the current one puts it down). */
  choose(m: DrawMode): void;
  /** A click on the chart; true when a tool took it. */
  click(c: ChartClick): boolean;
  /** The first end of a trend line being drawn. */
  pending: { t: number; p: number } | null;
  clear(): void;
}

const NONE: Drawings = { hlines: [], trends: [] };
const DRAWING_COLOR = '#d2a8ff';

type WireDrawings = Pick<Static<typeof SessionDrawings>, 'horizontalLines' | 'trendLines'>;

const isoOf = (s: number) => new Date(s * 1000).toISOString();
const secondsOf = (iso: string) => Date.parse(iso) / 1000;

function toWire(d: Drawings): WireDrawings {
  return {
    horizontalLines: d.hlines.map((price) => ({ price })),
    trendLines: d.trends.map((t) => ({ startTime: isoOf(t.t1), startPrice: t.p1, endTime: isoOf(t.t2), endPrice: t.p2 })),
  };
}

function fromWire(w: WireDrawings): Drawings {
  return {
    hlines: w.horizontalLines.map((h) => h.price),
    trends: w.trendLines.map((t) => ({ t1: secondsOf(t.startTime), p1: t.startPrice, t2: secondsOf(t.endTime), p2: t.endPrice })),
  };
}

const drawingsPath = (accountId: number) => `replay-sessions/${accountId}/drawings`;

export async function fetchDrawings(accountId: number): Promise<Drawings> {
  return fromWire(await auth<WireDrawings>('GET', drawingsPath(accountId)));
}

interface Saved {
  /** The lines the server holds, as it answered them. */
  drawings: Drawings;
  problem: string | null;
}

/** Writes the newest lines, one write in flight; `done` hears each answer (or failure). `kept`: the lines the server holds now. */
function drawingsWriter(accountId: number, kept: Drawings, done: (s: Saved) => void): (d: Drawings) => void {
  let inFlight = false;
  let next: Drawings | null = null;
  const send = async (d: Drawings): Promise<void> => {
    inFlight = true;
    try {
      kept = fromWire(await auth<WireDrawings>('PUT', drawingsPath(accountId), toWire(d), { keepalive: true }));
      if (!next) done({ drawings: kept, problem: null });
    } catch (e) {
      const refused = e instanceof ApiError && e.status === 200;
      // Refused: the server's lines are the truth. Unreachable: keep what the trader drew, say so.
      if (!next) done({ drawings: refused ? kept : d, problem: refused ? e.message : `Drawings not saved: ${(e as Error).message}` });
    } finally {
      inFlight = false;
      const n = next;
      next = null;
      if (n) void send(n);
    }
  };
  return (d) => {
    if (inFlight) next = d;
    else void send(d);
  };
}

interface ToolState {
  drawings: Drawings;
  mode: DrawMode;
  pending: { t: number; p: number } | null;
  loaded: boolean;
  problem: string | null;
}

export function useDrawings(chart: { current: PriceChart | null }, accountId: number, ready: boolean, tickSize: number): DrawingsModel {
  // Clicks can come faster than renders: the tool's state is kept in a ref, the state redraws.
  const tool = useRef<ToolState>({ drawings: NONE, mode: 'none', pending: null, loaded: false, problem: null });
  const [, redraw] = useState(0);
  const update = (patch: Partial<ToolState>) => {
    tool.current = { ...tool.current, ...patch };
    redraw((n) => n + 1);
  };
  const write = useRef<(d: Drawings) => void>(() => {});
  useEffect(() => {
    let gone = false;
    const loaded = (drawings: Drawings) => {
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
  const set = (patch: Partial<ToolState>) => {
    update(patch);
    if (patch.drawings) write.current(patch.drawings);
  };
  const { drawings, mode, pending, loaded, problem } = tool.current;
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
    loaded,
    problem,
    choose: (m) => tool.current.loaded && set({ pending: null, mode: tool.current.mode === m ? 'none' : m }),
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
