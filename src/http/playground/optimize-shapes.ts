// The playground's optimisation wire shapes (docs/playground.md, "Optimisation"): TypeBox values
// that optimize-schemas.ts builds its endpoints from, and that the console takes its types from
// (`import type` + `Static`). Like shapes.ts, this module imports nothing of the server but the
// other shapes and the pure limits (test/tidy.test.ts).

import { Type as T } from '@sinclair/typebox';
import { coreLimits as limits } from '../../core-limits.ts';
import { Nullable, RunResults, STRICT } from '../shared/schemas.ts';
import { IsoTime, Params, ParamValue, PlaygroundResults, TradeDate } from './shapes.ts';

export const OBJECTIVE_NAMES = ['net_pnl', 'return_over_drawdown', 'sharpe', 'profit_factor', 'win_rate'] as const;
export const ObjectiveName = T.Union(OBJECTIVE_NAMES.map((o) => T.Literal(o)), {
  title: 'OptimizeObjective',
  description: 'Higher is better: net P&L (USD); net P&L over |max drawdown|; Sharpe ratio (results.sharpeRatio); profit factor; win rate',
});

/** A combination's statistics: an execution's `results` without the monthly returns and the benchmark (the same for every combination). */
const { monthlyReturns: _months, buyAndHold: _benchmark, ...statisticsFields } = PlaygroundResults.properties;
export const CombinationStatistics = T.Object(statisticsFields, { ...STRICT, title: 'CombinationStatistics' });

export const Combination = T.Object(
  {
    index: T.Integer({ minimum: -1, description: 'Its place in the search (0-based); -1 for a walk-forward window\'s out-of-sample run' }),
    window: Nullable(T.Integer({ minimum: 0, description: 'The walk-forward window it ran in (0-based); null outside a walk-forward' })),
    runId: T.String({ description: 'The execution that ran it: GET executions/:id opens it as a full run' }),
    status: T.Union([T.Literal('running'), T.Literal('completed'), T.Literal('failed'), T.Literal('stopped'), T.Literal('timeout')]),
    params: Params,
    objective: Nullable(T.Number({ description: 'The objective\'s value; null while running or when it has none' })),
    qualifies: T.Boolean({ description: 'Completed, within the constraints, with an objective value: it may be the best' }),
    statistics: Nullable(CombinationStatistics),
  },
  { ...STRICT, title: 'OptimizeCombination' },
);

export const SpanDates = T.Object({ startDate: TradeDate('First trade date'), endDate: TradeDate('Last trade date') }, STRICT);

export const WalkForward = T.Object(
  {
    inSampleDays: T.Integer(),
    outOfSampleDays: T.Integer(),
    windows: T.Array(T.Object({ inSample: SpanDates, outOfSample: SpanDates, best: Nullable(Combination), outOfSampleRun: Nullable(Combination) }, STRICT)),
    inSample: T.Object({ totalPnl: T.Number({ description: 'Σ of the windows\' best in-sample net P&L, USD' }), totalTrades: T.Integer() }, STRICT),
    outOfSample: Nullable(T.Object(
      {
        results: T.Object({ ...RunResults.properties, returnPct: T.Number() }, STRICT),
        equityCurve: T.Array(T.Object({ time: T.String(), equity: T.Number() }, STRICT), { maxItems: 2 * limits.playgroundEquityPointsMax }),
      },
      { ...STRICT, description: 'The out-of-sample runs stitched end to end (each starts where the previous ended); null before the first has completed' },
    )),
  },
  { ...STRICT, title: 'WalkForwardResult' },
);

const progressFields = {
  id: T.String({ description: 'opt_ + 16 characters' }),
  status: T.Union([T.Literal('running'), T.Literal('completed'), T.Literal('stopped'), T.Literal('failed')]),
  error: Nullable(T.String()),
  progress: T.Object({ done: T.Integer(), total: T.Integer() }, STRICT),
  best: Nullable(Combination),
};

/** What an optimisation searched over: its source, instrument, timeframe and span (the list and the whole alike). */
const sourceFields = {
    templateId: Nullable(T.String()),
    strategyId: Nullable(T.String()),
    instrument: T.String(),
    timeframe: T.String(),
    startDate: TradeDate('First trade date'),
    endDate: TradeDate('Last trade date'),
};

export const OptimizationProgress = T.Object(progressFields, { ...STRICT, title: 'OptimizationProgress' });

export const Optimization = T.Object(
  {
    ...progressFields,
    ...sourceFields,
    params: T.Array(T.Object({ name: T.String(), values: T.Array(ParamValue) }, STRICT), { description: 'Each param\'s values searched (fixed ones have one)' }),
    method: T.Union([T.Literal('grid'), T.Literal('random')]),
    count: Nullable(T.Integer()),
    seed: Nullable(T.Integer()),
    objective: ObjectiveName,
    constraints: T.Object({ minTrades: Nullable(T.Integer()), maxDrawdown: Nullable(T.Number()) }, STRICT),
    createdAt: IsoTime('Wall-clock start'),
    completedAt: Nullable(IsoTime('Wall-clock end')),
    walkForward: Nullable(WalkForward),
  },
  { ...STRICT, title: 'Optimization' },
);

export const OptimizationSummary = T.Object(
  {
    ...progressFields,
    ...sourceFields,
    method: T.Union([T.Literal('grid'), T.Literal('random')]),
    count: Nullable(T.Integer()),
    objective: ObjectiveName,
    createdAt: IsoTime('Wall-clock start'),
    completedAt: Nullable(IsoTime('Wall-clock end')),
    walkForward: Nullable(T.Object({ inSampleDays: T.Integer(), outOfSampleDays: T.Integer() }, STRICT)),
  },
  { ...STRICT, title: 'OptimizationSummary', description: 'An optimisation in the list: GET optimizations/:id has the rest (params, constraints, walk-forward windows)' },
);

/** GET optimizations/:id/heatmap's axes and cells. */
export const HeatmapAxis = T.Object({ name: T.String(), values: T.Array(ParamValue) }, STRICT);
export const HeatmapCell = Nullable(T.Object({ objective: T.Number(), runId: T.String() }, STRICT));
