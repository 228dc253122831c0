// Reading optimisations: one as its user sees it (its best combination, or its walk-forward windows
// with the stitched out-of-sample results), a page of the user's, a page of its combinations in any
// order, and the heatmap over two of its axes.

import { limits } from '../../config.ts';
import { TradeTally } from '../../engine/results.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { ComboRow, OptimizationRow, PlaygroundOptimizationStore } from '../../store/playground-optimizations.ts';
import type { EquityPoint } from './ledger.ts';
import type { OptimizeRequest, OptimizeState, Span } from './optimize-request.ts';
import {
  type Axis, bestOf, type Combination, heatmap, type HeatCell, type Objective, objectiveValue, qualifies, SORT_KEYS, type SortKey, sortCombinations, type Summary,
} from './optimize-space.ts';
import type { RunReads } from './run-reads.ts';
import { stitch, type Stitched } from './walk-forward.ts';

export type OptimizationNotFound = { kind: 'optimization_not_found' };
export type OptimizeStopError = OptimizationNotFound | { kind: 'not_running' };
export type CombinationsError = OptimizationNotFound | { kind: 'invalid_sort' } | { kind: 'invalid_order' } | { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };
export type ListError = { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };
export type HeatmapError = OptimizationNotFound | { kind: 'invalid_axis'; field: 'x' | 'y' };

export interface CombinationView extends Combination {
  objectiveValue: number | null;
  qualifies: boolean;
}

export interface WindowView {
  inSample: Span;
  outOfSample: Span;
  best: CombinationView | null;
  outOfSampleRun: CombinationView | null;
}

export interface OptimizationView {
  row: OptimizationRow;
  request: OptimizeRequest;
  done: number;
  best: CombinationView | null;
  windows: WindowView[] | null;
  stitched: Stitched | null;
}

export interface CombinationsPage {
  objective: Objective;
  combinations: CombinationView[];
  offset: number;
  limit: number;
  total: number;
}

export interface OptimizationsPage {
  optimizations: OptimizationView[];
  offset: number;
  limit: number;
  total: number;
}

export interface HeatmapView {
  objective: Objective;
  x: Axis;
  y: Axis;
  cells: (HeatCell | null)[][];
}

/** Where a run's trades are read page by page (the run service's reads). */
export type RunTrades = Pick<RunReads, 'tradesPage'>;

export class OptimizationReads {
  constructor(
    private readonly store: PlaygroundOptimizationStore,
    private readonly runs: RunTrades,
  ) {}

  /** The optimisation as the user sees it; `stitch` false leaves out the walk-forward's stitched results (progress events). */
  async get(userId: number, id: string, stitch = true): Promise<Result<OptimizationView, OptimizationNotFound>> {
    const o = await this.store.get(userId, id);
    if (o === null) return err({ kind: 'optimization_not_found' });
    return ok(await this.view(userId, o, stitch));
  }

  /** A page of the user's optimisations, newest first, each as a progress event sees it (no stitched results). */
  async list(userId: number, q: { offset?: number; limit?: number }): Promise<Result<OptimizationsPage, ListError>> {
    const offset = q.offset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0) return err({ kind: 'invalid_offset' });
    const max = limits.playgroundOptimizationsPageMax;
    const limit = q.limit ?? limits.playgroundOptimizationsKeptPerUserMax;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) return err({ kind: 'invalid_limit', max });
    const page = await this.store.listByUser(userId, offset, limit);
    const optimizations: OptimizationView[] = [];
    for (const o of page.rows) optimizations.push(await this.view(userId, o, false));
    return ok({ optimizations, offset, limit, total: page.total });
  }

  private async view(userId: number, o: OptimizationRow, stitch: boolean): Promise<OptimizationView> {
    const req = o.request as OptimizeRequest;
    const rows = await this.store.combos(o.id);
    const state = o.state as OptimizeState;
    const skipped = state.windows.filter((w) => w.resolved && w.outOfSampleRunId === null).length;
    const done = rows.filter((c) => c.status !== 'running').length + skipped;
    const view = (c: Combination | null) => (c === null ? null : combinationView(c, req));
    if (!req.walkForward) return { row: o, request: req, done, best: view(bestOf(rows.map(toCombination), req.objective, req.constraints)), windows: null, stitched: null };
    const windows = req.walkForward.windows.map((w, k): WindowView => {
      const best = rows.find((c) => c.runId === state.windows[k].bestRunId);
      const oos = rows.find((c) => c.runId === state.windows[k].outOfSampleRunId);
      return { ...w, best: best ? view(toCombination(best)) : null, outOfSampleRun: oos ? view(toCombination(oos)) : null };
    });
    return { row: o, request: req, done, best: null, windows, stitched: stitch ? await this.stitched(userId, o, windows) : null };
  }

  /**
   * The out-of-sample runs stitched. An ended optimisation's runs never change: its stitched results
   * are computed once and kept in its state, so its reads and its done event do not read every
   * out-of-sample trade again.
   */
  private async stitched(userId: number, o: OptimizationRow, windows: readonly WindowView[]): Promise<Stitched | null> {
    const state = o.state as OptimizeState;
    if (o.status !== 'running' && state.stitched !== undefined) return state.stitched;
    const value = await this.stitchRuns(userId, windows);
    if (o.status !== 'running') await this.store.setState(o.id, { ...state, stitched: value });
    return value;
  }

  /**
   * Every out-of-sample trade read a page at a time, tallied, with a timer turn between pages: 24
   * runs of up to 200,000 trades each were read whole in one turn before.
   */
  private async stitchRuns(userId: number, windows: readonly WindowView[]): Promise<Stitched | null> {
    const runs = windows.map((w) => w.outOfSampleRun).filter((c): c is CombinationView => c !== null && c.status === 'completed');
    if (runs.length === 0) return null;
    const parts = [];
    const tally = new TradeTally();
    for (const c of runs) {
      const result = (await this.store.result(c.runId)) as { equity?: EquityPoint[]; balanceCents?: number } | null;
      for (let offset = 0; ;) {
        const page = await this.runs.tradesPage(userId, c.runId, offset, limits.playgroundTradesPageMax);
        if (!page.ok || page.value.trades.length === 0) break;
        for (const t of page.value.trades) tally.add(t);
        offset += page.value.trades.length;
        if (offset >= page.value.stored) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      parts.push({ equity: result?.equity ?? [], finalBalanceCents: result?.balanceCents ?? limits.startingBalanceCents });
    }
    return stitch(parts, tally, limits.startingBalanceCents, 2 * limits.playgroundEquityPointsMax);
  }

  async combinations(userId: number, id: string, q: { sort?: string; order?: string; offset?: number; limit?: number }): Promise<Result<CombinationsPage, CombinationsError>> {
    const sort = q.sort ?? 'objective';
    if (!(SORT_KEYS as readonly string[]).includes(sort)) return err({ kind: 'invalid_sort' });
    const order = q.order ?? (sort === 'index' ? 'asc' : 'desc');
    if (order !== 'asc' && order !== 'desc') return err({ kind: 'invalid_order' });
    const offset = q.offset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0) return err({ kind: 'invalid_offset' });
    const limit = q.limit ?? 100;
    const max = limits.playgroundOptimizePageMax;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) return err({ kind: 'invalid_limit', max });
    const o = await this.store.get(userId, id);
    if (o === null) return err({ kind: 'optimization_not_found' });
    const req = o.request as OptimizeRequest;
    // The searches' combinations (a walk-forward's out-of-sample runs are its windows').
    const all = (await this.store.combos(id)).filter((c) => c.optCombo !== null).map(toCombination);
    const sorted = sortCombinations(all, sort as SortKey, order, req.objective);
    const page = sorted.slice(offset, offset + limit).map((c) => combinationView(c, req));
    return ok({ objective: req.objective, combinations: page, offset, limit, total: all.length });
  }

  async heatmap(userId: number, id: string, q: { x?: string; y?: string }): Promise<Result<HeatmapView, HeatmapError>> {
    const o = await this.store.get(userId, id);
    if (o === null) return err({ kind: 'optimization_not_found' });
    const req = o.request as OptimizeRequest;
    const x = req.axes.find((a) => a.name === q.x);
    if (!x) return err({ kind: 'invalid_axis', field: 'x' });
    const y = req.axes.find((a) => a.name === q.y && a !== x);
    if (!y) return err({ kind: 'invalid_axis', field: 'y' });
    const rows = (await this.store.combos(id)).filter((c) => c.optCombo !== null).map(toCombination);
    return ok({ objective: req.objective, x, y, cells: heatmap(rows, x, y, req.objective) });
  }
}

export function toCombination(c: ComboRow): Combination {
  return { index: c.optCombo ?? -1, window: c.optWindow, runId: c.runId, status: c.status, error: c.error, params: c.params, summary: c.summary as Summary | null };
}

function combinationView(c: Combination, req: OptimizeRequest): CombinationView {
  return { ...c, objectiveValue: c.summary === null ? null : objectiveValue(req.objective, c.summary), qualifies: qualifies(c, req.objective, req.constraints) };
}
