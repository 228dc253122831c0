// The desk's chart and what it has drawn: the bars are drawn by the session index they end at, so a
// bar heard twice (a step's answer and the market hub's event) is drawn once, and a gap (a jump, a
// missed event) is read from the server through the console's own read of the session's bars
// (readSessionBars: never History, whose budget is the bots'). The clock shown is the server's:
// the `currentTime` that read and the hub's events state, or a step's last bar's close.

import { useRef, useState } from 'preact/hooks';
import type { ApiBar, PriceChart } from '../../chart.ts';
import type { SessionCore } from './core.ts';
import { readSessionBars, type SessionBarsRead, timeframeParts } from './model.ts';
import { clockAfter } from './sim-clock.ts';

export interface Progress {
  currentIndex: number;
  totalBars: number;
}

export interface ChartBars {
  chartEl: { current: HTMLDivElement | null };
  chart: { current: PriceChart | null };
  loading: boolean;
  setLoading(b: boolean): void;
  progress: Progress;
  setProgress(p: Progress | ((p: Progress) => Progress)): void;
  lastPrice: number | null;
  lastTime: string | null;
  /** The session's clock as the server last stated it (ISO), the simulated now; null before it is known. */
  clock: string | null;
  setClock(iso: string): void;
  /** The last bar drawn: the last price (and, without a clock from the server, the clock). */
  setLast(bar: ApiBar): void;
  /** Why the chart is behind the server (a refused read), shown in the replay bar until a read succeeds. */
  barsNote: string | null;
  setBarsNote(note: string | null): void;
  /**
   * Draws the session's bars up to `index`: `bars` are the ones that end there (an answer's or an
   * event's), of which only those past the drawn index are new; without them, or past a gap, the
   * missing bars are read from the server. Returns whether anything was drawn. Runs in the queue.
   */
  drawTo(index: number, bars: readonly ApiBar[] | null): Promise<boolean>;
  /** Reads and draws every bar up to the server's clock, and takes its clock; the read's answer. Runs in the queue. */
  catchUp(): Promise<SessionBarsRead>;
}

export function useChartBars(core: SessionCore): ChartBars {
  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [progress, setProgress] = useState<Progress>({ currentIndex: 0, totalBars: 0 });
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [lastTime, setLastTime] = useState<string | null>(null);
  const [clock, setClockState] = useState<string | null>(null);
  const [barsNote, setBarsNote] = useState<string | null>(null);

  // The session's clock only moves forward: a late event never takes it back.
  const setClock = (iso: string) => {
    const now = core.live.current.clock;
    if (now !== null && Date.parse(iso) < Date.parse(now)) return;
    core.live.current.clock = iso;
    setClockState(iso);
  };
  const setLast = (bar: ApiBar) => {
    core.live.current.lastTime = bar.t;
    core.live.current.lastPrice = bar.c;
    setLastPrice(bar.c);
    setLastTime(bar.t);
  };
  const append = (add: readonly ApiBar[]) => {
    if (add.length === 0) return false;
    chart.current?.appendBars(add);
    setLast(add[add.length - 1]);
    return true;
  };

  const catchUp = async (): Promise<SessionBarsRead> => {
    const L = core.live.current;
    let r: SessionBarsRead;
    try {
      r = await readSessionBars(core.accountId, L.lastTime);
    } catch (e) {
      setBarsNote(`The chart is behind the session: ${e instanceof Error ? e.message : String(e)}. It catches up with the next move.`);
      throw e;
    }
    setBarsNote(null);
    L.drawn = Math.max(L.drawn, r.currentIndex);
    setProgress((p) => ({ currentIndex: Math.max(p.currentIndex, r.currentIndex), totalBars: r.totalBars || p.totalBars }));
    append(r.bars);
    setClock(r.currentTime);
    return r;
  };

  const drawTo = async (index: number, bars: readonly ApiBar[] | null): Promise<boolean> => {
    const L = core.live.current;
    if (index <= L.drawn) return false;
    const first = index - (bars?.length ?? 0);
    if (!bars || first > L.drawn) {
      const r = await catchUp().catch(() => null);
      return r !== null && r.bars.length > 0;
    }
    const add = bars.slice(L.drawn - first);
    L.drawn = index;
    setProgress((p) => ({ ...p, currentIndex: index }));
    const drew = append(add);
    // A step's bars end at the server's clock: the close of the last one.
    if (drew) setClock(clockAfter(add[add.length - 1].t, timeframeParts(core.meta.timeframe).widthS)!);
    return drew;
  };

  return { chartEl, chart, loading, setLoading, progress, setProgress, lastPrice, lastTime, clock, setClock, setLast, barsNote, setBarsNote, drawTo, catchUp };
}
