// Wire shapes of the playground's optimisation endpoints as the console reads them (docs/playground.md,
// "Optimisation"; src/http/playground/optimize-schemas.ts).

import type { WireRunStats } from '../../run-stats.ts';
import type { ParamValues } from './types.ts';

export type OptimiseStatus = 'running' | 'completed' | 'stopped' | 'failed';
export type ObjectiveName = 'net_pnl' | 'return_over_drawdown' | 'sharpe' | 'profit_factor' | 'win_rate';

export const OBJECTIVES: readonly (readonly [ObjectiveName, string])[] = [
  ['net_pnl', 'Net P&L'],
  ['return_over_drawdown', 'Return / max drawdown'],
  ['sharpe', 'Sharpe'],
  ['profit_factor', 'Profit factor'],
  ['win_rate', 'Win rate'],
];

export const objectiveLabel = (o: string) => OBJECTIVES.find(([v]) => v === o)?.[1] ?? o;

export interface CombinationStatistics extends WireRunStats {
  returnPct: number;
  sharpeRatio: number | null;
}

export interface Combination {
  index: number;
  window: number | null;
  runId: string;
  status: string;
  params: ParamValues;
  objective: number | null;
  qualifies: boolean;
  statistics: CombinationStatistics | null;
}

export interface SpanDates {
  startDate: string;
  endDate: string;
}

export interface WalkForwardWindow {
  inSample: SpanDates;
  outOfSample: SpanDates;
  best: Combination | null;
  outOfSampleRun: Combination | null;
}

export interface WalkForwardResult {
  inSampleDays: number;
  outOfSampleDays: number;
  windows: WalkForwardWindow[];
  inSample: { totalPnl: number; totalTrades: number };
  outOfSample: { results: WireRunStats & { returnPct: number }; equityCurve: { time: string; equity: number }[] } | null;
}

/** A progress event: the optimisation's id, status, progress and best so far. */
export interface OptimiseProgress {
  id: string;
  status: OptimiseStatus;
  error: string | null;
  progress: { done: number; total: number };
  best: Combination | null;
}

/** GET optimizations/:id and the stream's `done` event. */
export interface Optimization extends OptimiseProgress {
  templateId: string | null;
  strategyId: string | null;
  instrument: string;
  timeframe: string;
  startDate: string;
  endDate: string;
  params: { name: string; values: (number | string | boolean)[] }[];
  method: 'grid' | 'random';
  count: number | null;
  seed: number | null;
  objective: ObjectiveName;
  constraints: { minTrades: number | null; maxDrawdown: number | null };
  createdAt: string;
  completedAt: string | null;
  walkForward: WalkForwardResult | null;
}

export interface Heatmap {
  x: { name: string; values: (number | string | boolean)[] };
  y: { name: string; values: (number | string | boolean)[] };
  cells: ({ objective: number; runId: string } | null)[][];
}

/** GET optimizations: an optimisation in the user's list. */
export interface OptimizationSummary extends OptimiseProgress {
  templateId: string | null;
  strategyId: string | null;
  instrument: string;
  timeframe: string;
  startDate: string;
  endDate: string;
  method: 'grid' | 'random';
  count: number | null;
  objective: ObjectiveName;
  createdAt: string;
  completedAt: string | null;
  walkForward: { inSampleDays: number; outOfSampleDays: number } | null;
}
