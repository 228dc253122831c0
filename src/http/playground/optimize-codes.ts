// Playground family, optimisation endpoints: (errorCode, errorMessage) per endpoint for every domain
// error kind. POST optimize shares POST run's rows for the run's own fields (1–8, 10) and adds its
// own from 11 (docs/playground.md, "Optimisation"; docs/decisions.md).

import type { CodeTable } from '../shared/code-table.ts';
import type { CombinationsError, HeatmapError, ListError, OptimizationNotFound, OptimizeError, OptimizeStopError } from '../../service/playground/optimize.ts';
import { pageRows, run } from './run-codes.ts';

// POST run's rows but for speed, a running execution and the runners: an optimisation has its own.
const { invalid_speed: _speed, already_running: _running, capacity: _capacity, ...runRows } = run;

export const optimize: CodeTable<OptimizeError> = {
  ...runRows,
  invalid_params: [8, (e) => e.message, 'Why a param\'s value, range or list does not fit, e.g. Param fast must be between 2 and 200, Range of fast: step must be greater than 0'],
  optimization_running: [11, 'An optimisation is already running; stop it first'],
  invalid_method: [12, (e) => e.message, 'method must be grid or random | count must be a whole number from 1 to {max} with method random | seed must be …'],
  invalid_objective: [13, 'objective must be one of net_pnl, return_over_drawdown, sharpe, profit_factor, win_rate'],
  invalid_constraints: [14, (e) => e.message, 'Unknown constraint {name} | minTrades must be a whole number of at least 0 | maxDrawdown must be a number of USD of at least 0'],
  invalid_walk_forward: [15, (e) => e.message, 'walkForward needs inSampleDays and outOfSampleDays, … | The span holds {n} trade dates with data: too few … | The span makes {n} windows; at most {max}'],
  too_many_combinations: [16, (e) => `The optimisation has ${e.count} combinations; at most ${e.max}`, 'The optimisation has {count} combinations; at most {max}'],
  daily_limit: [17, (e) => `Daily limit of ${e.max} combinations reached: ${e.left} left today (UTC)`, 'Daily limit of {max} combinations reached: {left} left today (UTC)'],
  rate_limited: { status: 429, message: 'Too many optimisation starts; retry shortly' },
};

export const optimization: CodeTable<OptimizationNotFound> = { optimization_not_found: [1, 'Optimisation not found'] };

export const optimizationStop: CodeTable<OptimizeStopError> = {
  ...optimization,
  not_running: [2, 'The optimisation is not running'],
};

export const optimizationCombinations: CodeTable<CombinationsError> = {
  ...optimization,
  invalid_sort: [2, 'sort must be one of objective, index, netPnl, returnPct, sharpeRatio, profitFactor, winRate, totalTrades, maxDrawdown'],
  invalid_order: [3, 'order must be asc or desc'],
  ...pageRows(4),
};

export const optimizationHeatmap: CodeTable<HeatmapError> = {
  ...optimization,
  invalid_axis: [2, (e) => `${e.field} must name a param of the optimisation${e.field === 'y' ? ', other than x' : ''}`, '{x|y} must name a param of the optimisation (y other than x)'],
};

/** GET optimizations: paged as GET executions/:id/trades is, without its not-found row. */
export const optimizations: CodeTable<ListError> = pageRows(1);
