// The playground: pick a template or one of your strategies, edit its Python, set its params and
// market, run it as a backtest with live progress, and read the result (statistics, equity and
// drawdown, trades on the price chart, logs). Save or fork into strategies and compare their runs.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, playground } from '../api.ts';
import type { PageProps } from './page-props.ts';
import { ErrorLine, money, signClass } from '../ui.tsx';
import { CodeEditor, type EditorError } from './playground/editor.tsx';
import { EquityChart } from './playground/equity-chart.tsx';
import { defaultsOf, ParamsForm, paramProblem, schemaOfValues } from './playground/params-form.tsx';
import { TradesPriceChart } from './playground/price-chart.tsx';
import { type Market, MarketCard } from './playground/market-card.tsx';
import { OptimisePanel } from './playground/optimise.tsx';
import { Logs, RunsTable, Stats, StatusBadge, TradesTable } from './playground/results.tsx';
import { Sidebar, type Source } from './playground/sidebar.tsx';
import { followExecution, type Follow } from './playground/stream.ts';
import { errorLine, errorSummary } from './playground/traceback.ts';
import {
  type Execution,
  type ExecutionProgress,
  type ParamValues,
  type Run,
  type StrategyDetail,
  type StrategySummary,
  type Template,
  type TemplateParam,
} from './playground/types.ts';
import './playground.css';

const BLANK = `# A strategy: on_bar(ctx, bar) runs once per bar, oldest first.
# Orders you ask for fill at the bar's close. See docs/playground.md for ctx.

def init(ctx):
    ctx.count = 0

def on_bar(ctx, bar):
    ctx.count += 1
`;

const STARTING_BALANCE = 50_000;


function marketFields(m: Market): Record<string, unknown> {
  return { instrument: m.instrument, timeframe: m.timeframe, startDate: m.startDate, endDate: m.endDate || m.startDate };
}

const MARKET_KEY = 'replaydesk.playground.market';
const DEFAULT_MARKET: Market = { instrument: 'NQ', timeframe: '5m', startDate: '2025-03-04', endDate: '2025-03-04' };

function savedMarket(): Market {
  try {
    const m = JSON.parse(localStorage.getItem(MARKET_KEY) ?? 'null');
    if (m && typeof m.instrument === 'string' && typeof m.startDate === 'string') return { ...DEFAULT_MARKET, ...m };
  } catch {}
  return DEFAULT_MARKET;
}

type Tab = 'trades' | 'logs' | 'runs' | 'optimise';

/** A template whose params are exactly these names: its schema (labels, bounds) fits saved values. */
function schemaFor(templates: readonly Template[], values: ParamValues): TemplateParam[] {
  const keys = Object.keys(values).sort().join(',');
  const t = templates.find((t) => t.params.map((p) => p.name).sort().join(',') === keys && keys !== '');
  return t ? t.params.map((p) => ({ ...p, default: values[p.name] ?? p.default })) : schemaOfValues(values);
}

export function PlaygroundPage(_: PageProps) {
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [strategies, setStrategies] = useState<StrategySummary[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);

  const [source, setSource] = useState<Source>({ kind: 'scratch' });
  const [strategy, setStrategy] = useState<StrategyDetail | null>(null);
  const [name, setName] = useState('');
  const [code, setCode] = useState(BLANK);
  const [baseCode, setBaseCode] = useState(BLANK); // the code as opened or last saved
  const [docKey, setDocKey] = useState(0); // bumped when a new document is opened in the editor
  const [schema, setSchema] = useState<TemplateParam[]>([]);
  const [params, setParams] = useState<ParamValues>({});
  const [market, setMarket] = useState<Market>(savedMarket);
  const [speed, setSpeed] = useState(0);

  const [live, setLive] = useState<ExecutionProgress | null>(null);
  const [result, setResult] = useState<Execution | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const [runNote, setRunNote] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const [busy, setBusy] = useState<'run' | 'save' | 'stop' | null>(null);
  const [tab, setTab] = useState<Tab>('trades');
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [runsError, setRunsError] = useState<string | null>(null);
  const follow = useRef<Follow | null>(null);

  const running = live !== null && live.status === 'running';
  const dirty = code !== baseCode;
  const template = source.kind === 'template' ? templates?.find((t) => t.id === source.id) ?? null : null;

  const refreshStrategies = () =>
    playground<{ strategies: StrategySummary[] }>('GET', 'strategies')
      .then((r) => setStrategies(r.strategies))
      .catch((e) => setListError(e.message));

  const refreshRuns = (id: string) =>
    playground<{ runs: Run[] }>('GET', `strategies/${encodeURIComponent(id)}/runs`)
      .then((r) => {
        setRuns(r.runs);
        setRunsError(null);
      })
      .catch((e) => setRunsError(e.message));

  useEffect(() => {
    playground<{ templates: Template[] }>('GET', 'templates')
      .then((r) => {
        setTemplates(r.templates);
        if (r.templates[0]) openTemplate(r.templates[0], true);
      })
      .catch((e) => setListError(e.message));
    refreshStrategies();
    return () => follow.current?.stop();
  }, []);

  useEffect(() => {
    localStorage.setItem(MARKET_KEY, JSON.stringify(market));
  }, [market]);

  const leaveOk = () => !dirty || confirm('Discard your unsaved changes to this code?');

  const clearResult = () => {
    if (running) return;
    setResult(null);
    setLive(null);
    setRunError(null);
  };

  function openTemplate(t: Template, initial = false) {
    if (!initial && !leaveOk()) return;
    setSource({ kind: 'template', id: t.id });
    setStrategy(null);
    setName(t.name);
    setCode(t.code);
    setBaseCode(t.code);
    setDocKey((k) => k + 1);
    setSchema(t.params);
    setParams(defaultsOf(t.params));
    setRuns(null);
    setSaveError(null);
    setSaveNote(null);
    if (tab === 'runs') setTab('trades');
    clearResult();
  }

  async function openStrategy(s: StrategySummary) {
    if (!leaveOk()) return;
    setSaveError(null);
    setSaveNote(null);
    try {
      const r = await playground<{ strategy: StrategyDetail }>('GET', `strategies/${encodeURIComponent(s.id)}`);
      const d = r.strategy;
      setSource({ kind: 'strategy', id: d.id });
      setStrategy(d);
      setName(d.name);
      setCode(d.code);
      setBaseCode(d.code);
      setDocKey((k) => k + 1);
      setSchema(schemaFor(templates ?? [], d.params));
      setParams(d.params);
      setMarket((m) => ({ ...m, instrument: d.instrument, timeframe: d.timeframe }));
      setRuns(null);
      setTab('runs');
      clearResult();
      refreshRuns(d.id);
    } catch (e) {
      setListError(e instanceof Error ? e.message : String(e));
    }
  }

  function openScratch() {
    if (!leaveOk()) return;
    setSource({ kind: 'scratch' });
    setStrategy(null);
    setName('My strategy');
    setCode(BLANK);
    setBaseCode(BLANK);
    setDocKey((k) => k + 1);
    setSchema([]);
    setParams({});
    setRuns(null);
    clearResult();
  }

  async function deleteStrategy(s: StrategySummary) {
    if (!confirm(`Delete the strategy “${s.name}”? Its runs stay readable by id but leave this list.`)) return;
    try {
      await playground('DELETE', `strategies/${encodeURIComponent(s.id)}`);
      if (source.kind === 'strategy' && source.id === s.id) {
        setSource({ kind: 'scratch' });
        setStrategy(null);
        setBaseCode('');
        setRuns(null);
      }
      refreshStrategies();
    } catch (e) {
      setListError(e instanceof Error ? e.message : String(e));
    }
  }

  /** Saves the editor as a strategy: an update of the open one, or a new one (`asNew`: a fork). */
  async function save(asNew: boolean): Promise<string | null> {
    setSaveError(null);
    setSaveNote(null);
    const problem = paramsProblem();
    if (problem) {
      setSaveError(problem);
      return null;
    }
    setBusy('save');
    try {
      const body: Record<string, unknown> = { name: name.trim(), code, instrument: market.instrument, timeframe: market.timeframe, params };
      if (!asNew && strategy) body.id = strategy.id;
      const r = await playground<{ id: string }>('POST', 'strategies/save', body);
      const d: StrategyDetail = {
        id: r.id,
        name: name.trim(),
        code,
        params,
        instrument: market.instrument,
        timeframe: market.timeframe,
        createdAt: strategy && !asNew ? strategy.createdAt : new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      };
      const isNew = asNew || !strategy;
      setStrategy(d);
      setSource({ kind: 'strategy', id: r.id });
      setBaseCode(code);
      setSaveNote(isNew ? `Saved as a new strategy “${d.name}”` : 'Saved');
      if (isNew) {
        setRuns([]);
        setTab('runs');
      }
      refreshStrategies();
      return r.id;
    } catch (e) {
      setSaveError(e instanceof Error ? e.message : String(e));
      return null;
    } finally {
      setBusy(null);
    }
  }

  function paramsProblem(): string | null {
    for (const p of schema) {
      const why = paramProblem(p, params[p.name]);
      if (why) return `${p.label}: ${why}`;
    }
    return null;
  }

  async function run() {
    if (running || busy) return;
    setRunError(null);
    setRunNote(null);
    const problem = paramsProblem();
    if (problem) {
      setRunError(problem);
      return;
    }
    const body: Record<string, unknown> = marketFields(market);
    if (speed > 0) body.speed = speed;
    let strategyId: string | null = null;
    if (source.kind === 'strategy' && strategy) {
      // A strategy's runs are recorded under it with its saved code: save edits first.
      if (dirty || JSON.stringify(params) !== JSON.stringify(strategy.params) || market.instrument !== strategy.instrument || market.timeframe !== strategy.timeframe) {
        strategyId = await save(false);
        if (!strategyId) return;
      } else strategyId = strategy.id;
      body.strategyId = strategyId;
    } else if (template && !dirty) {
      body.templateId = template.id;
      body.params = params;
    } else {
      body.code = code;
      body.params = params;
    }
    setBusy('run');
    setResult(null);
    try {
      const r = await playground<{ executionId: string }>('POST', 'run', body);
      startFollowing(r.executionId, strategyId);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const runningId = e instanceof ApiError && e.errorCode === 11 ? e.fields.executionId : undefined;
      if (typeof runningId === 'string') await attach(runningId, msg);
      else {
        setRunError(e instanceof ApiError && e.errorCode === 11 ? `${msg} (the Stop button ends it)` : msg);
        if (e instanceof ApiError && e.errorCode === 11) setLive((l) => l ?? ({ status: 'running' } as ExecutionProgress));
      }
    } finally {
      setBusy(null);
    }
  }

  /** Run refused because another run of this user is going (errorCode 11): follow that one instead. */
  async function attach(id: string, refusal: string) {
    try {
      const r = await playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(id)}`);
      const ex = r.execution;
      if (ex.status === 'running') {
        startFollowing(id, ex.strategyId, ex);
        const what = `${ex.templateId ?? (ex.strategyId ? 'a saved strategy' : 'code')} · ${ex.instrument} ${ex.timeframe} · ${ex.startDate}`;
        setRunNote(`A run was already going (one at a time): following it here (${what}). Stop ends it; then Run starts yours.`);
      } else {
        // It ended between the refusal and this read: show its result; Run is free again.
        setLive(ex);
        setResult(ex);
        setRunNote(`A run was already going and has just ${ex.status}: its result is shown. Run again to start yours.`);
      }
    } catch {
      setRunError(`${refusal} (the Stop button ends it)`);
      setLive((l) => l ?? ({ id, status: 'running' } as ExecutionProgress));
    }
  }

  function startFollowing(id: string, strategyId: string | null, initial?: ExecutionProgress) {
    follow.current?.stop();
    setLive(initial ?? ({ id, status: 'running', progress: { barsDone: 0, barsTotal: 0 }, totalPnl: 0, totalTrades: 0 } as ExecutionProgress));
    follow.current = followExecution(
      id,
      (p) => setLive(p),
      (e) => {
        follow.current = null;
        setLive(e);
        setResult(e);
        if (e.status === 'failed' || e.status === 'timeout') setTab('logs');
        else if (tab === 'logs') setTab('trades');
        if (strategyId) refreshRuns(strategyId);
      },
      (msg) => setRunError(msg),
    );
  }

  async function stop() {
    setBusy('stop');
    try {
      await playground('POST', 'stop', {});
      // A run this page did not start (refused with "already running") has no stream to end it here.
      setLive((l) => (l && !l.id ? null : l));
      setRunError(null);
    } catch (e) {
      setRunError(e instanceof Error ? e.message : String(e));
      if (e instanceof ApiError && e.errorCode === 1) setLive((l) => (l && l.status === 'running' && !l.id ? null : l));
    } finally {
      setBusy(null);
    }
  }

  async function changeSpeed(v: number) {
    setSpeed(v);
    if (!running) return;
    try {
      await playground('POST', 'speed', { speed: v === 0 ? 'max' : v }); // the select's 0 is "Max"; 1–50 otherwise
    } catch (e) {
      setRunError(e instanceof Error ? e.message : String(e));
    }
  }

  async function openRun(id: string) {
    try {
      const r = await playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(id)}`);
      if (r.execution.status === 'running') startFollowing(id, r.execution.strategyId);
      else {
        setLive(r.execution);
        setResult(r.execution);
      }
    } catch (e) {
      setRunsError(e instanceof Error ? e.message : String(e));
    }
  }

  // Ctrl/Cmd+Enter runs.
  const runRef = useRef(run);
  runRef.current = run;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
        e.preventDefault();
        runRef.current();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const failure = result && result.error ? result.error : null;
  const editorError: EditorError | null = useMemo(() => {
    const line = errorLine(failure);
    return line === null || !failure ? null : { line, message: errorSummary(failure) };
  }, [failure]);

  const equityPoints = useMemo(() => (result ? result.equityCurve.map((p) => ({ time: Date.parse(p.time) / 1000, equity: p.equity })) : []), [result]);

  const title = source.kind === 'strategy' ? 'Strategy' : source.kind === 'template' ? 'Template' : 'New strategy';
  const setM = (patch: Partial<Market>) => setMarket((m) => ({ ...m, ...patch }));
  // The optimisation's source and market: a saved strategy's saved code, a template as is, else the editor's code.
  const optimiseRequest = () => ({
    ...marketFields(market), ...(strategy ? { strategyId: strategy.id } : template && !dirty ? { templateId: template.id } : { code }),
  });

  return (
    <div class="pg">
      <Sidebar
        templates={templates}
        strategies={strategies}
        source={source}
        onTemplate={(t) => openTemplate(t)}
        onStrategy={openStrategy}
        onDelete={deleteStrategy}
        onScratch={openScratch}
      />

      <section class="pg-work">
        <ErrorLine error={listError} />
        <div class="card pg-head">
          <div class="pg-title">
            <span class="pg-kind">{title}</span>
            <input
              class="pg-name"
              name="strategy-name"
              aria-label="Strategy name"
              value={name}
              maxLength={100}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            {dirty && (
              <span class="pg-dirty" title="The code differs from the saved or template version">
                ● edited
              </span>
            )}
          </div>
          <div class="pg-head-actions">
            {strategy && (
              <button type="button" onClick={() => save(false)} disabled={busy !== null}>
                Save
              </button>
            )}
            <button type="button" class={strategy ? 'ghost' : ''} onClick={() => save(true)} disabled={busy !== null}>
              {strategy ? 'Save as new' : 'Save as strategy'}
            </button>
            {running ? (
              <button type="button" class="sell pg-run-btn" onClick={stop} disabled={busy === 'stop'} data-testid="stop">
                ■ Stop
              </button>
            ) : (
              <button type="button" class="primary pg-run-btn" onClick={run} disabled={busy !== null} data-testid="run" title="Run (Ctrl+Enter)">
                {busy === 'run' ? 'Starting…' : '▶ Run'}
              </button>
            )}
          </div>
        </div>
        {(saveError || saveNote) && (
          <div class="pg-save-msg" data-testid="save-message">
            {saveError ? <ErrorLine error={saveError} /> : <span class="pos">{saveNote}</span>}
          </div>
        )}
        {template && <p class="pg-desc muted">{template.description}</p>}

        <CodeEditor value={code} docKey={docKey} onChange={setCode} error={editorError} />

        {failure && (
          <div class="pg-traceback" data-testid="traceback" role="alert">
            <div class="pg-traceback-head">
              <span class="neg">Run {result!.status}</span>
              {editorError && (
                <button type="button" class="small ghost" onClick={() => document.querySelector('.cm-error-line')?.scrollIntoView({ block: 'center' })}>
                  line {editorError.line}
                </button>
              )}
            </div>
            <pre>{failure}</pre>
          </div>
        )}

        <MarketCard market={market} onChange={setM} speed={speed} onSpeed={changeSpeed} runError={runError} runNote={runNote} />

        <div class="card pg-params-card">
          <h3>Params</h3>
          <ParamsForm schema={schema} values={params} onChange={setParams} disabled={running} />
        </div>

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
          <div class="pg-tab-body">
            {tab === 'trades' && (result ? <TradesTable execution={result} /> : <p class="empty">Run the strategy to see its trades.</p>)}
            {tab === 'logs' && (result ? <Logs execution={result} /> : <p class="empty">Run the strategy to see what it prints.</p>)}
            {tab === 'optimise' && <OptimisePanel request={optimiseRequest()} schema={schema} params={params} onOpenRun={openRun} />}
            {tab === 'runs' && strategy && (
              <>
                <ErrorLine error={runsError} />
                {runs === null ? <p class="empty">Loading runs…</p> : <RunsTable runs={runs} onOpen={openRun} current={result?.id ?? null} />}
              </>
            )}
          </div>
        </div>
      </section>

      <section class="pg-result" data-testid="result">
        <ResultHeader live={live} />
        {result && result.status !== 'failed' && result.status !== 'timeout' ? (
          <>
            <Stats r={result.results} startingBalance={STARTING_BALANCE} />
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
    </div>
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
