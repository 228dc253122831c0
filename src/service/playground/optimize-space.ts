// The search space of a playground optimisation, and how its combinations are judged. Pure: no
// store, no clock; the optimisation service (optimize.ts) feeds it the request and the combinations'
// statistics.
//
// - A parameter is fixed (a value), a range `{min, max, step}` (min, min + step, … up to max) or a
//   list `{values: […]}`. Every value of a template's param must fit its typed bounds (the run's own
//   check, validateParams, says why not); ranges are for number params only.
// - The space is the cross product of the axes, numbered in mixed radix with the last axis fastest;
//   its size and indexes are BigInts (a space may hold far more than 2^53 points). A grid runs every
//   point; random runs `count` distinct points drawn with a seeded generator (mulberry32, Floyd's
//   sampling), in ascending order, so one seed gives the same combinations. Every loop here is
//   bounded before it runs: axes per request, values per axis, points per search.
// - Objectives, higher is better: net P&L (USD), return over max drawdown (net P&L / |max drawdown|;
//   none without a drawdown), Sharpe (engine/performance.ts), profit factor (none without a losing
//   trade), win rate. A combination without a value, not completed, or outside the constraints
//   (minimum trades, maximum drawdown in USD) is never the best; ties go to the lower index.

import { limits } from '../../config.ts';
import type { Performance } from '../../engine/performance.ts';
import type { RunStats } from '../../engine/results.ts';
import { assert } from '../../lib/assert.ts';
import type { Json } from '../../lib/json.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { customParamsMax, type ParamValue, paramValueProblem, type StrategyTemplate, validateParams } from './templates.ts';

export const OBJECTIVES = ['net_pnl', 'return_over_drawdown', 'sharpe', 'profit_factor', 'win_rate'] as const;
export type Objective = (typeof OBJECTIVES)[number];

export const SORT_KEYS = ['objective', 'index', 'netPnl', 'returnPct', 'sharpeRatio', 'profitFactor', 'winRate', 'totalTrades', 'maxDrawdown'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface Axis {
  name: string;
  values: ParamValue[];
}

export interface Constraints {
  minTrades: number | null;
  /** USD, ≥ 0: |max drawdown| must not exceed it. */
  maxDrawdownUsd: number | null;
}

/** What a combination's run left for sorting: its statistics (performance without the months). */
export interface Summary {
  stats: RunStats;
  performance: Omit<Performance, 'monthlyReturns'> | null;
}

/** One combination as the optimisation reads it back from its run row. */
export interface Combination {
  index: number;
  /** The walk-forward window it ran in; null outside a walk-forward. */
  window: number | null;
  runId: string;
  status: string;
  /** Why it did not complete (the run's error); null when it completed or runs. */
  error: string | null;
  params: Record<string, ParamValue>;
  summary: Summary | null;
}

export type SpaceError = { kind: 'invalid_params'; message: string };

/**
 * The axes of a request's `params`, their shape only: a value, a range or a list per param, at most
 * one axis per param a run may take (the template's, or custom code's `customParamsMax`) and at most
 * `playgroundOptimizeCombinationsMax` values an axis, all counted before any value is made or checked
 * (a body of 22,000 axes was checked value by value for 7.6 s before its refusal). The values
 * themselves are checked by `checkAxisValues`, once the search's size is known to fit.
 */
export function parseAxes(params: Json | undefined, template: StrategyTemplate | null): Result<Axis[], SpaceError> {
  const bad = (message: string) => err({ kind: 'invalid_params' as const, message });
  const given = params === undefined || params === null ? {} : params;
  if (typeof given !== 'object' || Array.isArray(given)) return bad('params must be an object');
  const specs = Object.entries(given);
  if (template === null && specs.length > customParamsMax) return bad(`Too many params (at most ${customParamsMax})`);
  const axes: Axis[] = [];
  for (const [name, spec] of specs) {
    const declared = template?.params.find((p) => p.name === name);
    if (template && !declared) return bad(`Unknown param ${name}`);
    const values = axisValues(name, spec, declared?.type ?? null);
    if (!values.ok) return values;
    axes.push({ name, values: values.value });
  }
  return ok(axes);
}

/**
 * Every value of every axis checked as a run checks its params (validateParams says why not), one
 * value at a time against its param, then one whole point over `base` (the run's other params): the
 * rest of the params are `base`'s, already checked, so a point of checked values passes too.
 */
export function checkAxisValues(axes: readonly Axis[], template: StrategyTemplate | null, base: Record<string, ParamValue>): Result<void, SpaceError> {
  for (const axis of axes) {
    const declared = template?.params.find((p) => p.name === axis.name) ?? null;
    for (const v of axis.values) {
      const problem = paramValueProblem(axis.name, v, declared);
      if (problem) return err({ kind: 'invalid_params', message: problem });
    }
  }
  const first = validateParams({ ...base, ...Object.fromEntries(axes.map((a) => [a.name, a.values[0]])) }, template);
  return first.ok ? ok(undefined) : err({ kind: 'invalid_params', message: first.message });
}

function axisValues(name: string, spec: Json, type: string | null): Result<ParamValue[], SpaceError> {
  const bad = (m: string) => err({ kind: 'invalid_params' as const, message: m });
  if (typeof spec === 'number' || typeof spec === 'string' || typeof spec === 'boolean') return ok([spec]);
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return bad(`Param ${name} must be a value, a range {min, max, step} or {values: [...]}`);
  const o = spec;
  if ('values' in o) {
    const vs = o.values;
    if (!Array.isArray(vs) || vs.length < 1 || vs.length > limits.playgroundOptimizeCombinationsMax) {
      return bad(`Values of ${name} must be a list of 1 to ${limits.playgroundOptimizeCombinationsMax} values`);
    }
    if (new Set(vs).size !== vs.length) return bad(`Values of ${name} must be distinct`);
    return ok(vs as ParamValue[]);
  }
  const { min, max, step } = o;
  if (type !== null && type !== 'number') return bad(`Param ${name} is not a number: give it {values: [...]}`);
  if (![min, max, step].every((x) => typeof x === 'number' && Number.isFinite(x))) return bad(`Range of ${name} needs numbers min, max and step`);
  const [lo, hi, st] = [min, max, step] as number[];
  if (st <= 0) return bad(`Range of ${name}: step must be greater than 0`);
  if (lo > hi) return bad(`Range of ${name}: min must not exceed max`);
  // Counted before any value is made (Infinity when max - min overflows: refused all the same).
  const count = Math.floor((hi - lo) / st + 1e-9) + 1;
  if (!(count <= limits.playgroundOptimizeCombinationsMax)) return bad(`Range of ${name} has ${count} values; at most ${limits.playgroundOptimizeCombinationsMax}`);
  // Rounded to 10 decimals: 0.1 + 0.2 is not 0.3 in binary floating point.
  return ok(Array.from({ length: count }, (_, i) => Number((lo + i * st).toFixed(10))));
}

/**
 * Points in the space (the product of the axes' sizes), exact: 50 axes of 500 values make about
 * 10^135 points, far past a double's exact integers (2^53), so the count is a BigInt.
 */
export function spaceSize(axes: readonly Axis[]): bigint {
  return axes.reduce((n, a) => n * BigInt(a.values.length), 1n);
}

/** The point at `index` of the space: mixed radix, last axis fastest. */
export function pointAt(axes: readonly Axis[], index: bigint): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  let rest = index;
  for (let i = axes.length - 1; i >= 0; i--) {
    const n = BigInt(axes[i].values.length);
    out[axes[i].name] = axes[i].values[Number(rest % n)];
    rest /= n;
  }
  return out;
}

/**
 * The indexes a search runs, ascending: every point (grid), or `count` distinct ones drawn from
 * `seed` (random; all of them when the space is no larger). At most `playgroundOptimizeCombinationsMax`
 * either way: the caller refuses a larger search first, and this bound holds whatever it does.
 */
export function searchIndexes(size: bigint, method: { kind: 'grid' } | { kind: 'random'; count: number; seed: number }): bigint[] {
  const points = method.kind === 'grid' || BigInt(method.count) >= size ? size : BigInt(method.count);
  assert(points <= BigInt(limits.playgroundOptimizeCombinationsMax), `a search of ${points} points`);
  if (points === size) return Array.from({ length: Number(size) }, (_, i) => BigInt(i));
  const { count, seed } = method as { count: number; seed: number };
  // Spaces a double counts exactly keep the draws they always had (one seed, the same combinations).
  if (size <= BigInt(Number.MAX_SAFE_INTEGER)) return floydNumber(Number(size), count, seed).map(BigInt);
  return floydBig(size, count, seed);
}

/** Floyd's sampling: exactly `count` draws, each distinct, uniform over [0, size). */
function floydNumber(size: number, count: number, seed: number): number[] {
  const next = mulberry32(seed);
  const picked = new Set<number>();
  for (let j = size - count; j < size; j++) {
    const t = Math.floor((next() / 4_294_967_296) * (j + 1));
    picked.add(picked.has(t) ? j : t);
  }
  return [...picked].sort((a, b) => a - b);
}

/**
 * Floyd's sampling over a space past 2^53, in BigInt: `j + 1` of doubles stops growing there, and the
 * loop never ended (the probe's 500^6 space held a node until it ran out of memory). Each draw takes
 * the 32-bit words the space needs, and two more, reduced modulo j + 1 (bias below 2^-64).
 */
function floydBig(size: bigint, count: number, seed: number): bigint[] {
  const next = mulberry32(seed);
  const words = Math.ceil(size.toString(2).length / 32) + 2;
  const picked = new Set<bigint>();
  for (let j = size - BigInt(count); j < size; j++) {
    let x = 0n;
    for (let w = 0; w < words; w++) x = (x << 32n) | BigInt(next());
    const t = x % (j + 1n);
    picked.add(picked.has(t) ? j : t);
  }
  return [...picked].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A 32-bit unsigned integer a call, from `seed`. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The objective's value of a summary, higher is better; null when it has none. */
export function objectiveValue(objective: Objective, s: Summary): number | null {
  const st = s.stats;
  switch (objective) {
    case 'net_pnl':
      return st.totalPnlCents / 100;
    case 'return_over_drawdown':
      return st.maxDrawdownCents === 0 ? null : Math.round((st.totalPnlCents / -st.maxDrawdownCents) * 100) / 100;
    case 'sharpe':
      return s.performance?.sharpeRatio ?? null;
    case 'profit_factor':
      return st.profitFactor;
    case 'win_rate':
      return st.winRate;
  }
}

/** Whether a combination may be the best: completed, within the constraints, with an objective value. */
export function qualifies(c: Combination, objective: Objective, k: Constraints): boolean {
  if (c.status !== 'completed' || c.summary === null) return false;
  const st = c.summary.stats;
  if (k.minTrades !== null && st.totalTrades < k.minTrades) return false;
  if (k.maxDrawdownUsd !== null && -st.maxDrawdownCents > Math.round(k.maxDrawdownUsd * 100)) return false;
  return objectiveValue(objective, c.summary) !== null;
}

/** The best combination (highest objective among those that qualify; the lower index on a tie), or null. */
export function bestOf(cs: readonly Combination[], objective: Objective, k: Constraints): Combination | null {
  let best: Combination | null = null;
  let bestValue = -Infinity;
  for (const c of cs) {
    if (!qualifies(c, objective, k)) continue;
    const v = objectiveValue(objective, c.summary as Summary) as number;
    if (v > bestValue || (v === bestValue && best !== null && c.index < best.index)) {
      best = c;
      bestValue = v;
    }
  }
  return best;
}

/** A sort key's value of a combination; null sorts last whatever the order. */
export function sortValue(c: Combination, key: SortKey, objective: Objective): number | null {
  const s = c.summary;
  if (key === 'index') return c.index;
  if (s === null) return null;
  switch (key) {
    case 'objective':
      return objectiveValue(objective, s);
    case 'netPnl':
      return s.stats.totalPnlCents;
    case 'returnPct':
      return s.performance?.returnPct ?? null;
    case 'sharpeRatio':
      return s.performance?.sharpeRatio ?? null;
    case 'profitFactor':
      return s.stats.profitFactor;
    case 'winRate':
      return s.stats.winRate;
    case 'totalTrades':
      return s.stats.totalTrades;
    case 'maxDrawdown':
      return s.stats.maxDrawdownCents;
  }
}

/** Sorted by `key` (nulls last, then by index), a new array. */
export function sortCombinations(cs: readonly Combination[], key: SortKey, order: 'asc' | 'desc', objective: Objective): Combination[] {
  const sign = order === 'asc' ? 1 : -1;
  return cs.slice().sort((a, b) => {
    const x = sortValue(a, key, objective);
    const y = sortValue(b, key, objective);
    if (x === null || y === null) return x === y ? a.index - b.index : x === null ? 1 : -1;
    return x === y ? a.index - b.index : sign * (x - y);
  });
}

export interface HeatCell {
  /** The best objective value among the completed combinations at this point (over the other params). */
  objective: number;
  runId: string;
}

/** The objective over two axes: cells[yi][xi], null where no completed combination has a value. */
export function heatmap(cs: readonly Combination[], x: Axis, y: Axis, objective: Objective): (HeatCell | null)[][] {
  const cells: (HeatCell | null)[][] = y.values.map(() => x.values.map(() => null));
  for (const c of cs) {
    if (c.status !== 'completed' || c.summary === null) continue;
    const v = objectiveValue(objective, c.summary);
    const xi = x.values.indexOf(c.params[x.name] as ParamValue);
    const yi = y.values.indexOf(c.params[y.name] as ParamValue);
    if (v === null || xi < 0 || yi < 0) continue;
    const cur = cells[yi][xi];
    if (cur === null || v > cur.objective) cells[yi][xi] = { objective: v, runId: c.runId };
  }
  return cells;
}
