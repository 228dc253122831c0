// The playground: pick a template or one of your strategies, edit its Python, set its params and
// market, run it as a backtest with live progress, and read the result (statistics, equity and
// drawdown, trades on the price chart, logs). Save or fork into strategies and compare their runs.
// Layout only: the state and commands are the models in playground/ (page-model.ts puts them together).

import { useMemo, useState } from 'preact/hooks';
import type { PageProps } from './page-props.ts';
import { ErrorLine, money, signClass } from '../ui.tsx';
import { CodeEditor, type EditorError } from './playground/editor.tsx';
import { EquityChart } from './playground/equity-chart.tsx';
import { ParamsForm } from './playground/params-form.tsx';
import { TradesPriceChart } from './playground/price-chart.tsx';
import { MarketCard } from './playground/market-card.tsx';
import { OptimisePanel } from './playground/optimise.tsx';
import { type PlaygroundCommands, type PlaygroundModels, usePlaygroundPage } from './playground/page-model.ts';
import { PerformanceStats } from './playground/performance.tsx';
import { ReferencePanel } from './playground/reference.tsx';
import { Logs, RunsTable, Stats, StatusBadge, TradesTable } from './playground/results.tsx';
import { Sidebar } from './playground/sidebar.tsx';
import { errorLine, errorSummary } from './playground/traceback.ts';
import type { Execution, ExecutionProgress } from './playground/types.ts';
import './playground.css';

const STARTING_BALANCE = 50_000;

type Page = PlaygroundModels & PlaygroundCommands;

export function PlaygroundPage(_: PageProps) {
  const pg = usePlaygroundPage();
  const { library, doc } = pg;
  const failure = pg.run.result && pg.run.result.error ? pg.run.result.error : null;
  // The reference panel: closed (null), or open at a section (`statistics` from the result's Formulas).
  const [reference, setReference] = useState<{ section?: string } | null>(null);
  const [wide, setWide] = useState<HTMLElement | null>(null);
  const editorError: EditorError | null = useMemo(() => {
    const line = errorLine(failure);
    return line === null || !failure ? null : { line, message: errorSummary(failure) };
  }, [failure]);
  return (
    <div class="pg">
      <Sidebar
        templates={library.templates}
        strategies={library.strategies}
        source={doc.source}
        onTemplate={(t) => pg.openTemplate(t)}
        onStrategy={pg.openStrategy}
        onDelete={pg.deleteStrategy}
        onScratch={pg.openScratch}
      />
      <section class="pg-work">
        <ErrorLine error={library.error} />
        <DocumentHead pg={pg} onReference={() => setReference(reference ? null : {})} />
        {pg.template && <p class="pg-desc muted">{pg.template.description}</p>}
        <CodeEditor value={doc.openedCode} docKey={doc.docKey} onChange={doc.setCode} error={editorError} />
        {failure && <Traceback status={pg.run.result!.status} failure={failure} editorError={editorError} />}
        <MarketCard market={pg.market.market} onChange={pg.market.patch} speed={pg.market.speed} onSpeed={pg.changeSpeed} runError={pg.run.error} runNote={pg.run.note} />
        <div class="card pg-params-card">
          <h3>Params</h3>
          <ParamsForm schema={doc.schema} values={doc.params} onChange={doc.setParams} disabled={pg.run.running} />
        </div>
        <Tabs pg={pg} wide={wide} />
      </section>
      <ResultPane live={pg.run.live} result={pg.run.result} running={pg.run.running} onFormulas={() => setReference({ section: 'statistics' })} />
      {/* Under both columns, as wide as both: the optimiser's progress, tables, heatmap and walk-forward charts. */}
      <section class="pg-wide" ref={setWide} data-testid="wide-column" />
      {reference && <ReferencePanel section={reference.section} onClose={() => setReference(null)} />}
    </div>
  );
}

function DocumentHead({ pg, onReference }: { pg: Page; onReference: () => void }) {
  const { doc, run } = pg;
  const title = doc.source.kind === 'strategy' ? 'Strategy' : doc.source.kind === 'template' ? 'Template' : 'New strategy';
  return (
    <>
      <div class="card pg-head">
        <div class="pg-title">
          <span class="pg-kind">{title}</span>
          <input class="pg-name" name="strategy-name" aria-label="Strategy name" value={doc.name} maxLength={100} onInput={(e) => doc.setName(e.currentTarget.value)} />
          {doc.dirty && (
            <span class="pg-dirty" title="The code differs from the saved or template version">
              ● edited
            </span>
          )}
        </div>
        <div class="pg-head-actions">
          <button type="button" class="ghost" onClick={onReference} data-testid="reference-toggle" title="The strategy API: ctx, bars, orders, indicators, statistics">
            Reference
          </button>
          {doc.strategy && (
            <button type="button" onClick={() => pg.save(false)} disabled={run.busy !== null}>
              Save
            </button>
          )}
          <button type="button" class={doc.strategy ? 'ghost' : ''} onClick={() => pg.save(true)} disabled={run.busy !== null}>
            {doc.strategy ? 'Save as new' : 'Save as strategy'}
          </button>
          {run.running ? (
            <button type="button" class="sell pg-run-btn" onClick={run.stop} disabled={run.busy === 'stop'} data-testid="stop">
              ■ Stop
            </button>
          ) : (
            <button type="button" class="primary pg-run-btn" onClick={pg.startRun} disabled={run.busy !== null} data-testid="run" title="Run (Ctrl+Enter)">
              {run.busy === 'run' ? 'Starting…' : '▶ Run'}
            </button>
          )}
        </div>
      </div>
      {(doc.saveError || doc.saveNote) && (
        <div class="pg-save-msg" data-testid="save-message">
          {doc.saveError ? <ErrorLine error={doc.saveError} /> : <span class="pos">{doc.saveNote}</span>}
        </div>
      )}
    </>
  );
}

function Traceback({ status, failure, editorError }: { status: string; failure: string; editorError: EditorError | null }) {
  return (
    <div class="pg-traceback" data-testid="traceback" role="alert">
      <div class="pg-traceback-head">
        <span class="neg">Run {status}</span>
        {editorError && (
          <button type="button" class="small ghost" onClick={() => document.querySelector('.cm-error-line')?.scrollIntoView({ block: 'center' })}>
            line {editorError.line}
          </button>
        )}
      </div>
      <pre>{failure}</pre>
    </div>
  );
}

function Tabs({ pg, wide }: { pg: Page; wide: HTMLElement | null }) {
  const { tab, setTab, runs, runsError } = pg.tabs;
  const result = pg.run.result;
  const strategy = pg.doc.strategy;
  return (
    <div class="card pg-tabs-card">
      <div class="pg-tabs" role="tablist">
        <button type="button" role="tab" class={tab === 'trades' ? 'active' : ''} onClick={() => setTab('trades')}>
          Trades {result ? <span class="pg-count">{result.tradesTotal}</span> : null}
        </button>
        <button type="button" role="tab" class={tab === 'logs' ? 'active' : ''} onClick={() => setTab('logs')}>
          Logs {result ? <span class="pg-count">{result.logs.length}</span> : null}
        </button>
        <button type="button" role="tab" class={tab === 'optimise' ? 'active' : ''} onClick={() => setTab('optimise')} data-testid="optimise-tab">Optimise</button>
        {strategy && (
          <button type="button" role="tab" class={tab === 'runs' ? 'active' : ''} onClick={() => setTab('runs')} data-testid="runs-tab">
            Runs of {strategy.name} {runs ? <span class="pg-count">{runs.length}</span> : null}
          </button>
        )}
      </div>
      {/* The optimiser's forms, tables and charts grow with their content; the lists scroll in a bounded box. */}
      <div class={`pg-tab-body${tab === 'optimise' ? ' pg-tab-open' : ''}`}>
        {tab === 'trades' && (result ? <TradesTable execution={result} /> : <p class="empty">Run the strategy to see its trades.</p>)}
        {tab === 'logs' && (result ? <Logs execution={result} /> : <p class="empty">Run the strategy to see what it prints.</p>)}
        {tab === 'optimise' && <OptimisePanel request={pg.optimiseRequest()} schema={pg.doc.schema} params={pg.doc.params} onOpenRun={pg.openRun} resultsHost={wide} onMarket={pg.market.patch} />}
        {tab === 'runs' && strategy && (
          <>
            <ErrorLine error={runsError} />
            {runs === null ? <p class="empty">Loading runs…</p> : <RunsTable runs={runs} onOpen={pg.openRun} current={result?.id ?? null} />}
          </>
        )}
      </div>
    </div>
  );
}

function ResultPane({ live, result, running, onFormulas }: { live: ExecutionProgress | null; result: Execution | null; running: boolean; onFormulas: () => void }) {
  const equityPoints = useMemo(() => (result ? result.equityCurve.map((p) => ({ time: Date.parse(p.time) / 1000, equity: p.equity })) : []), [result]);
  return (
    <section class="pg-result" data-testid="result">
      <ResultHeader live={live} />
      {result && result.status !== 'failed' && result.status !== 'timeout' ? (
        <>
          <Stats r={result.results} startingBalance={STARTING_BALANCE} />
          <PerformanceStats r={result.results} onFormulas={onFormulas} />
          <div class="card pg-chart-card">
            <div class="pg-chart-head">
              <span>Equity and drawdown</span>
              <span class="muted">
                {result.instrument} · {result.timeframe} · {result.startDate === result.endDate ? result.startDate : `${result.startDate} → ${result.endDate}`}
              </span>
            </div>
            <EquityChart points={equityPoints} startingBalance={STARTING_BALANCE} />
          </div>
          <div class="card pg-chart-card">
            <TradesPriceChart execution={result} />
          </div>
        </>
      ) : (
        <div class="card pg-placeholder">
          {running ? (
            <p class="muted">Running… the result appears here when the run ends.</p>
          ) : result ? (
            <p class="muted">The run {result.status}: no result to show. The traceback is under the editor.</p>
          ) : (
            <>
              <p>Pick a template, set its params and market, then press Run.</p>
              <p class="muted">
                The result shows the statistics, the equity curve with its drawdown, and every trade on the price chart. Runs use the server's matching engine,
                the same fills as a replay session.
              </p>
            </>
          )}
        </div>
      )}
    </section>
  );
}

function ResultHeader({ live }: { live: ExecutionProgress | null }) {
  if (!live) return null;
  const total = live.progress?.barsTotal ?? 0;
  const done = live.progress?.barsDone ?? 0;
  const pct = total > 0 ? Math.min(100, (done / total) * 100) : live.status === 'running' ? 0 : 100;
  return (
    <div class="card pg-run-head" data-testid="run-head" data-execution-id={live.id}>
      <div class="pg-run-line">
        <StatusBadge status={live.status} testid="run-status" />
        <span class="mono muted" data-testid="run-bars">
          {done.toLocaleString('en-US')} / {total.toLocaleString('en-US')} bars
        </span>
        {live.status === 'running' && live.queued ? (
          <span class="muted" data-testid="run-queued">
            Queued: starts when a runner frees
          </span>
        ) : null}
        <span class="pg-run-figs">
          <span class="muted">P&L</span> <span class={`mono ${signClass(live.totalPnl)}`}>{money(live.totalPnl)}</span>
          <span class="muted">Trades</span> <span class="mono">{live.totalTrades ?? 0}</span>
          {live.speed ? <span class="muted">{live.speed}×</span> : null}
        </span>
      </div>
      <div class="progress" data-testid="run-progress" data-pct={pct.toFixed(1)}>
        <div style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
