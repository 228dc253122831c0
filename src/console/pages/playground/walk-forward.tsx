// A walk-forward's result on the Optimise tab: the in-sample figures (Σ of each window's best) beside
// the stitched out-of-sample ones, every window with its best params and both parts' statistics, and
// for the window picked its in-sample equity (the best combination's run) beside its out-of-sample
// equity (the same params on the next dates), then the out-of-sample runs stitched end to end.
// Both equity curves of a window are its runs' own (GET executions/:id), drawn as the result pane draws a run.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import { ErrorLine, money, signClass } from '../../ui.tsx';
import { EquityChart, type EquityPoint } from './equity-chart.tsx';
import type { Combination, SpanDates, WalkForwardResult, WalkForwardWindow } from './optimise-types.ts';
import type { Execution, ParamValues } from './types.ts';

const STARTING_BALANCE = 50_000;

const span = (s: SpanDates) => (s.startDate === s.endDate ? s.startDate : `${s.startDate} → ${s.endDate}`);
const curve = (points: readonly { time: string; equity: number }[]): EquityPoint[] => points.map((p) => ({ time: Date.parse(p.time) / 1000, equity: p.equity }));
export const paramsText = (p: ParamValues) => Object.entries(p).map(([k, v]) => `${k}=${v}`).join(' ');

/** `searched`: the params the optimisation varied (the windows' best shows only those). */
export function WalkForwardView({ wf, searched, onOpenRun }: { wf: WalkForwardResult; searched: readonly string[]; onOpenRun: (runId: string) => void }) {
  const last = wf.windows.findLastIndex((w) => w.outOfSampleRun !== null);
  const [picked, setPicked] = useState(Math.max(0, last));
  const stitched = useMemo(() => curve(wf.outOfSample?.equityCurve ?? []), [wf]);
  return (
    <div class="pg-wf" data-testid="walk-forward">
      <h4>Walk-forward · {wf.inSampleDays} in-sample / {wf.outOfSampleDays} out-of-sample trade dates, {wf.windows.length} windows</h4>
      <Comparison wf={wf} />
      <WindowsTable windows={wf.windows} searched={searched} picked={picked} onPick={setPicked} />
      {wf.windows[picked] && <WindowCharts k={picked} w={wf.windows[picked]} onOpenRun={onOpenRun} />}
      {stitched.length > 0 && (
        <div class="pg-wf-chart" data-testid="wf-stitched">
          <div class="pg-chart-head"><span>Out-of-sample equity, stitched</span><span class="muted">all windows, each run from where the previous ended</span></div>
          <EquityChart points={stitched} startingBalance={STARTING_BALANCE} testid="wf-stitched-chart" />
        </div>
      )}
    </div>
  );
}

/** The in-sample figures beside the stitched out-of-sample ones, a row per figure. */
function Comparison({ wf }: { wf: WalkForwardResult }) {
  const is = wf.inSample;
  const oos = wf.outOfSample?.results ?? null;
  const perTrade = (pnl: number, n: number) => (n > 0 ? money(pnl / n) : '—');
  // The in-sample parts overlap when they are longer than the out-of-sample ones: only their sums are figures.
  const rows: [string, string, string, number | null, number | null][] = [
    ['Net P&L', money(is.totalPnl), oos ? money(oos.totalPnl) : '—', is.totalPnl, oos?.totalPnl ?? null],
    ['Trades', String(is.totalTrades), oos ? String(oos.totalTrades) : '—', null, null],
    ['Per trade', perTrade(is.totalPnl, is.totalTrades), oos ? perTrade(oos.totalPnl, oos.totalTrades) : '—', null, null],
    ['Win rate', '—', oos ? `${oos.winRate}%` : '—', null, null],
    ['Profit factor', '—', oos?.profitFactor == null ? '—' : String(oos.profitFactor), null, null],
    ['Max drawdown', '—', oos ? money(oos.maxDrawdown) : '—', null, oos?.maxDrawdown ?? null],
    ['Return', '—', oos ? `${oos.returnPct}%` : '—', null, oos?.returnPct ?? null],
  ];
  return (
    <table class="pg-wf-compare" data-testid="wf-compare">
      <thead>
        <tr><th /><th class="num">In-sample <span class="muted">Σ of each window's best</span></th><th class="num">Out-of-sample <span class="muted">stitched</span></th></tr>
      </thead>
      <tbody>
        {rows.map(([label, a, b, sa, sb]) => (
          <tr key={label} data-testid="wf-figure">
            <th>{label}</th>
            <td class={`num ${signClass(sa)}`}>{a}</td>
            <td class={`num ${signClass(sb)}`}>{b}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WindowsTable({ windows, searched, picked, onPick }: { windows: readonly WalkForwardWindow[]; searched: readonly string[]; picked: number; onPick: (k: number) => void }) {
  const pnl = (c: Combination | null) => <td class={`num ${signClass(c?.statistics?.totalPnl)}`}>{money(c?.statistics?.totalPnl)}</td>;
  const best = (c: Combination) => paramsText(Object.fromEntries(Object.entries(c.params).filter(([n]) => searched.includes(n))));
  return (
    <div class="pg-table-wrap">
      <table class="pg-runs" data-testid="wf-windows">
        <thead>
          <tr>
            <th>#</th><th>In-sample</th><th>Best</th><th class="num">P&L</th><th class="num">Trades</th>
            <th>Out-of-sample</th><th class="num">P&L</th><th class="num">Trades</th>
          </tr>
        </thead>
        <tbody>
          {windows.map((w, k) => (
            <tr key={k} class={`pg-run-row ${k === picked ? 'selected' : ''}`} onClick={() => onPick(k)} title="Show this window's equity" data-testid="wf-window">
              <td class="num muted">{k + 1}</td>
              <td class="mono nowrap">{span(w.inSample)}</td>
              <td class="mono">{w.best ? best(w.best) : 'none qualified'}</td>
              {pnl(w.best)}
              <td class="num">{w.best?.statistics?.totalTrades ?? '—'}</td>
              <td class="mono nowrap">{span(w.outOfSample)}</td>
              {pnl(w.outOfSampleRun)}
              <td class="num">{w.outOfSampleRun?.statistics?.totalTrades ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A run's equity curve, read once per run id. */
function useRunCurve(runId: string | null): { points: EquityPoint[] | null; error: string | null } {
  const [points, setPoints] = useState<EquityPoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setPoints(null);
    setError(null);
    if (runId === null) return;
    let gone = false;
    playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(runId)}`).then(
      (r) => !gone && setPoints(curve(r.execution.equityCurve)),
      (e) => !gone && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
    };
  }, [runId]);
  return { points, error };
}

function WindowCharts({ k, w, onOpenRun }: { k: number; w: WalkForwardWindow; onOpenRun: (runId: string) => void }) {
  return (
    <div class="pg-wf-pair" data-testid="wf-pair" data-window={k}>
      <RunCurve part="in-sample" title={`In-sample · window ${k + 1}, best params`} dates={w.inSample} run={w.best} onOpenRun={onOpenRun} />
      <RunCurve part="out-of-sample" title={`Out-of-sample · window ${k + 1}, same params`} dates={w.outOfSample} run={w.outOfSampleRun} onOpenRun={onOpenRun} />
    </div>
  );
}

function RunCurve(p: { part: string; title: string; dates: SpanDates; run: Combination | null; onOpenRun: (runId: string) => void }) {
  const { points, error } = useRunCurve(p.run?.runId ?? null);
  return (
    <div class="pg-wf-chart" data-testid={`wf-${p.part}-run`} data-run-id={p.run?.runId ?? ''}>
      <div class="pg-chart-head">
        <span>{p.title}</span>
        <span class="muted">{span(p.dates)}</span>
      </div>
      <ErrorLine error={error} />
      {p.run === null ? <p class="empty">No run: no combination qualified in this window.</p> : points === null ? <p class="empty">Loading…</p> : (
        <>
          <EquityChart points={points} startingBalance={STARTING_BALANCE} testid={`wf-${p.part}-chart`} />
          <button type="button" class="small ghost" onClick={() => p.onOpenRun(p.run!.runId)}>Open as a run</button>
        </>
      )}
    </div>
  );
}
