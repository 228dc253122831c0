// An optimisation request checked whole before anything is queued, in order: the run's own checks
// (source, instrument, span, timeframe: run-request.ts), then the space's shape (optimize-space.ts),
// the method and the search's size (all counted before any value is made or checked), the values,
// objective, constraints, walk-forward windows (walk-forward.ts) and the combinations per
// optimisation; then the combinations it queues, each an ordinary run with its job. The planning;
// the running is optimize.ts's.

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { countBuckets } from '../../data/bucket-count.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { tradeDateEndS, tradeDateStartS } from '../../domain/trading-hours.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import { dayToDateString, parseDateDay } from '../../lib/iso-time.ts';
import type { Json } from '../../lib/json.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import type { QueuedRun } from '../jobs/queue.ts';
import {
  type Axis, checkAxisValues, type Constraints, type Objective, OBJECTIVES, parseAxes, pointAt, searchIndexes, spaceSize,
} from './optimize-space.ts';
import type { PlannedRun, RunError, RunInput } from './run-request.ts';
import { findTemplate, type ParamValue, validateParams } from './templates.ts';
import { type Stitched, walkForwardWindows } from './walk-forward.ts';

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

/**
 * POST optimize as the route parsed it: the run's fields (RunInput), the space (`params`, as sent),
 * the search, and the JSON as sent of the two objects whose refusals name what is wrong inside them.
 */
export interface OptimizeInput extends Omit<RunInput, 'speed'> {
  method?: 'grid' | 'random' | null | Invalid;
  /** With random: combinations to draw. */
  count?: number | null | Invalid;
  /** With random: the draw's seed, default 1. */
  seed?: number | null | Invalid;
  objective?: Objective | null | Invalid;
  constraints?: Json;
  walkForward?: Json;
}

export type Method = { kind: 'grid' } | { kind: 'random'; count: number; seed: number };

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
  /** A search over a run of several instruments: every symbol, the main one first (each combination runs them all). */
  instrumentSymbols?: string[];
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
export interface WindowState {
  resolved: boolean;
  bestRunId: string | null;
  outOfSampleRunId: string | null;
}
export interface OptimizeState {
  windows: WindowState[];
  /** An ended walk-forward's stitched out-of-sample results, once read (null: no out-of-sample run completed). */
  stitched?: Stitched | null;
}

/** Where a run request is checked (the run service's planner). */
export interface RunPlanning {
  plan(userId: number, body: RunInput): Promise<Result<PlannedRun, RunError>>;
}

export class OptimizePlanner {
  constructor(
    private readonly runs: RunPlanning,
    private readonly source: BarSource,
    private readonly clock: Clock,
  ) {}

  /** The whole request checked, in order: the run's fields, the space, the search, the windows, the size. */
  async check(userId: number, body: OptimizeInput): Promise<Result<OptimizeRequest, OptimizeError>> {
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
      strategyId: p.strategyId, templateId: p.templateId, instrument: p.inst.symbol,
      ...(p.multi ? { instrumentSymbols: [p.inst, ...p.legs].map((i) => i.symbol) } : {}), timeframe: p.tf.text, contextTimeframes: p.ctx.map((c) => c.text),
      span, axes: axes.value, method: method.value, objective: objective as Objective, constraints: constraints.value, walkForward: wf.value, points, code: p.code,
    });
  }

  /** Walk-forward windows over the trade dates holding bars; null without `walkForward`. */
  private walkForward(inst: Instrument, tf: Parameters<typeof countBuckets>[2], v: Json | undefined, span: Span): Result<OptimizeRequest['walkForward'], OptimizeError> {
    if (v === undefined || v === null) return ok(null);
    const bad = (message: string) => err({ kind: 'invalid_walk_forward' as const, message });
    const days = wholeDays(v);
    if (days === null) return bad('walkForward needs inSampleDays and outOfSampleDays, whole numbers of at least 1');
    const { inSampleDays, outOfSampleDays } = days;
    const dates = this.tradeDays(inst, tf, span);
    const plans = walkForwardWindows(dates.length, inSampleDays, outOfSampleDays);
    if (plans.length === 0) return bad(`The span holds ${dates.length} trade dates with data: too few for one in-sample and one out-of-sample part`);
    if (plans.length > limits.playgroundWalkForwardWindowsMax) return bad(`The span makes ${plans.length} windows; at most ${limits.playgroundWalkForwardWindowsMax}`);
    const part = ([a, b]: [number, number]): Span => ({
      startDate: dates[a].date, endDate: dates[b].date, startS: dates[a].startS, endS: dates[b].endS, bars: dates.slice(a, b + 1).reduce((n, d) => n + d.bars, 0),
    });
    const windows = plans.map((w) => ({ inSample: part(w.inSample), outOfSample: part(w.outOfSample) }));
    return ok({ inSampleDays, outOfSampleDays, windows });
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
  combosOf(userId: number, id: string, r: OptimizeRequest): QueuedRun[] {
    const indexes = searchIndexes(spaceSize(r.axes), r.method);
    const spans = r.walkForward ? r.walkForward.windows.map((w) => w.inSample) : [r.span];
    const out: QueuedRun[] = [];
    spans.forEach((span, w) => {
      indexes.forEach((point, i) => out.push(this.combo(userId, id, r, span, pointAt(r.axes, point), r.walkForward ? w : null, i)));
    });
    return out;
  }

  combo(userId: number, id: string, r: OptimizeRequest, span: Span, point: Record<string, ParamValue>, window: number | null, index: number | null): QueuedRun {
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
      job: { code: r.code, startS: span.startS, endS: span.endS, ...(r.instrumentSymbols ? { symbols: r.instrumentSymbols } : {}) },
    };
  }
}

/** walkForward's two whole numbers of days (at least 1 each; other keys are ignored), or null. */
function wholeDays(v: Json): { inSampleDays: number; outOfSampleDays: number } | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const { inSampleDays, outOfSampleDays } = v;
  const whole = (x: Json | undefined): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 1;
  return whole(inSampleDays) && whole(outOfSampleDays) ? { inSampleDays, outOfSampleDays } : null;
}

function parseMethod(method: OptimizeInput['method'], count: OptimizeInput['count'], seed: OptimizeInput['seed']): Result<Method, OptimizeError> {
  const m = method ?? 'grid';
  if (m === 'grid') return ok({ kind: 'grid' });
  if (m !== 'random') return err({ kind: 'invalid_method', message: 'method must be grid or random' });
  const max = limits.playgroundOptimizeCombinationsMax;
  if (count === undefined || count === null || isInvalid(count) || !Number.isSafeInteger(count) || count < 1 || count > max) {
    return err({ kind: 'invalid_method', message: `count must be a whole number from 1 to ${max} with method random` });
  }
  const s = seed ?? 1;
  if (isInvalid(s) || !Number.isSafeInteger(s) || s < 0 || s > 0xffffffff) {
    return err({ kind: 'invalid_method', message: 'seed must be a whole number from 0 to 4294967295' });
  }
  return ok({ kind: 'random', count, seed: s });
}

function parseConstraints(v: Json | undefined): Result<Constraints, OptimizeError> {
  if (v === undefined || v === null) return ok({ minTrades: null, maxDrawdownUsd: null });
  if (typeof v !== 'object' || Array.isArray(v)) return err({ kind: 'invalid_constraints', message: 'constraints must be an object' });
  for (const k of Object.keys(v)) {
    if (k !== 'minTrades' && k !== 'maxDrawdown') return err({ kind: 'invalid_constraints', message: `Unknown constraint ${k}` });
  }
  const minTrades = v.minTrades ?? null;
  if (minTrades !== null && (typeof minTrades !== 'number' || !Number.isSafeInteger(minTrades) || minTrades < 0)) {
    return err({ kind: 'invalid_constraints', message: 'minTrades must be a whole number of at least 0' });
  }
  const maxDd = v.maxDrawdown ?? null;
  if (maxDd !== null && (typeof maxDd !== 'number' || !Number.isFinite(maxDd) || maxDd < 0)) {
    return err({ kind: 'invalid_constraints', message: 'maxDrawdown must be a number of USD of at least 0' });
  }
  return ok({ minTrades, maxDrawdownUsd: maxDd });
}
