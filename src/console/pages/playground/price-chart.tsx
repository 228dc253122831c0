// The run's price bars with its trades on them: an up arrow where a long was entered or a short
// covered, a down arrow where a short was entered or a long sold (../../chart.ts). The container
// carries the chart module's data attributes (data-bars, data-markers, …) for tests.

import { useEffect, useRef, useState } from 'preact/hooks';
import { createPriceChart, decimalsOf, type MarkerSpec, type PriceChart } from '../../chart.ts';
import { contractFor, displayWidth, loadBars, widthSeconds } from './bars.ts';
import type { Execution, Trade } from './types.ts';

const EXIT_COLOR = '#c9d1d9';
/** Beyond this many trades the markers carry no text (it would only be noise). */
const LABELLED_TRADES = 40;

/**
 * One marker per entry and per exit; where a trade's exit and the next one's entry share a time (a
 * reversal) they make one marker in the new direction, labelled with the closed trade's P&L.
 */
export function tradeMarkers(trades: readonly Trade[]): MarkerSpec[] {
  const text = trades.length <= LABELLED_TRADES;
  const pnlText = (t: Trade) => `${t.pnl >= 0 ? '+' : '−'}${Math.abs(t.pnl).toFixed(0)}`;
  const out: MarkerSpec[] = [];
  trades.forEach((t, i) => {
    const long = t.side === 'long';
    const prev = trades[i - 1];
    const reversal = prev !== undefined && prev.exitTime === t.entryTime;
    if (!reversal) out.push({ time: t.entryTime, side: long ? 'buy' : 'sell', text: text ? `${long ? 'Long' : 'Short'} ${t.size}` : undefined });
    const next = trades[i + 1];
    if (next && next.entryTime === t.exitTime) {
      const nl = next.side === 'long';
      out.push({ time: t.exitTime, side: nl ? 'buy' : 'sell', text: text ? pnlText(t) : undefined });
    } else out.push({ time: t.exitTime, side: long ? 'sell' : 'buy', text: text ? pnlText(t) : undefined, color: EXIT_COLOR });
  });
  return out;
}

export function widthLabel(w: number): string {
  return w % 86400 === 0 ? `${w / 86400}d` : w % 3600 === 0 ? `${w / 3600}h` : w % 60 === 0 ? `${w / 60}m` : `${w}s`;
}

export function TradesPriceChart({ execution }: { execution: Execution }) {
  const host = useRef<HTMLDivElement>(null);
  const [note, setNote] = useState<string>('Loading bars…');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const runWidth = widthSeconds(execution.timeframe) ?? 60;
    const curve = execution.equityCurve;
    let chart: PriceChart | null = null;
    let live = true;
    setError(null);
    if (curve.length === 0) {
      setNote('No bars were run.');
      return;
    }
    // The curve holds equity at bar closes: the span runs from the first bar's open to the last close.
    const startS = Date.parse(curve[0]!.time) / 1000 - runWidth;
    const endS = Date.parse(curve[curve.length - 1]!.time) / 1000;
    const width = displayWidth(runWidth, endS - startS);
    setNote('Loading bars…');
    (async () => {
      const contract = await contractFor(execution.instrument);
      const bars = await loadBars(contract.id, width, startS, endS);
      if (!live) return;
      chart = createPriceChart(host.current!, { seconds: width < 60, precision: decimalsOf(contract.tickSize), minMove: contract.tickSize });
      chart.setBars(bars);
      chart.setMarkers(tradeMarkers(execution.trades));
      chart.fit();
      setNote(`${contract.name} · ${widthLabel(width)} bars${width !== runWidth ? ` (run on ${execution.timeframe})` : ''}`);
    })().catch((e) => live && setError(`Price bars could not be loaded: ${e.message}`));
    return () => {
      live = false;
      chart?.destroy();
    };
  }, [execution.id]);

  return (
    <div class="pg-price">
      <div class="pg-chart-head">
        <span>Trades on the price chart</span>
        <span class={error ? 'error' : 'muted'} data-testid="price-chart-note">
          {error ?? note}
        </span>
      </div>
      <div class="pg-chart pg-price-chart" ref={host} data-testid="price-chart" />
    </div>
  );
}
