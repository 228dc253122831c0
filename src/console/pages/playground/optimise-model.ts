// The Optimise tab's state and commands: the search as the trader sets it (ranges, objective,
// walk-forward windows), then the optimisation followed over its event stream to its end, and what
// the end shows (the combinations best first, the heatmap over the first two searched params, the
// walk-forward windows). A refusal lands on the field the server names by its errorCode.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, playground } from '../../api.ts';
import { type OptimisationList, useOptimisationList } from './optimise-list.tsx';
import type { Combination, Heatmap, ObjectiveName, Optimization, OptimizationSummary, OptimiseProgress } from './optimise-types.ts';
import type { Market } from './market-card.tsx';
import type { ParamValues, TemplateParam } from './types.ts';

export interface Range {
  min: number;
  max: number;
  step: number;
}

export interface WalkForwardForm {
  on: boolean;
  inSampleDays: number;
  outOfSampleDays: number;
}

/** The form's fields a refusal can point at. */
export type OptimiseField = 'params' | 'method' | 'objective' | 'minTrades' | 'maxDrawdown' | 'walkForward' | 'general';

export interface Refusal {
  field: OptimiseField;
  message: string;
}

/** POST optimize's errorCode → the field it is about (docs/playground.md, "Optimisation"); others are general. */
const FIELD_OF_CODE: Readonly<Record<number, OptimiseField>> = { 8: 'params', 12: 'method', 13: 'objective', 14: 'minTrades', 15: 'walkForward', 16: 'params' };

export function refusalOf(e: unknown): Refusal {
  const message = e instanceof Error ? e.message : String(e);
  const field = e instanceof ApiError ? FIELD_OF_CODE[e.errorCode] ?? 'general' : 'general';
  // errorCode 14 covers both constraints; its message names the one refused.
  return { field: field === 'minTrades' && message.startsWith('maxDrawdown') ? 'maxDrawdown' : field, message };
}

/** The search: every combination, or `count` of them drawn; and the constraints (blank: none). */
export interface SearchForm {
  method: 'grid' | 'random';
  count: number;
  minTrades: string;
  maxDrawdown: string;
}

/** The search's fields of POST optimize, as the API takes them. */
export function searchFields(f: SearchForm): Record<string, unknown> {
  const out: Record<string, unknown> = { method: f.method };
  if (f.method === 'random') out.count = f.count;
  const constraints: Record<string, number> = {};
  if (f.minTrades.trim() !== '') constraints.minTrades = Number(f.minTrades);
  if (f.maxDrawdown.trim() !== '') constraints.maxDrawdown = Number(f.maxDrawdown);
  if (Object.keys(constraints).length > 0) out.constraints = constraints;
  return out;
}

export function initialRanges(schema: readonly TemplateParam[], params: ParamValues): Record<string, Range> {
  const out: Record<string, Range> = {};
  for (const p of schema) {
    if (p.type !== 'number') continue;
    const v = Number(params[p.name] ?? p.default);
    out[p.name] = { min: v, max: v, step: p.step ?? 1 };
  }
  return out;
}

export interface OptimiseModel {
  ranges: Record<string, Range>;
  setRange(name: string, k: keyof Range, v: number): void;
  objective: ObjectiveName;
  setObjective(o: ObjectiveName): void;
  walkForward: WalkForwardForm;
  setWalkForward(patch: Partial<WalkForwardForm>): void;
  search: SearchForm;
  setSearch(patch: Partial<SearchForm>): void;
  /** The last progress event (or the whole optimisation once it ended). */
  live: OptimiseProgress | null;
  /** The whole optimisation, once it ended. */
  ended: Optimization | null;
  rows: Combination[] | null;
  heat: Heatmap | null;
  refusal: Refusal | null;
  running: boolean;
  start(): Promise<void>;
  stop(): void;
  /** The user's optimisations; `open` reopens one. */
  list: OptimisationList;
  open(o: OptimizationSummary): Promise<void>;
}

/** The params searched: a range where max > min, else the fixed value; other params as the form has them. */
function axesOf(ranges: Record<string, Range>, params: ParamValues): Record<string, unknown> {
  const axes: Record<string, unknown> = { ...params };
  for (const [name, r] of Object.entries(ranges)) axes[name] = r.max > r.min ? r : r.min;
  return axes;
}

/** One optimisation as the tab shows it: followed to its end, then its combinations and heatmap. */
export interface OptimisationView {
  live: OptimiseProgress | null;
  ended: Optimization | null;
  rows: Combination[] | null;
  heat: Heatmap | null;
  /** Follows a running optimisation's event stream; at its end, shows it. */
  follow(id: string): void;
  /** Shows an ended optimisation: its combinations, its heatmap. */
  show(o: Optimization): Promise<void>;
  clear(): void;
}

export function useOptimisationView(fail: (e: unknown) => void, onEnd: () => void): OptimisationView {
  const [live, setLive] = useState<OptimiseProgress | null>(null);
  const [ended, setEnded] = useState<Optimization | null>(null);
  const [rows, setRows] = useState<Combination[] | null>(null);
  const [heat, setHeat] = useState<Heatmap | null>(null);
  const es = useRef<EventSource | null>(null);
  useEffect(() => () => es.current?.close(), []);

  async function show(o: Optimization) {
    es.current?.close();
    setLive(o);
    setEnded(o);
    setHeat(null);
    const page = await playground<{ combinations: Combination[] }>('GET', `optimizations/${o.id}/combinations?limit=100`);
    setRows(page.combinations);
    // A heatmap over the first two params searched; a walk-forward's windows are shown instead.
    const varied = o.params.filter((p) => p.values.length > 1).map((p) => p.name);
    if (varied.length >= 2 && o.walkForward === null) setHeat(await playground<Heatmap>('GET', `optimizations/${o.id}/heatmap?x=${varied[0]}&y=${varied[1]}`));
  }

  function follow(id: string) {
    es.current?.close();
    setLive({ id, status: 'running', error: null, progress: { done: 0, total: 0 }, best: null });
    const source = new EventSource(`/api/playground/optimizations/${encodeURIComponent(id)}/events`);
    es.current = source;
    source.addEventListener('progress', ((ev: MessageEvent) => setLive(JSON.parse(ev.data))) as EventListener);
    source.addEventListener('done', ((ev: MessageEvent) => {
      source.close();
      onEnd();
      show(JSON.parse(ev.data) as Optimization).catch(fail);
    }) as EventListener);
  }

  const clear = () => {
    setRows(null);
    setHeat(null);
    setEnded(null);
  };
  return { live, ended, rows, heat, follow, show, clear };
}

/** A range as the form shows it from the values an optimisation searched (evenly spaced numbers, as the form makes them). */
export function rangeOf(values: readonly unknown[], step: number): Range | null {
  if (values.length === 0 || values.some((v) => typeof v !== 'number')) return null;
  const xs = values as number[];
  // The server's values are min + i·step, rounded: the difference of the first two is the step.
  return { min: xs[0], max: xs[xs.length - 1], step: xs.length > 1 ? Number((xs[1] - xs[0]).toPrecision(12)) : step };
}

/** The form's fields as they were when `o` was started: what pressing Run again repeats. */
function formOf(o: Optimization, ranges: Record<string, Range>) {
  const next = { ...ranges };
  for (const p of o.params) {
    const r = next[p.name] ? rangeOf(p.values, next[p.name].step) : null;
    if (r) next[p.name] = r;
  }
  const search: SearchForm = {
    method: o.method, count: o.count ?? 20, minTrades: o.constraints.minTrades === null ? '' : String(o.constraints.minTrades),
    maxDrawdown: o.constraints.maxDrawdown === null ? '' : String(o.constraints.maxDrawdown),
  };
  const wf = o.walkForward;
  const walkForward: WalkForwardForm = wf ? { on: true, inSampleDays: wf.inSampleDays, outOfSampleDays: wf.outOfSampleDays } : { on: false, inSampleDays: 10, outOfSampleDays: 5 };
  return { ranges: next, objective: o.objective, search, walkForward, market: { instrument: o.instrument, timeframe: o.timeframe, startDate: o.startDate, endDate: o.endDate } };
}

/** The search's form: ranges, objective, walk-forward windows, search; `putBack` sets them all (and the market) at once. */
function useSearchForm(schema: readonly TemplateParam[], params: ParamValues, onMarket: (m: Market) => void) {
  const [ranges, setRanges] = useState<Record<string, Range>>(() => initialRanges(schema, params));
  const [objective, setObjective] = useState<ObjectiveName>('net_pnl');
  const [walkForward, setWf] = useState<WalkForwardForm>({ on: false, inSampleDays: 10, outOfSampleDays: 5 });
  const [search, setS] = useState<SearchForm>({ method: 'grid', count: 20, minTrades: '', maxDrawdown: '' });
  useEffect(() => setRanges(initialRanges(schema, params)), [schema]);
  const putBack = (f: ReturnType<typeof formOf>) => {
    setRanges(f.ranges);
    setObjective(f.objective);
    setS(f.search);
    setWf(f.walkForward);
    onMarket(f.market);
  };
  return { ranges, setRanges, objective, setObjective, walkForward, setWf, search, setS, putBack };
}

export function useOptimise(request: Record<string, unknown>, schema: readonly TemplateParam[], params: ParamValues, onMarket: (m: Market) => void): OptimiseModel {
  const { ranges, setRanges, objective, setObjective, walkForward, setWf, search, setS, putBack } = useSearchForm(schema, params, onMarket);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const fail = (e: unknown) => setRefusal(refusalOf(e));
  const list = useOptimisationList();
  const view = useOptimisationView(fail, list.refresh);

  // An optimisation still running when the tab opens (a reload, another tab) is followed again.
  const runningId = list.items?.find((o) => o.status === 'running')?.id ?? null;
  useEffect(() => {
    if (runningId !== null && view.live === null) view.follow(runningId);
  }, [runningId]);

  // Reopening puts its market, dates, ranges, search and windows back in the form: Run repeats it.
  async function open(o: OptimizationSummary) {
    setRefusal(null);
    view.clear();
    try {
      const full = (await playground<{ optimization: Optimization }>('GET', `optimizations/${encodeURIComponent(o.id)}`)).optimization;
      putBack(formOf(full, ranges));
      if (full.status === 'running') view.follow(full.id);
      else await view.show(full);
    } catch (e) {
      fail(e);
    }
  }

  async function start() {
    setRefusal(null);
    view.clear();
    const body: Record<string, unknown> = { ...request, params: axesOf(ranges, params), objective, ...searchFields(search) };
    if (walkForward.on) body.walkForward = { inSampleDays: walkForward.inSampleDays, outOfSampleDays: walkForward.outOfSampleDays };
    try {
      const r = await playground<{ optimizationId: string }>('POST', 'optimize', body);
      view.follow(r.optimizationId);
      list.refresh();
    } catch (e) {
      fail(e);
    }
  }

  const live = view.live;
  return {
    ranges,
    setRange: (name, k, v) => setRanges((rs) => ({ ...rs, [name]: { ...rs[name], [k]: v } })),
    objective,
    setObjective,
    walkForward,
    setWalkForward: (patch) => setWf((w) => ({ ...w, ...patch })),
    search,
    setSearch: (patch) => setS((f) => ({ ...f, ...patch })),
    live,
    ended: view.ended,
    rows: view.rows,
    heat: view.heat,
    refusal,
    running: live?.status === 'running',
    start,
    stop: () => void (live && playground('POST', `optimizations/${live.id}/stop`, {}).catch(fail)),
    list,
    open,
  };
}
