// The playground page's models put together, and the commands that span them: opening a template, a
// strategy or a blank page (the document, the market, the tabs and the result change together),
// saving, deleting, running. The page component (playground.tsx) is layout over this.

import { useEffect, useRef } from 'preact/hooks';
import { playground } from '../../api.ts';
import { type DocumentModel, useDocument } from './document-model.ts';
import { type LibraryModel, useLibrary } from './library-model.ts';
import { marketFields, type MarketModel, useMarket } from './market-model.ts';
import { type RunModel, useRun } from './run-model.ts';
import { type TabsModel, useTabs } from './strategy-runs-model.ts';
import type { Execution, StrategyDetail, StrategySummary, Template } from './types.ts';

export interface PlaygroundModels {
  library: LibraryModel;
  doc: DocumentModel;
  market: MarketModel;
  run: RunModel;
  tabs: TabsModel;
  /** The open template (a template opened as is or edited), or null. */
  template: Template | null;
}

export interface PlaygroundCommands {
  openTemplate(t: Template, initial?: boolean): void;
  openStrategy(s: StrategySummary): Promise<void>;
  openScratch(): void;
  deleteStrategy(s: StrategySummary): Promise<void>;
  /** Saves the editor as a strategy: an update of the open one, or a new one (`asNew`: a fork). */
  save(asNew: boolean): Promise<string | null>;
  /** Run (or Ctrl+Enter): checks the params, saves an edited strategy first, then POST run. */
  startRun(): Promise<void>;
  changeSpeed(v: number): void;
  openRun(id: string): Promise<void>;
  /** The optimisation's source and market: a saved strategy's saved code, a template as is, else the editor's code. */
  optimiseRequest(): Record<string, unknown>;
}

export function usePlaygroundPage(): PlaygroundModels & PlaygroundCommands {
  const library = useLibrary();
  const doc = useDocument();
  const market = useMarket();
  const tabs = useTabs();
  const run = useRun((e: Execution, strategyId: string | null) => {
    if (e.status === 'failed' || e.status === 'timeout') tabs.setTab('logs');
    else if (tabs.tab === 'logs') tabs.setTab('trades');
    if (strategyId) tabs.refreshRuns(strategyId);
  });
  const source = doc.source;
  const template = source.kind === 'template' ? library.templates?.find((t) => t.id === source.id) ?? null : null;
  const m: PlaygroundModels = { library, doc, market, run, tabs, template };
  // The code of the last run started here (null for a run opened from a list): "Save as strategy"
  // records the run on screen under the new strategy when it ran the code being saved.
  const ranCode = useRef<string | null>(null);
  const commands = { ...openCommands(m), ...runCommands(m, ranCode) };

  useEffect(() => {
    library.loadTemplates((t) => commands.openTemplate(t, true));
    library.refreshStrategies();
  }, []);

  // Ctrl/Cmd+Enter runs.
  const runRef = useRef(commands.startRun);
  runRef.current = commands.startRun;
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

  return { ...m, ...commands };
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function openCommands({ library, doc, market, run, tabs }: PlaygroundModels) {
  const leaveOk = () => !doc.dirty || confirm('Discard your unsaved changes to this code?');
  return {
    openTemplate(t: Template, initial = false) {
      if (!initial && !leaveOk()) return;
      doc.openTemplate(t);
      tabs.setRuns(null);
      doc.saveMessage(null, null);
      if (tabs.tab === 'runs') tabs.setTab('trades');
      run.clear();
    },
    async openStrategy(s: StrategySummary) {
      if (!leaveOk()) return;
      doc.saveMessage(null, null);
      try {
        const d = (await playground<{ strategy: StrategyDetail }>('GET', `strategies/${encodeURIComponent(s.id)}`)).strategy;
        doc.openStrategy(d, library.templates ?? []);
        market.patch({ instrument: d.instrument, timeframe: d.timeframe });
        tabs.setRuns(null);
        tabs.setTab('runs');
        run.clear();
        tabs.refreshRuns(d.id);
      } catch (e) {
        library.setError(message(e));
      }
    },
    openScratch() {
      if (!leaveOk()) return;
      doc.openScratch();
      tabs.setRuns(null);
      run.clear();
    },
    async deleteStrategy(s: StrategySummary) {
      if (!confirm(`Delete the strategy “${s.name}”? Its runs stay readable by id but leave this list.`)) return;
      try {
        await playground('DELETE', `strategies/${encodeURIComponent(s.id)}`);
        if (doc.source.kind === 'strategy' && doc.source.id === s.id) {
          doc.forgetStrategy();
          tabs.setRuns(null);
        }
        library.refreshStrategies();
      } catch (e) {
        library.setError(message(e));
      }
    },
  };
}

/** The ended single run on screen, when it ran `code` on the market being saved: the run a new strategy is saved from. */
function runSavedFrom(run: RunModel, market: MarketModel, ranCode: string | null, code: string): string | null {
  const r = run.result;
  if (!r || run.running || r.status === 'running' || r.strategyId !== null || ranCode !== code) return null;
  return r.instrument === market.market.instrument && r.timeframe === market.market.timeframe ? r.id : null;
}

function saveCommand({ library, doc, market, run, tabs }: PlaygroundModels, ranCode: { current: string | null }) {
  return async function save(asNew: boolean): Promise<string | null> {
    doc.saveMessage(null, null);
    const problem = doc.paramsProblem();
    if (problem) {
      doc.saveMessage(problem, null);
      return null;
    }
    run.setBusy('save');
    const { strategy, code, params } = doc;
    try {
      const body: Record<string, unknown> = { name: doc.name.trim(), code, instrument: market.market.instrument, timeframe: market.market.timeframe, params };
      if (!asNew && strategy) body.id = strategy.id;
      const savedFrom = asNew || !strategy ? runSavedFrom(run, market, ranCode.current, code) : null;
      if (savedFrom) body.runId = savedFrom;
      const r = await playground<{ id: string }>('POST', 'strategies/save', body);
      const now = new Date().toISOString();
      const d: StrategyDetail = {
        id: r.id, name: doc.name.trim(), code, params, instrument: market.market.instrument, timeframe: market.market.timeframe,
        createdAt: strategy && !asNew ? strategy.createdAt : now, updatedAt: now,
      };
      const isNew = asNew || !strategy;
      doc.saved(d);
      doc.saveMessage(null, isNew ? `Saved as a new strategy “${d.name}”` : 'Saved');
      if (isNew) {
        tabs.setRuns(savedFrom ? null : []);
        tabs.setTab('runs');
        // The run it was saved from is listed under it now (the server checked it): read the list.
        if (savedFrom) tabs.refreshRuns(r.id);
      }
      library.refreshStrategies();
      return r.id;
    } catch (e) {
      doc.saveMessage(message(e), null);
      return null;
    } finally {
      run.setBusy(null);
    }
  };
}

function runCommands(m: PlaygroundModels, ranCode: { current: string | null }) {
  const { doc, market, run, tabs, template } = m;
  const save = saveCommand(m, ranCode);
  /** The source of POST run: a saved strategy (saved first when edited), a template as is, else the code. */
  async function sourceFields(): Promise<{ fields: Record<string, unknown>; strategyId: string | null } | null> {
    const { strategy, params } = doc;
    if (doc.source.kind === 'strategy' && strategy) {
      // A strategy's runs are recorded under it with its saved code: save edits first.
      const mk = market.market;
      const edited = doc.dirty || JSON.stringify(params) !== JSON.stringify(strategy.params) || mk.instrument !== strategy.instrument || mk.timeframe !== strategy.timeframe;
      const strategyId = edited ? await save(false) : strategy.id;
      return strategyId ? { fields: { strategyId }, strategyId } : null;
    }
    return { fields: template && !doc.dirty ? { templateId: template.id, params } : { code: doc.code, params }, strategyId: null };
  }
  return {
    save,
    async startRun() {
      if (run.running || run.busy) return;
      run.setError(null);
      run.setNote(null);
      const problem = doc.paramsProblem();
      if (problem) return run.setError(problem);
      const body: Record<string, unknown> = marketFields(market.market);
      if (market.speed > 0) body.speed = market.speed;
      const src = await sourceFields();
      if (src === null) return;
      ranCode.current = doc.code;
      await run.start({ ...body, ...src.fields }, src.strategyId);
    },
    changeSpeed(v: number) {
      market.setSpeed(v);
      void run.pace(v);
    },
    async openRun(id: string) {
      ranCode.current = null;
      try {
        await run.open(id);
      } catch (e) {
        tabs.setRunsError(message(e));
      }
    },
    optimiseRequest: () => ({
      ...marketFields(market.market), ...(doc.strategy ? { strategyId: doc.strategy.id } : template && !doc.dirty ? { templateId: template.id } : { code: doc.code }),
    }),
  };
}
