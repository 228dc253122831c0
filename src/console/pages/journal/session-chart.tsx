// A past session's chart, read-only: the bars it showed (chart history and every bar played) with
// its round trips marked, entry and exit, numbered as the trades table numbers them. Marks that
// land on one bar on one side are merged into one (a scalper's trades never stack into a tower).
// Picking a trade in the table zooms the chart to it and draws its entry, initial stop and exit as
// lines. No ticket, no order lines: nothing here reaches the session.
//
// For tests: `data-picked` (the trade zoomed to), `data-view-from` / `data-view-to` (ISO times of
// the first and last bars in view), beside the chart's own data attributes.

import { useEffect, useRef, useState } from 'preact/hooks';
import { createPriceChart, decimalsOf, type PriceChart, type PriceLineSpec, toSeconds } from '../../chart.ts';
import { CHART_COLORS } from '../../chart-theme.ts';
import { ErrorLine } from '../../ui.tsx';
import { mergedMarkers, sessionSymbol, tradeMarkers } from './marks.ts';
import { type JournalDetail, type JournalTrade, loadSessionBars, type ReviewTrade, tickPrice } from './model.ts';

type Trade = JournalTrade | ReviewTrade;

/** Bars shown either side of a picked trade. */
const PICK_PAD_BARS = 12;

/** The picked trade's entry, initial stop and exit as lines. */
function tradeLines(t: Trade | undefined, tickSize: number): PriceLineSpec[] {
  if (!t) return [];
  const lines: PriceLineSpec[] = [
    { price: t.entryPrice, title: `#${t.tradeNumber} entry ${tickPrice(t.entryPrice, tickSize)}`, color: CHART_COLORS.text, style: 'solid' },
    { price: t.exitPrice, title: `exit ${tickPrice(t.exitPrice, tickSize)}`, color: t.pnl >= 0 ? CHART_COLORS.up : CHART_COLORS.down },
  ];
  if ('initialStop' in t && t.initialStop !== null) lines.push({ price: t.initialStop, title: `stop ${tickPrice(t.initialStop, tickSize)}`, color: CHART_COLORS.down, style: 'dotted' });
  return lines;
}

interface Props {
  detail: JournalDetail;
  trades: readonly Trade[];
  /** The trade picked in the table (zoomed to), or null. */
  picked: number | null;
}

export function SessionChart({ detail, trades, picked }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready'>('loading');
  useEffect(() => {
    const tick = detail.contract.tickSize;
    const c: PriceChart = createPriceChart(host.current!, { precision: decimalsOf(tick), minMove: tick, seconds: detail.timeframe.endsWith('s') });
    chart.current = c;
    const span = () => {
      const v = c.visibleSpan();
      host.current!.dataset.viewFrom = v ? new Date(v.fromS * 1000).toISOString() : '';
      host.current!.dataset.viewTo = v ? new Date(v.toS * 1000).toISOString() : '';
    };
    const off = c.onViewChange(span);
    let gone = false;
    loadSessionBars(detail).then(
      (bars) => {
        if (gone) return;
        c.setBars(bars);
        // The bars played, with a little of the history before them (all of it is a scroll away).
        c.showLast(Math.min(bars.length, Math.max(detail.barsPlayed, 40) + 20));
        setState('ready');
      },
      (e) => !gone && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
      off();
      chart.current = null;
      c.destroy();
    };
  }, [detail.accountId]);
  useEffect(() => {
    const c = chart.current;
    if (!c || state !== 'ready') return;
    c.setMarkers(mergedMarkers(tradeMarkers(trades, sessionSymbol(detail)), (s) => c.barTimeAtOrBefore(s)));
    const t = trades.find((x) => x.tradeNumber === picked);
    c.setPriceLines(tradeLines(t, detail.contract.tickSize));
    if (t) c.showSpan(toSeconds(t.entryTime), toSeconds(t.exitTime), PICK_PAD_BARS);
    host.current!.dataset.picked = t ? String(t.tradeNumber) : '';
  }, [state, trades, picked]);
  return (
    <div class="journal-chart-wrap">
      <div class="journal-chart" ref={host} data-testid="journal-chart" data-state={state} />
      <ErrorLine error={error && `Bars not loaded: ${error}`} />
    </div>
  );
}
