// An optimisation → wire (extension): its request as checked, progress, the best combination, and
// for a walk-forward its windows and the stitched out-of-sample results. Money in USD, times ISO 8601.

import { centsToUsd } from '../../domain/instrument.ts';
import { isoFromEpochMs, isoFromEpochS } from '../../lib/iso-time.ts';
import type { CombinationView, OptimizationView, WindowView } from '../../service/playground/optimize.ts';
import type { Summary } from '../../service/playground/optimize-space.ts';
import type { ParamMap } from '../../service/playground/strategies.ts';
import { presentStats } from '../shared/present-common.ts';
import { presentPerformanceFigures } from './present-execution.ts';

export function presentStatistics(s: Summary | null) {
  if (s === null) return null;
  return { ...presentStats(s.stats), ...presentPerformanceFigures(s.performance) };
}

export function presentCombination(c: CombinationView) {
  return {
    index: c.index,
    window: c.window,
    runId: c.runId,
    status: c.status as 'running' | 'completed' | 'failed' | 'stopped' | 'timeout',
    error: c.error,
    // Checked (validateParams) before it was queued: numbers, strings, booleans.
    params: c.params as ParamMap,
    objective: c.objectiveValue,
    qualifies: c.qualifies,
    statistics: presentStatistics(c.summary),
  };
}

/** The small form of every progress event. */
export function presentOptimizationProgress(v: OptimizationView) {
  return {
    id: v.row.id,
    status: v.row.status,
    error: v.row.error,
    progress: { done: v.done, total: v.row.total },
    best: v.best === null ? null : presentCombination(v.best),
  };
}

/** The source, instrument, timeframe and span an optimisation searched over. */
function presentSource(r: OptimizationView['request']) {
  return {
    templateId: r.templateId,
    strategyId: r.strategyId,
    instrument: r.instrument,
    timeframe: r.timeframe,
    startDate: r.span.startDate,
    endDate: r.span.endDate,
  };
}

/** An optimisation in the list (GET optimizations). */
export function presentOptimizationSummary(v: OptimizationView) {
  const r = v.request;
  return {
    ...presentOptimizationProgress(v),
    ...presentSource(r),
    method: r.method.kind,
    count: r.method.kind === 'random' ? r.method.count : null,
    objective: r.objective,
    createdAt: isoFromEpochMs(v.row.createdMs),
    completedAt: v.row.completedMs === null ? null : isoFromEpochMs(v.row.completedMs),
    walkForward: r.walkForward === null ? null : { inSampleDays: r.walkForward.inSampleDays, outOfSampleDays: r.walkForward.outOfSampleDays },
  };
}

export function presentOptimization(v: OptimizationView) {
  const r = v.request;
  return {
    ...presentOptimizationProgress(v),
    ...presentSource(r),
    params: r.axes.map((a) => ({ name: a.name, values: a.values })),
    method: r.method.kind,
    count: r.method.kind === 'random' ? r.method.count : null,
    seed: r.method.kind === 'random' ? r.method.seed : null,
    objective: r.objective,
    constraints: { minTrades: r.constraints.minTrades, maxDrawdown: r.constraints.maxDrawdownUsd },
    createdAt: isoFromEpochMs(v.row.createdMs),
    completedAt: v.row.completedMs === null ? null : isoFromEpochMs(v.row.completedMs),
    walkForward: presentWalkForward(v),
  };
}

function presentWalkForward(v: OptimizationView) {
  const wf = v.request.walkForward;
  if (wf === null || v.windows === null) return null;
  let pnl = 0;
  let trades = 0;
  for (const w of v.windows) {
    pnl += w.best?.summary?.stats.totalPnlCents ?? 0;
    trades += w.best?.summary?.stats.totalTrades ?? 0;
  }
  const s = v.stitched;
  return {
    inSampleDays: wf.inSampleDays,
    outOfSampleDays: wf.outOfSampleDays,
    windows: v.windows.map(presentWindow),
    inSample: { totalPnl: centsToUsd(pnl), totalTrades: trades },
    outOfSample: s === null ? null : {
      results: { ...presentStats(s.stats), returnPct: s.returnPct },
      equityCurve: s.equity.map((p) => ({ time: isoFromEpochS(p.timeS), equity: centsToUsd(p.equityCents) })),
    },
  };
}

function presentWindow(w: WindowView) {
  const dates = (s: { startDate: string; endDate: string }) => ({ startDate: s.startDate, endDate: s.endDate });
  return {
    inSample: dates(w.inSample),
    outOfSample: dates(w.outOfSample),
    best: w.best === null ? null : presentCombination(w.best),
    outOfSampleRun: w.outOfSampleRun === null ? null : presentCombination(w.outOfSampleRun),
  };
}
