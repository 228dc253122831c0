// Playground optimisations: a search over a strategy's params, each combination a normal run (the
// same checks, engine, fills and single-use sandbox) queued as a job in the run store, so any node
// with a free runner claims it (store/playground-optimizations.ts). Family-agnostic; the playground
// adapter maps the error kinds.
//
// - Checked whole before anything is queued: the user's rate of starts (every POST counts), the
//   run's own checks (source, instrument, span, timeframe), then the space's shape (optimize-space.ts),
//   the method and the search's size (all counted before any value is made or checked), the values,
//   objective, constraints, walk-forward windows (walk-forward.ts) and the limits: combinations per
//   optimisation, per user per UTC day, one optimisation running per user (single runs go on beside it).
// - Fair share: combinations yield to single runs (a free runner takes a queued single run first)
//   and hold at most `optimizeMaxConcurrent` of a node's full-speed runners together (runs.ts).
// - Advance: when a combination ends, on whichever node ran it, the optimisation is advanced under
//   the optimisations' lock: a walk-forward window whose in-sample combinations all ended queues its
//   out-of-sample run; once nothing is left it completes. A combination the server's end interrupted
//   fails the optimisation (its finished combinations kept, the rest cancelled): after a restart a
//   running optimisation reads failed, as a run does.

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { TradeTally } from '../../engine/results.ts';
import { countBuckets } from '../../data/bucket-count.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { tradeDateEndS, tradeDateStartS } from '../../domain/trading-hours.ts';
import type { Clock } from '../../lib/clock.ts';
import { dayToDateString, parseDateDay } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { ComboRow, OptimizationRow, PlaygroundOptimizationStore, QueuedCombo } from '../../store/playground-optimizations.ts';
import { SHUTDOWN_MESSAGE } from './execution.ts';
import type { EquityPoint } from './ledger.ts';
import {
  type Axis, bestOf, checkAxisValues, type Combination, type Constraints, heatmap, type HeatCell, type Objective, OBJECTIVES, objectiveValue, parseAxes, pointAt,
  qualifies, searchIndexes, SORT_KEYS, type SortKey, sortCombinations, spaceSize, type Summary,
} from './optimize-space.ts';
import type { RateLimiter, RateLimits } from '../rate-limit.ts';
import { INTERRUPTED_MESSAGE, type RunError, type RunInput, type RunService } from './runs.ts';
import { findTemplate, validateParams } from './templates.ts';
import { stitch, type Stitched, walkForwardWindows } from './walk-forward.ts';

export type OptimizeError =
  | Exclude<RunError, { kind: 'invalid_speed' } | { kind: 'already_running' } | { kind: 'capacity' }>
  | { kind: 'invalid_method'; message: string }
  | { kind: 'invalid_objective' }
  | { kind: 'invalid_constraints'; message: string }
  | { kind: 'invalid_walk_forward'; message: string }
  | { kind: 'too_many_combinations'; count: bigint; max: number }
  | { kind: 'daily_limit'; left: number; max: number }
  | { kind: 'rate_limited'; retryAfterS: number }
  | { kind: 'optimization_running'; optimizationId: string };

export type OptimizationNotFound = { kind: 'optimization_not_found' };
export type OptimizeStopError = OptimizationNotFound | { kind: 'not_running' };
export type CombinationsError = OptimizationNotFound | { kind: 'invalid_sort' } | { kind: 'invalid_order' } | { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };
export type ListError = { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };
export type HeatmapError = OptimizationNotFound | { kind: 'invalid_axis'; field: 'x' | 'y' };

/** POST optimize as the route parsed it: the run's fields, the space and the search. */
export interface OptimizeInput extends Omit<RunInput, 'speed'> {
  method?: unknown;
  count?: unknown;
  seed?: unknown;
  objective?: unknown;
  constraints?: unknown;
  walkForward?: unknown;
}

type Method = { kind: 'grid' } | { kind: 'random'; count: number; seed: number };

/** A span of trade dates and its bounds. */
export interface Span {
  startDate: string;
  endDate: string;
  startS: number;
  endS: number;
  bars: number;
}

/** What an optimisation keeps of its request (request_json): enough to present it and queue its runs. */
export interface OptimizeRequest {
  strategyId: string | null;
  templateId: string | null;
  instrument: string;
  timeframe: string;
  contextTimeframes: string[];
  span: Span;
  axes: Axis[];
  method: Method;
  objective: Objective;
  constraints: Constraints;
  walkForward: { inSampleDays: number; outOfSampleDays: number; windows: { inSample: Span; outOfSample: Span }[] } | null;
  /** Combinations per search (the walk-forward runs one search per window). */
  points: number;
  code: string;
}

/** Walk-forward state (state_json): per window, once its in-sample search ended, its best and out-of-sample run. */
interface WindowState {
  resolved: boolean;
  bestRunId: string | null;
  outOfSampleRunId: string | null;
}
interface OptimizeState {
  windows: WindowState[];
  /** An ended walk-forward's stitched out-of-sample results, once read (null: no out-of-sample run completed). */
  stitched?: Stitched | null;
}

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

const STOPPED_MESSAGE = 'Stopped by the user';

export class OptimizationService {
  private worker: ReturnType<typeof setInterval> | null = null;
  private readonly startLimiter: RateLimiter;

  constructor(
    private readonly store: PlaygroundOptimizationStore,
    private readonly runs: RunService,
    private readonly source: BarSource,
    private readonly clock: Clock,
    rateLimits: RateLimits,
  ) {
    this.startLimiter = rateLimits.limiter('optimize_start', limits.playgroundOptimizeStartsPerWindowMax, limits.playgroundOptimizeStartWindowMs);
    runs.onRunEnded = (row) => {
      if (row.optimizationId !== null) void this.advance(row.optimizationId).catch((e) => console.error('optimisation advance', row.optimizationId, e));
    };
  }

  /**
   * At server start (after the runs' recovery): advances every running optimisation, which fails those
   * a restart interrupted. On a shared store a timer does it again now and then, for combinations a
   * silent node left (failed by another node's sweep, not by an end here).
   */
  async recover(): Promise<void> {
    for (const id of await this.store.runningIds()) await this.advance(id);
    if (this.store.dialect === 'postgres' && this.worker === null) {
      this.worker = setInterval(() => void this.recoverOnce(), limits.playgroundRunStaleMs);
      this.worker.unref?.();
    }
  }

  private async recoverOnce(): Promise<void> {
    try {
      for (const id of await this.store.runningIds()) await this.advance(id);
    } catch (e) {
      if (!/closed/i.test(String((e as Error)?.message))) console.error('optimisation sweep', e);
      else this.shutdown();
    }
  }

  shutdown(): void {
    if (this.worker) clearInterval(this.worker);
    this.worker = null;
  }

  async start(userId: number, body: OptimizeInput): Promise<Result<{ optimizationId: string }, OptimizeError>> {
    // Every start counts, refused or not, as a strategy save does: it bounds the checking work too.
    const gate = await this.startLimiter.take(String(userId), this.clock.nowMs());
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const req = await this.check(userId, body);
    if (!req.ok) return req;
    const r = req.value;
    const id = `opt_${randomSecret(12)}`;
    const windows = r.walkForward?.windows.length ?? 0;
    const total = r.walkForward ? windows * (r.points + 1) : r.points;
    const combos = this.combosOf(userId, id, r);
    const nowMs = this.clock.nowMs();
    const state: OptimizeState = { windows: Array.from({ length: windows }, () => ({ resolved: false, bestRunId: null, outOfSampleRunId: null })) };
    const day = Math.floor(nowMs / 1000 / DAY_S);
    const admitted = await this.store.create({ id, userId, request: r, state, total, createdMs: nowMs }, combos, day, limits.playgroundOptimizeCombinationsPerDayMax);
    if (admitted.kind === 'already_running') return err({ kind: 'optimization_running', optimizationId: admitted.optimizationId });
    if (admitted.kind === 'daily_limit') return err({ kind: 'daily_limit', left: admitted.left, max: limits.playgroundOptimizeCombinationsPerDayMax });
    await this.store.pruneUser(userId, limits.playgroundOptimizationsKeptPerUserMax);
    await this.runs.kick();
    return ok({ optimizationId: id });
  }

  /** The whole request checked, in order: the run's fields, the space, the search, the windows, the size. */
  private async check(userId: number, body: OptimizeInput): Promise<Result<OptimizeRequest, OptimizeError>> {
    const planned = await this.runs.plan(userId, { ...body, params: undefined, speed: undefined });
    if (!planned.ok) return planned as Result<never, OptimizeError>;
    const p = planned.value;
    const template = p.templateId === null ? null : findTemplate(p.templateId) ?? null;
    // Cheap bounds first (axes, values per axis, points), then the values one by one.
    const axes = parseAxes(body.params, template);
    if (!axes.ok) return axes;
    const method = parseMethod(body.method, body.count, body.seed);
    if (!method.ok) return method;
    const max = BigInt(limits.playgroundOptimizeCombinationsMax);
    const size = spaceSize(axes.value);
    const searched = method.value.kind === 'grid' || size < BigInt(method.value.count) ? size : BigInt(method.value.count);
    if (searched > max) return err({ kind: 'too_many_combinations', count: searched, max: Number(max) });
    const values = checkAxisValues(axes.value, template, p.params);
    if (!values.ok) return values;
    const objective = body.objective ?? 'net_pnl';
    if (typeof objective !== 'string' || !(OBJECTIVES as readonly string[]).includes(objective)) return err({ kind: 'invalid_objective' });
    const constraints = parseConstraints(body.constraints);
    if (!constraints.ok) return constraints;
    const span: Span = { startDate: p.startDate, endDate: p.endDate, startS: p.startS, endS: p.endS, bars: p.totalBars };
    const wf = this.walkForward(p.inst, p.tf, body.walkForward, span);
    if (!wf.ok) return wf;
    const points = Number(searched);
    const total = wf.value ? wf.value.windows.length * (points + 1) : points;
    if (total > max) return err({ kind: 'too_many_combinations', count: BigInt(total), max: Number(max) });
    return ok({
      strategyId: p.strategyId, templateId: p.templateId, instrument: p.inst.symbol, timeframe: p.tf.text, contextTimeframes: p.ctx.map((c) => c.text),
      span, axes: axes.value, method: method.value, objective: objective as Objective, constraints: constraints.value, walkForward: wf.value, points, code: p.code,
    });
  }

  /** Walk-forward windows over the trade dates holding bars; null without `walkForward`. */
  private walkForward(inst: Instrument, tf: Parameters<typeof countBuckets>[2], v: unknown, span: Span): Result<OptimizeRequest['walkForward'], OptimizeError> {
    if (v === undefined || v === null) return ok(null);
    const bad = (message: string) => err({ kind: 'invalid_walk_forward' as const, message });
    const o = v as Record<string, unknown>;
    const whole = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 1;
    if (typeof v !== 'object' || !whole(o.inSampleDays) || !whole(o.outOfSampleDays)) {
      return bad('walkForward needs inSampleDays and outOfSampleDays, whole numbers of at least 1');
    }
    const days = this.tradeDays(inst, tf, span);
    const plans = walkForwardWindows(days.length, o.inSampleDays as number, o.outOfSampleDays as number);
    if (plans.length === 0) return bad(`The span holds ${days.length} trade dates with data: too few for one in-sample and one out-of-sample part`);
    if (plans.length > limits.playgroundWalkForwardWindowsMax) return bad(`The span makes ${plans.length} windows; at most ${limits.playgroundWalkForwardWindowsMax}`);
    const part = ([a, b]: [number, number]): Span => ({
      startDate: days[a].date, endDate: days[b].date, startS: days[a].startS, endS: days[b].endS, bars: days.slice(a, b + 1).reduce((n, d) => n + d.bars, 0),
    });
    const windows = plans.map((w) => ({ inSample: part(w.inSample), outOfSample: part(w.outOfSample) }));
    return ok({ inSampleDays: o.inSampleDays as number, outOfSampleDays: o.outOfSampleDays as number, windows });
  }

  private tradeDays(inst: Instrument, tf: Parameters<typeof countBuckets>[2], span: Span) {
    const out: { date: string; startS: number; endS: number; bars: number }[] = [];
    const first = parseDateDay(span.startDate) as number;
    const last = parseDateDay(span.endDate) as number;
    for (let d = first; d <= last; d++) {
      const startS = Math.max(tradeDateStartS(inst.session, d), span.startS);
      const endS = Math.min(tradeDateEndS(inst.session, d), span.endS);
      const bars = endS > startS ? countBuckets(this.source, inst, tf, startS, endS) : 0;
      if (bars > 0) out.push({ date: dayToDateString(d), startS, endS, bars });
    }
    return out;
  }

  /** The runs queued at the start: every point of the search, over the span or each in-sample part. */
  private combosOf(userId: number, id: string, r: OptimizeRequest): QueuedCombo[] {
    const indexes = searchIndexes(spaceSize(r.axes), r.method);
    const spans = r.walkForward ? r.walkForward.windows.map((w) => w.inSample) : [r.span];
    const out: QueuedCombo[] = [];
    spans.forEach((span, w) => {
      indexes.forEach((point, i) => out.push(this.combo(userId, id, r, span, pointAt(r.axes, point), r.walkForward ? w : null, i)));
    });
    return out;
  }

  private combo(userId: number, id: string, r: OptimizeRequest, span: Span, point: Record<string, unknown>, window: number | null, index: number | null): QueuedCombo {
    const template = r.templateId === null ? null : findTemplate(r.templateId) ?? null;
    const params = validateParams(point, template);
    // Checked value by value at the start; a whole point of checked values passes too.
    if (!params.ok) throw new Error(`optimisation ${id}: combination ${index} does not pass the params check: ${params.message}`);
    return {
      run: {
        id: `exe_${randomSecret(12)}`, userId, strategyId: r.strategyId, templateId: r.templateId, instrument: r.instrument, timeframe: r.timeframe,
        startDate: span.startDate, endDate: span.endDate, params: params.value, contextTimeframes: r.contextTimeframes, speed: null,
        barsTotal: span.bars, startedMs: this.clock.nowMs(), optimizationId: id, optWindow: window, optCombo: index,
      },
      job: { code: r.code, startS: span.startS, endS: span.endS },
    };
  }

  /** Moves a running optimisation on after a combination ended (see the top of the file). */
  async advance(id: string): Promise<void> {
    let queued = false;
    let stopIds: string[] = [];
    await this.store.locked(async () => {
      const o = await this.store.getAny(id);
      if (o === null || o.status !== 'running') return;
      const rows = await this.store.combos(id);
      const now = this.clock.nowMs();
      if (rows.some((c) => c.status === 'failed' && (c.error === INTERRUPTED_MESSAGE || c.error === SHUTDOWN_MESSAGE))) {
        stopIds = await this.store.cancelRest(id, 'failed', INTERRUPTED_MESSAGE, now);
        await this.store.finish(id, 'failed', INTERRUPTED_MESSAGE, now);
        return;
      }
      const req = o.request as OptimizeRequest;
      const state = o.state as OptimizeState;
      if (req.walkForward) queued = await this.resolveWindows(o, req, state, rows);
      const open = rows.some((c) => c.status === 'running') || queued || state.windows.some((w) => !w.resolved);
      if (!open) await this.store.finish(id, 'completed', null, now);
    });
    this.runs.stopLocal(stopIds);
    if (queued) await this.runs.kick();
  }

  /** Queues the out-of-sample run of each window whose in-sample search ended; true when it queued any. */
  private async resolveWindows(o: OptimizationRow, req: OptimizeRequest, state: OptimizeState, rows: ComboRow[]): Promise<boolean> {
    const wf = req.walkForward!;
    const queue: QueuedCombo[] = [];
    state.windows.forEach((w, k) => {
      if (w.resolved) return;
      const inSample = rows.filter((c) => c.optWindow === k && c.optCombo !== null);
      if (inSample.length < req.points || inSample.some((c) => c.status === 'running')) return;
      const best = bestOf(inSample.map(toCombination), req.objective, req.constraints);
      w.resolved = true;
      w.bestRunId = best?.runId ?? null;
      if (best === null) return;
      const c = this.combo(o.userId, o.id, req, wf.windows[k].outOfSample, best.params, k, null);
      w.outOfSampleRunId = c.run.id;
      queue.push(c);
    });
    await this.store.queue(queue);
    await this.store.setState(o.id, state);
    return queue.length > 0;
  }

  async stop(userId: number, id: string): Promise<Result<{ optimizationId: string }, OptimizeStopError>> {
    let ids: string[] = [];
    const r = await this.store.locked(async () => {
      const o = await this.store.get(userId, id);
      if (o === null) return 'optimization_not_found' as const;
      if (o.status !== 'running') return 'not_running' as const;
      const now = this.clock.nowMs();
      ids = await this.store.cancelRest(id, 'stopped', STOPPED_MESSAGE, now);
      await this.store.finish(id, 'stopped', STOPPED_MESSAGE, now);
      return null;
    });
    if (r !== null) return err({ kind: r });
    this.runs.stopLocal(ids);
    return ok({ optimizationId: id });
  }

  /** The optimisation as the user sees it; `stitch` false leaves out the walk-forward's stitched results (progress events). */
  async get(userId: number, id: unknown, stitch = true): Promise<Result<OptimizationView, OptimizationNotFound>> {
    const o = typeof id === 'string' ? await this.store.get(userId, id) : null;
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

  async combinations(userId: number, id: string, q: { sort?: unknown; order?: unknown; offset?: number; limit?: number }): Promise<Result<CombinationsPage, CombinationsError>> {
    const sort = q.sort ?? 'objective';
    if (typeof sort !== 'string' || !(SORT_KEYS as readonly string[]).includes(sort)) return err({ kind: 'invalid_sort' });
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

  async heatmap(userId: number, id: string, q: { x?: unknown; y?: unknown }): Promise<Result<HeatmapView, HeatmapError>> {
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

function toCombination(c: ComboRow): Combination {
  return { index: c.optCombo ?? -1, window: c.optWindow, runId: c.runId, status: c.status, params: c.params, summary: c.summary as Summary | null };
}

function combinationView(c: Combination, req: OptimizeRequest): CombinationView {
  return { ...c, objectiveValue: c.summary === null ? null : objectiveValue(req.objective, c.summary), qualifies: qualifies(c, req.objective, req.constraints) };
}

function parseMethod(method: unknown, count: unknown, seed: unknown): Result<Method, OptimizeError> {
  const m = method ?? 'grid';
  if (m === 'grid') return ok({ kind: 'grid' });
  if (m !== 'random') return err({ kind: 'invalid_method', message: 'method must be grid or random' });
  const max = limits.playgroundOptimizeCombinationsMax;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > max) {
    return err({ kind: 'invalid_method', message: `count must be a whole number from 1 to ${max} with method random` });
  }
  const s = seed ?? 1;
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0 || s > 0xffffffff) {
    return err({ kind: 'invalid_method', message: 'seed must be a whole number from 0 to 4294967295' });
  }
  return ok({ kind: 'random', count, seed: s });
}

function parseConstraints(v: unknown): Result<Constraints, OptimizeError> {
  if (v === undefined || v === null) return ok({ minTrades: null, maxDrawdownUsd: null });
  if (typeof v !== 'object' || Array.isArray(v)) return err({ kind: 'invalid_constraints', message: 'constraints must be an object' });
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'minTrades' && k !== 'maxDrawdown') return err({ kind: 'invalid_constraints', message: `Unknown constraint ${k}` });
  }
  const minTrades = o.minTrades ?? null;
  if (minTrades !== null && (typeof minTrades !== 'number' || !Number.isSafeInteger(minTrades) || minTrades < 0)) {
    return err({ kind: 'invalid_constraints', message: 'minTrades must be a whole number of at least 0' });
  }
  const maxDd = o.maxDrawdown ?? null;
  if (maxDd !== null && (typeof maxDd !== 'number' || !Number.isFinite(maxDd) || maxDd < 0)) {
    return err({ kind: 'invalid_constraints', message: 'maxDrawdown must be a number of USD of at least 0' });
  }
  return ok({ minTrades: minTrades as number | null, maxDrawdownUsd: maxDd as number | null });
}

