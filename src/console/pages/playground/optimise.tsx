// The playground's Optimise tab: ranges for the template's number params (min, max, step; the
// others keep the form's values), the objective and the search, then live progress over the
// optimisation's event stream, the combinations (best first) and a heatmap over two params. A row or
// a cell opens that combination as a run in the result pane (it is one).

import { useEffect, useRef, useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import { ErrorLine, money, signClass } from '../../ui.tsx';
import type { ParamValues, TemplateParam } from './types.ts';

const OBJECTIVES = [
  ['net_pnl', 'Net P&L'],
  ['return_over_drawdown', 'Return / max drawdown'],
  ['sharpe', 'Sharpe'],
  ['profit_factor', 'Profit factor'],
  ['win_rate', 'Win rate'],
] as const;

interface Range {
  min: number;
  max: number;
  step: number;
}

interface Combination {
  index: number;
  runId: string;
  status: string;
  params: ParamValues;
  objective: number | null;
  qualifies: boolean;
  statistics: { totalPnl: number; totalTrades: number; winRate: number; maxDrawdown: number; sharpeRatio: number | null } | null;
}

interface Progress {
  id: string;
  status: string;
  error: string | null;
  progress: { done: number; total: number };
  best: Combination | null;
}

interface Heatmap {
  x: { name: string; values: (number | string | boolean)[] };
  y: { name: string; values: (number | string | boolean)[] };
  cells: ({ objective: number; runId: string } | null)[][];
}

export interface OptimiseProps {
  /** The run's source and market, as POST run takes them (templateId, strategyId or code; instrument, dates, timeframe). */
  request: Record<string, unknown>;
  schema: readonly TemplateParam[];
  params: ParamValues;
  onOpenRun: (runId: string) => void;
}

function initialRanges(schema: readonly TemplateParam[], params: ParamValues): Record<string, Range> {
  const out: Record<string, Range> = {};
  for (const p of schema) {
    if (p.type !== 'number') continue;
    const v = Number(params[p.name] ?? p.default);
    out[p.name] = { min: v, max: v, step: p.step ?? 1 };
  }
  return out;
}

export function OptimisePanel({ request, schema, params, onOpenRun }: OptimiseProps) {
  const [ranges, setRanges] = useState<Record<string, Range>>(() => initialRanges(schema, params));
  const [objective, setObjective] = useState('net_pnl');
  const [live, setLive] = useState<Progress | null>(null);
  const [rows, setRows] = useState<Combination[] | null>(null);
  const [heat, setHeat] = useState<Heatmap | null>(null);
  const [error, setError] = useState<string | null>(null);
  const es = useRef<EventSource | null>(null);

  useEffect(() => setRanges(initialRanges(schema, params)), [schema]);
  useEffect(() => () => es.current?.close(), []);

  const varied = Object.entries(ranges).filter(([, r]) => r.max > r.min).map(([n]) => n);
  const running = live?.status === 'running';

  async function loadResults(id: string) {
    const page = await playground<{ combinations: Combination[] }>('GET', `optimizations/${id}/combinations?limit=100`);
    setRows(page.combinations);
    if (varied.length >= 2) setHeat(await playground<Heatmap>('GET', `optimizations/${id}/heatmap?x=${varied[0]}&y=${varied[1]}`));
  }

  function follow(id: string) {
    es.current?.close();
    const source = new EventSource(`/api/playground/optimizations/${encodeURIComponent(id)}/events`);
    es.current = source;
    const on = (last: boolean) => (ev: MessageEvent) => {
      const p = JSON.parse(ev.data) as Progress;
      setLive(p);
      if (!last) return;
      source.close();
      loadResults(id).catch((e) => setError(e.message));
    };
    source.addEventListener('progress', on(false) as EventListener);
    source.addEventListener('done', on(true) as EventListener);
  }

  async function start() {
    setError(null);
    setRows(null);
    setHeat(null);
    const axes: Record<string, unknown> = { ...params };
    for (const [name, r] of Object.entries(ranges)) axes[name] = r.max > r.min ? r : r.min;
    try {
      const r = await playground<{ optimizationId: string }>('POST', 'optimize', { ...request, params: axes, objective });
      setLive({ id: r.optimizationId, status: 'running', error: null, progress: { done: 0, total: 0 }, best: null });
      follow(r.optimizationId);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  const stop = () => live && playground('POST', `optimizations/${live.id}/stop`, {}).catch((e) => setError(e.message));
  const setRange = (name: string, k: keyof Range, v: number) => setRanges({ ...ranges, [name]: { ...ranges[name], [k]: v } });

  return (
    <div class="pg-optimise" data-testid="optimise">
      <RangesForm ranges={ranges} onChange={setRange} disabled={running} />
      <Controls objective={objective} onObjective={setObjective} running={running} onStart={start} onStop={stop} />
      <ErrorLine error={error ?? live?.error} />
      {live && <OptimiseProgress live={live} />}
      {rows && <CombinationsTable rows={rows} names={Object.keys(ranges)} onOpen={onOpenRun} />}
      {heat && <HeatmapGrid heat={heat} onOpen={onOpenRun} />}
    </div>
  );
}

function Controls(p: { objective: string; onObjective: (o: string) => void; running: boolean; onStart: () => void; onStop: () => void }) {
  return (
    <div class="row">
      <label>
        Objective
        <select name="objective" value={p.objective} onChange={(e) => p.onObjective(e.currentTarget.value)} disabled={p.running}>
          {OBJECTIVES.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
      </label>
      {p.running ? (
        <button type="button" class="sell" onClick={p.onStop} data-testid="optimise-stop">■ Stop</button>
      ) : (
        <button type="button" class="primary" onClick={p.onStart} data-testid="optimise-start">▶ Optimise</button>
      )}
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

function OptimiseProgress({ live }: { live: Progress }) {
  return (
    <p class="pg-opt-progress" data-testid="optimise-progress">
      <span data-testid="optimise-status">{live.status}</span> · {live.progress.done} / {live.progress.total} combinations
      {live.best && (
        <>
          {' '}· best <span class="mono">{paramsText(live.best.params)}</span>: <span class={signClass(live.best.objective)}>{live.best.objective}</span>
        </>
      )}
    </p>
  );
}

function CombinationsTable({ rows, names, onOpen }: { rows: readonly Combination[]; names: readonly string[]; onOpen: (id: string) => void }) {
  return (
    <div class="pg-table-wrap">
      <table class="pg-runs" data-testid="optimise-combinations">
        <thead>
          <tr>
            {names.map((n) => <th key={n}>{n}</th>)}
            <th class="num">Objective</th><th class="num">Net P&L</th><th class="num">Trades</th><th class="num">Win rate</th><th class="num">Max DD</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.runId} class="pg-run-row" onClick={() => onOpen(c.runId)} title="Open this combination as a run" data-testid="optimise-row">
              {names.map((n) => <td key={n} class="mono">{String(c.params[n])}</td>)}
              <td class="num">{c.objective ?? '—'}</td>
              <td class={`num ${signClass(c.statistics?.totalPnl)}`}>{money(c.statistics?.totalPnl)}</td>
              <td class="num">{c.statistics?.totalTrades ?? '—'}</td>
              <td class="num">{c.statistics ? `${c.statistics.winRate}%` : '—'}</td>
              <td class="num">{money(c.statistics?.maxDrawdown)}</td>
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

function paramsText(p: ParamValues): string {
  return Object.entries(p).map(([k, v]) => `${k}=${v}`).join(' ');
}
