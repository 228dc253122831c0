// The playground's Optimise tab: ranges for the template's number params (min, max, step; the
// others keep the form's values), the search (grid or a random sample), the constraints, optionally
// walk-forward windows, and the objective; then live progress over the optimisation's event stream,
// the combinations (best first) and a heatmap over two params, or a walk-forward's windows. The
// user's optimisations are listed, and any reopens. A row or a cell opens that combination as a run
// in the result pane (it is one). The progress and results render in the page's wide row under the
// editor and the result (a portal), the form stays in the tab. State and commands: optimise-model.ts.

import { createPortal } from 'preact/compat';
import { ErrorLine, money, signClass } from '../../ui.tsx';
import { OptimisationsTable } from './optimise-list.tsx';
import { type OptimiseModel, type Range, type Refusal, useOptimise, type WalkForwardForm } from './optimise-model.ts';
import { type Combination, type Heatmap, type ObjectiveName, OBJECTIVES, type OptimiseProgress } from './optimise-types.ts';
import type { ParamValues, TemplateParam } from './types.ts';
import { paramsText, WalkForwardView } from './walk-forward.tsx';

export interface OptimiseProps {
  /** The run's source and market, as POST run takes them (templateId, strategyId or code; instrument, dates, timeframe). */
  request: Record<string, unknown>;
  schema: readonly TemplateParam[];
  params: ParamValues;
  onOpenRun: (runId: string) => void;
  /** Where the progress and results go (the page's wide row under both columns); in the tab when null. */
  resultsHost?: HTMLElement | null;
}

/** The refusal's message when it is about `field`. */
const about = (r: Refusal | null, field: Refusal['field']) => (r && r.field === field ? r.message : null);

export function OptimisePanel({ request, schema, params, onOpenRun, resultsHost }: OptimiseProps) {
  const m = useOptimise(request, schema, params);
  const results = (m.live || m.rows || m.heat) && (
    <div class="card pg-optimise pg-optimise-results" data-testid="optimise-results">
      {m.live && <OptimiseProgressLine live={m.live} walkForward={m.ended?.walkForward != null} />}
      <OptimiseResults m={m} names={m.ended ? m.ended.params.map((p) => p.name) : Object.keys(m.ranges)} onOpenRun={onOpenRun} />
    </div>
  );
  return (
    <div class="pg-optimise" data-testid="optimise">
      <RangesForm ranges={m.ranges} onChange={m.setRange} disabled={m.running} />
      <FieldError message={about(m.refusal, 'params')} field="params" />
      <SearchFields m={m} />
      <WalkForwardFields wf={m.walkForward} onChange={m.setWalkForward} disabled={m.running} error={about(m.refusal, 'walkForward')} />
      <Controls m={m} />
      <ErrorLine error={about(m.refusal, 'general') ?? m.live?.error} />
      <OptimisationsTable list={m.list} current={m.live?.id ?? null} onOpen={m.open} />
      {resultsHost ? createPortal(results, resultsHost) : results}
    </div>
  );
}

function OptimiseResults({ m, names, onOpenRun }: { m: OptimiseModel; names: readonly string[]; onOpenRun: (id: string) => void }) {
  const wf = m.ended?.walkForward ?? null;
  return (
    <>
      {wf && <WalkForwardView wf={wf} searched={m.ended!.params.filter((p) => p.values.length > 1).map((p) => p.name)} onOpenRun={onOpenRun} />}
      {m.rows && <CombinationsTable rows={m.rows} names={names} windows={wf !== null} onOpen={onOpenRun} />}
      {m.heat && <HeatmapGrid heat={m.heat} onOpen={onOpenRun} />}
    </>
  );
}

function FieldError({ message, field }: { message: string | null; field: string }) {
  return message ? <p class="error pg-field-error" role="alert" data-testid={`optimise-error-${field}`}>{message}</p> : null;
}

function WalkForwardFields(p: { wf: WalkForwardForm; onChange: (patch: Partial<WalkForwardForm>) => void; disabled: boolean; error: string | null }) {
  return (
    <div class="pg-opt-wf">
      <div class="row">
        <label class="check">
          <input type="checkbox" name="walkForward" checked={p.wf.on} disabled={p.disabled} onChange={(e) => p.onChange({ on: e.currentTarget.checked })} />
          Walk-forward
        </label>
        {p.wf.on && (
          <>
            <label>
              In-sample trade dates
              <input type="number" name="inSampleDays" min={1} value={p.wf.inSampleDays} disabled={p.disabled} onInput={(e) => p.onChange({ inSampleDays: Number(e.currentTarget.value) })} />
            </label>
            <label>
              Out-of-sample trade dates
              <input type="number" name="outOfSampleDays" min={1} value={p.wf.outOfSampleDays} disabled={p.disabled} onInput={(e) => p.onChange({ outOfSampleDays: Number(e.currentTarget.value) })} />
            </label>
          </>
        )}
      </div>
      <FieldError message={p.error} field="walkForward" />
    </div>
  );
}

function SearchFields({ m }: { m: OptimiseModel }) {
  const f = m.search;
  const off = m.running;
  return (
    <div class="pg-opt-search">
      <div class="row">
        <label>
          Search
          <select name="method" value={f.method} disabled={off} onChange={(e) => m.setSearch({ method: e.currentTarget.value as 'grid' | 'random' })}>
            <option value="grid">Grid: every combination</option>
            <option value="random">Random sample</option>
          </select>
        </label>
        {f.method === 'random' && (
          <label>
            Combinations
            <input type="number" name="count" min={1} value={f.count} disabled={off} onInput={(e) => m.setSearch({ count: Number(e.currentTarget.value) })} />
          </label>
        )}
        <label title="A combination with fewer trades is never the best">
          Min trades
          <input type="number" name="minTrades" min={0} placeholder="any" value={f.minTrades} disabled={off} onInput={(e) => m.setSearch({ minTrades: e.currentTarget.value })} />
        </label>
        <label title="A combination whose drawdown is deeper (USD) is never the best">
          Max drawdown (USD)
          <input type="number" name="maxDrawdown" min={0} placeholder="any" value={f.maxDrawdown} disabled={off} onInput={(e) => m.setSearch({ maxDrawdown: e.currentTarget.value })} />
        </label>
      </div>
      <FieldError message={about(m.refusal, 'method')} field="method" />
      <FieldError message={about(m.refusal, 'minTrades')} field="minTrades" />
      <FieldError message={about(m.refusal, 'maxDrawdown')} field="maxDrawdown" />
    </div>
  );
}

function Controls({ m }: { m: OptimiseModel }) {
  return (
    <div class="row">
      <label>
        Objective
        <select name="objective" value={m.objective} onChange={(e) => m.setObjective(e.currentTarget.value as ObjectiveName)} disabled={m.running}>
          {OBJECTIVES.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
      </label>
      {m.running ? (
        <button type="button" class="sell" onClick={m.stop} data-testid="optimise-stop">■ Stop</button>
      ) : (
        <button type="button" class="primary" onClick={m.start} data-testid="optimise-start">▶ Optimise</button>
      )}
      <FieldError message={about(m.refusal, 'objective')} field="objective" />
    </div>
  );
}

function RangesForm({ ranges, onChange, disabled }: { ranges: Record<string, Range>; onChange: (n: string, k: keyof Range, v: number) => void; disabled: boolean }) {
  const names = Object.keys(ranges);
  if (names.length === 0) return <p class="empty">This strategy has no number params to search.</p>;
  return (
    <table class="pg-ranges">
      <thead>
        <tr><th>Param</th><th>Min</th><th>Max</th><th>Step</th></tr>
      </thead>
      <tbody>
        {names.map((n) => (
          <tr key={n}>
            <td class="mono">{n}</td>
            {(['min', 'max', 'step'] as const).map((k) => (
              <td key={k}>
                <input type="number" name={`${n}-${k}`} value={ranges[n][k]} disabled={disabled} onInput={(e) => onChange(n, k, Number(e.currentTarget.value))} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function OptimiseProgressLine({ live, walkForward }: { live: OptimiseProgress; walkForward: boolean }) {
  return (
    <p class="pg-opt-progress" data-testid="optimise-progress" data-optimization-id={live.id}>
      <span data-testid="optimise-status">{live.status}</span> · {live.progress.done} / {live.progress.total} combinations
      {live.best && (
        <>
          {' '}· best <span class="mono">{paramsText(live.best.params)}</span>: <span class={signClass(live.best.objective)}>{live.best.objective}</span>
        </>
      )}
      {!live.best && live.status !== 'running' && !walkForward && <span data-testid="optimise-no-best"> · no combination fits the constraints</span>}
    </p>
  );
}

function CombinationsTable({ rows, names, windows, onOpen }: { rows: readonly Combination[]; names: readonly string[]; windows: boolean; onOpen: (id: string) => void }) {
  return (
    <div class="pg-table-wrap">
      <table class="pg-runs" data-testid="optimise-combinations">
        <thead>
          <tr>
            {windows && <th>Window</th>}
            {names.map((n) => <th key={n}>{n}</th>)}
            <th class="num">Objective</th><th class="num">Net P&L</th><th class="num">Trades</th><th class="num">Win rate</th><th class="num">Max DD</th><th title="Completed within the constraints: it may be the best">Fits</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.runId} class="pg-run-row" onClick={() => onOpen(c.runId)} title="Open this combination as a run" data-testid="optimise-row">
              {windows && <td class="num muted">{(c.window ?? 0) + 1}</td>}
              {names.map((n) => <td key={n} class="mono">{String(c.params[n])}</td>)}
              <td class="num">{c.objective ?? '—'}</td>
              <td class={`num ${signClass(c.statistics?.totalPnl)}`}>{money(c.statistics?.totalPnl)}</td>
              <td class="num">{c.statistics?.totalTrades ?? '—'}</td>
              <td class="num">{c.statistics ? `${c.statistics.winRate}%` : '—'}</td>
              <td class="num">{money(c.statistics?.maxDrawdown)}</td>
              <td class={c.qualifies ? 'pos' : 'muted'} title={c.qualifies ? 'Within the constraints' : 'Outside the constraints, or no objective value'}>{c.qualifies ? '✓' : '✗'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function HeatmapGrid({ heat, onOpen }: { heat: Heatmap; onOpen: (id: string) => void }) {
  const values = heat.cells.flat().filter((c) => c !== null).map((c) => c!.objective);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const shade = (v: number) => `hsl(${hi === lo ? 60 : Math.round(((v - lo) / (hi - lo)) * 120)} 60% 40%)`;
  return (
    <table class="pg-heatmap" data-testid="optimise-heatmap">
      <thead>
        <tr>
          <th class="mono">{heat.y.name} \ {heat.x.name}</th>
          {heat.x.values.map((v) => <th key={String(v)} class="mono">{String(v)}</th>)}
        </tr>
      </thead>
      <tbody>
        {heat.cells.map((row, yi) => (
          <tr key={yi}>
            <th class="mono">{String(heat.y.values[yi])}</th>
            {row.map((c, xi) => c === null
              ? <td key={xi} class="muted">—</td>
              : <td key={xi} style={{ background: shade(c.objective) }} onClick={() => onOpen(c.runId)} title="Open this combination as a run" data-testid="heat-cell">{c.objective}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
