// The user's optimisations on the Optimise tab (GET optimizations, newest first; a user keeps 20):
// what each searched and how it ended. A row reopens it: an ended one shows its combinations, its
// heatmap or its walk-forward windows; a running one is followed again.

import { useEffect, useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import { formatTime } from '../../time-format.ts';
import { ErrorLine } from '../../ui.tsx';
import { objectiveLabel, type OptimizationSummary } from './optimise-types.ts';

export interface OptimisationList {
  items: OptimizationSummary[] | null;
  error: string | null;
  refresh(): void;
}

export function useOptimisationList(): OptimisationList {
  const [items, setItems] = useState<OptimizationSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () =>
    void playground<{ optimizations: OptimizationSummary[] }>('GET', 'optimizations').then(
      (r) => {
        setItems(r.optimizations);
        setError(null);
      },
      (e) => setError(e instanceof Error ? e.message : String(e)),
    );
  useEffect(refresh, []);
  return { items, error, refresh };
}

const span = (o: OptimizationSummary) => (o.startDate === o.endDate ? o.startDate : `${o.startDate} → ${o.endDate}`);
const search = (o: OptimizationSummary) =>
  (o.method === 'random' ? `random ${o.count}` : 'grid') + (o.walkForward ? ` · walk-forward ${o.walkForward.inSampleDays}/${o.walkForward.outOfSampleDays}` : '');

export function OptimisationsTable({ list, current, onOpen }: { list: OptimisationList; current: string | null; onOpen: (o: OptimizationSummary) => void }) {
  if (list.error) return <ErrorLine error={list.error} />;
  if (list.items === null || list.items.length === 0) return null;
  return (
    <details class="pg-opt-list" open>
      <summary>Your optimisations <span class="pg-count">{list.items.length}</span></summary>
      <div class="pg-table-wrap">
        <table class="pg-runs" data-testid="optimisations">
          <thead>
            <tr>
              <th>Started</th><th>Source</th><th>Market</th><th>Search</th><th>Objective</th><th>Status</th><th class="num">Done</th><th class="num">Best</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((o) => (
              <tr key={o.id} class={`pg-run-row ${o.id === current ? 'current' : ''}`} onClick={() => onOpen(o)} title="Open this optimisation" data-testid="optimisation-row" data-id={o.id}>
                <td class="mono nowrap">{formatTime(o.createdAt)}</td>
                <td>{o.templateId ?? (o.strategyId ? 'saved strategy' : 'code')}</td>
                <td class="nowrap">{o.instrument} {o.timeframe} · {span(o)}</td>
                <td>{search(o)}</td>
                <td>{objectiveLabel(o.objective)}</td>
                <td>{o.status}</td>
                <td class="num">{o.progress.done} / {o.progress.total}</td>
                <td class="num">{o.best?.objective ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
