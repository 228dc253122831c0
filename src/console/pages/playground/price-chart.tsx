// The run's price bars with its trades on them (trades-chart.ts): an up arrow where a long was
// entered or a short covered, a down arrow where a short was entered or a long sold, and, where
// they would pile up at the current zoom, one circle with their count. Every trade of the run is on
// it (trades-store.ts pages in those past the execution's first 5,000); picking a row of the trade
// list moves the chart to that trade.

import { useEffect, useRef, useState } from 'preact/hooks';
import { decimalsOf } from '../../chart.ts';
import { replayedContractName } from '../desk/contract-name.ts';
import { contractFor, displayWidth, loadBars, widthSeconds } from './bars.ts';
import { TradesChart } from './trades-chart.ts';
import { useAllTrades, useFocusedTrade } from './trades-store.ts';
import type { Execution } from './types.ts';

export function widthLabel(w: number): string {
  return w % 86400 === 0 ? `${w / 86400}d` : w % 3600 === 0 ? `${w / 3600}h` : w % 60 === 0 ? `${w / 60}m` : `${w}s`;
}

/**
 * The contract the run traded, as the desk names it: the front month on the replayed dates (NQH5 for
 * March 2025; two names when the span crosses a roll), not today's front that Contract/search names.
 */
function runContracts(contract: { id: string; name: string }, startS: number, endS: number): string {
  const iso = (s: number) => new Date(s * 1000).toISOString();
  const first = replayedContractName(contract.id, iso(startS));
  const last = replayedContractName(contract.id, iso(endS - 1));
  if (first === null || last === null) return contract.name;
  return first === last ? first : `${first}–${last}`;
}

/** Creates the chart once the run's bars are in; null until then. */
function useTradesChart(execution: Execution, host: { current: HTMLDivElement | null }, setNote: (s: string) => void, setError: (s: string | null) => void) {
  const [chart, setChart] = useState<TradesChart | null>(null);
  useEffect(() => {
    const runWidth = widthSeconds(execution.timeframe) ?? 60;
    const curve = execution.equityCurve;
    let made: TradesChart | null = null;
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
      made = new TradesChart(host.current!, { seconds: width < 60, precision: decimalsOf(contract.tickSize), minMove: contract.tickSize });
      made.setBars(bars);
      made.fit();
      setChart(made);
      setNote(`${runContracts(contract, startS, endS)} · ${widthLabel(width)} bars${width !== runWidth ? ` (run on ${execution.timeframe})` : ''}`);
    })().catch((e) => live && setError(`Price bars could not be loaded: ${e.message}`));
    return () => {
      live = false;
      made?.destroy();
      setChart(null);
    };
  }, [execution.id]);
  return chart;
}

export function TradesPriceChart({ execution }: { execution: Execution }) {
  const host = useRef<HTMLDivElement>(null);
  const [note, setNote] = useState<string>('Loading bars…');
  const [error, setError] = useState<string | null>(null);
  const chart = useTradesChart(execution, host, setNote, setError);
  const all = useAllTrades(execution);
  const focused = useFocusedTrade(execution.id);

  useEffect(() => chart?.setTrades(all.trades), [chart, all.trades]);
  useEffect(() => {
    if (chart && focused !== null) chart.focus(focused);
  }, [chart, focused, all.trades]);

  const tradesNote = all.loading ? ' · loading trades…' : all.error ? ` · ${all.error}` : '';
  return (
    <div class="pg-price">
      <div class="pg-chart-head">
        <span>Trades on the price chart</span>
        <span class={error ? 'error' : 'muted'} data-testid="price-chart-note">
          {error ?? note + tradesNote}
        </span>
      </div>
      <div class="pg-chart pg-price-chart" ref={host} data-testid="price-chart" />
    </div>
  );
}
