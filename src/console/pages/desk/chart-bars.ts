// The desk's chart and what it has drawn: the bars are drawn by the session index they end at, so a
// bar heard twice (a step's answer and the market hub's event) is drawn once, and a gap (a jump, a
// missed event) is read from History.

import { useRef, useState } from 'preact/hooks';
import type { ApiBar, PriceChart } from '../../chart.ts';
import type { SessionCore } from './core.ts';
import { loadPlayed } from './model.ts';

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
  /** The last bar drawn: the clock and the last price. */
  setLast(bar: ApiBar): void;
  historyNote: string | null;
  setHistoryNote(note: string | null): void;
  /**
   * Draws the session's bars up to `index`: `bars` are the ones that end there (an answer's or an
   * event's), of which only those past the drawn index are new; without them, or past a gap, the
   * missing bars are read from History. Returns whether anything was drawn. Runs in the queue.
   */
  drawTo(index: number, bars: readonly ApiBar[] | null): Promise<boolean>;
}

export function useChartBars(core: SessionCore): ChartBars {
  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [progress, setProgress] = useState<Progress>({ currentIndex: 0, totalBars: 0 });
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [lastTime, setLastTime] = useState<string | null>(null);
  const [historyNote, setHistoryNote] = useState<string | null>(null);

  const setLast = (bar: ApiBar) => {
    core.live.current.lastTime = bar.t;
    core.live.current.lastPrice = bar.c;
    setLastPrice(bar.c);
    setLastTime(bar.t);
  };

  const drawTo = async (index: number, bars: readonly ApiBar[] | null): Promise<boolean> => {
    const L = core.live.current;
    if (index <= L.drawn) return false;
    const first = index - (bars?.length ?? 0);
    const add =
      bars && first <= L.drawn
        ? bars.slice(L.drawn - first)
        : await loadPlayed(core.metaRef.current, L.lastTime, index - L.drawn).catch((e) => {
            setHistoryNote(`Played bars not loaded: ${e.message}`);
            return [] as ApiBar[];
          });
    L.drawn = index;
    setProgress((p) => ({ ...p, currentIndex: index }));
    if (add.length === 0) return false;
    chart.current?.appendBars(add);
    setLast(add[add.length - 1]);
    return true;
  };

  return { chartEl, chart, loading, setLoading, progress, setProgress, lastPrice, lastTime, setLast, historyNote, setHistoryNote, drawTo };
}
