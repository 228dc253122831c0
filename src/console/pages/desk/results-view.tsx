// A session's statistics (results-model.ts) as a list of figures: the session's end panel and the
// ended sessions' list show the same.

import { ErrorLine, money, signClass } from '../../ui.tsx';
import type { SessionResults } from './results-model.ts';

export function ResultsList({ results: r, error }: { results: SessionResults | null; error: string | null }) {
  if (!r) return error ? <ErrorLine error={`Statistics not loaded: ${error}`} /> : <p class="muted small">Reading the statistics…</p>;
  return (
    <dl class="rules results" data-testid="session-results">
      <Row label="Trades (round trips)" id="trades" value={`${r.totalTrades} · ${r.winningTrades} won · ${r.losingTrades} lost`} />
      <Row label="Win rate" id="win-rate" value={`${r.winRate.toFixed(2)}%`} />
      <Row label="Average win" id="average-win" value={money(r.averageWin)} cls={signClass(r.averageWin)} />
      <Row label="Average loss" id="average-loss" value={money(r.averageLoss)} cls={signClass(r.averageLoss)} />
      <Row label="Largest win" id="largest-win" value={money(r.largestWin)} cls={signClass(r.largestWin)} />
      <Row label="Largest loss" id="largest-loss" value={money(r.largestLoss)} cls={signClass(r.largestLoss)} />
      <Row label="Profit factor" id="profit-factor" value={r.profitFactor === null ? '— (no loss)' : r.profitFactor.toFixed(2)} />
      <Row label="Max drawdown" id="max-drawdown" value={money(r.maxDrawdown)} cls={signClass(r.maxDrawdown)} />
    </dl>
  );
}

function Row({ label, id, value, cls }: { label: string; id: string; value: string; cls?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd class={`mono ${cls ?? ''}`} data-testid={`result-${id}`}>
        {value}
      </dd>
    </>
  );
}
