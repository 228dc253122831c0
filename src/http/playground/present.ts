// Playground domain rows → wire objects (spec "Playground resources"). Times are ISO 8601 UTC,
// money USD.

import { centsToUsd } from '../../domain/instrument.ts';
import { isoFromEpochMs } from '../../lib/iso-time.ts';
import type { StrategyTemplate } from '../../service/playground/templates.ts';
import type { ParamMap, RunRow, StrategyRow, StrategySummaryRow } from '../../service/playground/strategies.ts';

/** A Template; `code` (the template's source, to fork it) is our extension of the spec's fields. */
export function presentTemplate(t: StrategyTemplate) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    category: t.category,
    difficulty: t.difficulty,
    params: t.params.map((p) => ({
      name: p.name,
      label: p.label,
      type: p.type,
      default: p.default,
      min: p.min,
      max: p.max,
      ...(p.step !== undefined ? { step: p.step } : {}),
    })),
    code: t.code,
  };
}

export function presentStrategySummary(r: StrategySummaryRow) {
  return {
    id: r.id,
    name: r.name,
    instrument: r.instrument,
    timeframe: r.timeframe,
    createdAt: isoFromEpochMs(r.createdMs),
    updatedAt: isoFromEpochMs(r.updatedMs),
  };
}

export function presentStrategy(r: StrategyRow) {
  return { ...presentStrategySummary(r), code: r.code, params: r.params };
}

/** A Run; result figures are null until the run has them (while running). */
export function presentRun(r: RunRow) {
  return {
    id: r.id,
    strategyId: r.strategyId,
    instrument: r.instrument,
    timeframe: r.timeframe,
    startDate: r.startDate,
    endDate: r.endDate,
    status: r.status,
    totalPnl: r.totalPnlCents === null ? null : centsToUsd(r.totalPnlCents),
    totalTrades: r.totalTrades,
    winRate: r.winRate,
    // A run's params were checked (validateParams) before it was stored: numbers, strings, booleans.
    params: r.params as ParamMap,
    startedAt: isoFromEpochMs(r.startedMs),
    completedAt: r.completedMs === null ? null : isoFromEpochMs(r.completedMs),
  };
}
