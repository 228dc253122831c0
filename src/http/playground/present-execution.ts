// An execution → wire (our extension: the spec shows no polling endpoint). The Run fields of the
// spec first, then progress, the statistics of the earlier family's `results`, trades, the equity
// curve and logs. Money in USD, prices in the instrument's units, times ISO 8601 UTC.

import { centsToUsd, type Instrument, ticksToPrice } from '../../domain/instrument.ts';
import type { Performance } from '../../engine/performance.ts';
import type { TradeRecord } from '../../engine/results.ts';
import { isoFromEpochMs, isoFromEpochS } from '../../lib/iso-time.ts';
import type { ExecutionView } from '../../service/playground/runs.ts';
import type { ParamMap } from '../../service/playground/strategies.ts';
import { presentRoundTrip, presentStats } from '../shared/present-common.ts';

export { presentStats };
export const presentTrade = presentRoundTrip;

function runFields(v: ExecutionView) {
  return {
    id: v.id,
    strategyId: v.strategyId,
    templateId: v.templateId,
    instrument: v.inst.symbol,
    timeframe: v.timeframe,
    contextTimeframes: v.contextTimeframes,
    startDate: v.startDate,
    endDate: v.endDate,
    status: v.status,
    totalPnl: centsToUsd(v.stats.totalPnlCents),
    totalTrades: v.stats.totalTrades,
    winRate: v.stats.winRate,
    // Checked (validateParams) before the run started: numbers, strings, booleans.
    params: v.params as ParamMap,
    startedAt: isoFromEpochMs(v.startedMs),
    completedAt: v.completedMs === null ? null : isoFromEpochMs(v.completedMs),
  };
}

/** The small form sent on every progress event. */
export function presentProgress(v: ExecutionView) {
  return {
    ...runFields(v),
    queued: v.queued,
    error: v.error,
    speed: v.speed,
    progress: { barsDone: v.barsDone, barsTotal: v.barsTotal },
    balance: centsToUsd(v.balanceCents),
    equity: centsToUsd(v.equityCents),
  };
}

/** The performance extension of `results` (all null, no months, for a run recorded before it existed). */
function presentPerformance(inst: Instrument, p: Performance | null) {
  const b = p?.buyAndHold ?? null;
  return {
    ...presentPerformanceFigures(p),
    buyAndHold: b === null ? null : {
      entryPrice: ticksToPrice(inst, b.entryPriceTicks),
      exitPrice: ticksToPrice(inst, b.exitPriceTicks),
      pnl: centsToUsd(b.pnlCents),
      returnPct: b.returnPct,
      priceChangePct: b.priceChangePct,
    },
    monthlyReturns: p?.monthlyReturns ?? [],
  };
}

/** The performance figures without the months and the benchmark (an optimisation's combinations carry these); null for none. */
export function presentPerformanceFigures(p: Omit<Performance, 'monthlyReturns' | 'buyAndHold'> | null | undefined) {
  const expectancy = p?.expectancyCents ?? null;
  return {
    returnPct: p?.returnPct ?? null,
    cagrPct: p?.cagrPct ?? null,
    sharpeRatio: p?.sharpeRatio ?? null,
    sortinoRatio: p?.sortinoRatio ?? null,
    calmarRatio: p?.calmarRatio ?? null,
    exposurePct: p?.exposurePct ?? null,
    expectancy: expectancy === null ? null : centsToUsd(expectancy),
    averageTradeDurationS: p?.averageTradeDurationS ?? null,
    longestDrawdownS: p?.longestDrawdownS ?? null,
  };
}

export function presentExecution(v: ExecutionView) {
  return {
    ...presentProgress(v),
    results: { ...presentStats(v.stats), ...presentPerformance(v.inst, v.performance) },
    trades: v.trades.map((t) => presentTrade(v.inst, t)),
    tradesTotal: v.tradesTotal,
    equityCurve: v.equity.map((p) => ({ time: isoFromEpochS(p.timeS), equity: centsToUsd(p.equityCents) })),
    logs: v.logs,
    logTimes: v.logTimes.map((t) => (t === null ? null : isoFromEpochS(t))),
  };
}

/**
 * Trades as CSV rows with RunTrade's fields in the header's order (none of them can hold a comma, a
 * quote or a line break, so nothing is quoted), each ending in \n: a page of the streamed export
 * (GET executions/:id/trades.csv, the header row first).
 */
export function presentTradesCsvRows(inst: Instrument, trades: readonly TradeRecord[]): string {
  let out = '';
  for (const t of trades) {
    const w = presentTrade(inst, t);
    out += `${w.side},${w.size},${w.entryTime},${w.entryPrice},${w.exitTime},${w.exitPrice},${w.pnl},${w.fees}\n`;
  }
  return out;
}
