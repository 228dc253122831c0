// A past session's chart, read-only: the bars it showed (chart history and every bar played) with
// its round trips marked, entry and exit, numbered as the trades table numbers them. No ticket, no
// order lines: nothing here reaches the session.

import { useEffect, useRef, useState } from 'preact/hooks';
import { createPriceChart, decimalsOf, type MarkerSpec, type PriceChart } from '../../chart.ts';
import { ErrorLine } from '../../ui.tsx';
import { type JournalDetail, loadSessionBars } from './model.ts';

/** Entry and exit of every trade: an entry on the trade's side, its exit on the other. */
export function tradeMarkers(d: JournalDetail): MarkerSpec[] {
  const out: MarkerSpec[] = [];
  for (const t of d.trades) {
    const entry = t.side === 'long' ? 'buy' : 'sell';
    const exit = t.side === 'long' ? 'sell' : 'buy';
    out.push({ time: t.entryTime, side: entry, text: `#${t.tradeNumber} ${t.side === 'long' ? 'L' : 'S'}${t.size}` });
    out.push({ time: t.exitTime, side: exit, text: `#${t.tradeNumber} ${t.pnl >= 0 ? '+' : ''}${t.pnl.toFixed(0)}` });
  }
  return out.sort((a, b) => Date.parse(String(a.time)) - Date.parse(String(b.time)));
}

export function SessionChart({ detail }: { detail: JournalDetail }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready'>('loading');
  useEffect(() => {
    const tick = detail.contract.tickSize;
    const chart: PriceChart = createPriceChart(host.current!, { precision: decimalsOf(tick), minMove: tick, seconds: detail.timeframe.endsWith('s') });
    let gone = false;
    loadSessionBars(detail).then(
      (bars) => {
        if (gone) return;
        chart.setBars(bars);
        chart.setMarkers(tradeMarkers(detail));
        // The bars played, with a little of the history before them (all of it is a scroll away).
        chart.showLast(Math.min(bars.length, Math.max(detail.barsPlayed, 40) + 20));
        setState('ready');
      },
      (e) => !gone && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
      chart.destroy();
    };
  }, [detail.accountId]);
  return (
    <div class="journal-chart-wrap">
      <div class="journal-chart" ref={host} data-testid="journal-chart" data-state={state} />
      <ErrorLine error={error && `Bars not loaded: ${error}`} />
    </div>
  );
}
