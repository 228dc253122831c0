// Playground family, optimisations (an extension of the family; docs/playground.md, "Optimisation"):
// every endpoint's request and response schema, field rules and code table. The handlers are in
// optimize.ts; OPTIMIZE_ENDPOINTS joins the family's list in the API reference.
//
// Field rules: the service checks every field itself, in order (the run's fields first, as POST run
// does), so each is `keep` (the row looks inside it: params, constraints, walkForward, whose extra
// keys it ignores) or `defer`.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { endpoint } from '../shared/declare.ts';
import { type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { Maybe, STRICT } from '../shared/schemas.ts';
import * as codes from './optimize-codes.ts';
import { Combination, HeatmapAxis, HeatmapCell, ObjectiveName, Optimization, OptimizationProgress, OptimizationSummary } from './optimize-shapes.ts';
import { RUN_SOURCE_FIELDS, RUN_SOURCE_REQUEST } from './schemas.ts';
import { ParamValue } from './shapes.ts';

// The wire shapes (optimize-shapes.ts), re-exported.
export { CombinationStatistics, Combination, OBJECTIVE_NAMES, Optimization, OptimizationProgress, OptimizationSummary } from './optimize-shapes.ts';

const ParamRange = T.Object(
  { min: T.Number(), max: T.Number(), step: T.Number({ exclusiveMinimum: 0 }) },
  { ...STRICT, title: 'ParamRange', description: 'min, min + step, … up to max' },
);
const ParamList = T.Object({ values: T.Array(ParamValue, { minItems: 1 }) }, { ...STRICT, title: 'ParamList' });

export const optimize = endpoint('POST /optimize', 'cookie-pro', 'Starts an optimisation: every combination of the params\' ranges and lists (or a random sample) is a run of its own', {
  description:
    `The run's fields as POST run (one source: \`templateId\`, \`code\` or a saved \`strategyId\`), then \`params\`: per param a value, a range \`{min, max, step}\` or \`{values: [...]}\`, within the template's bounds. ` +
    `At most ${limits.playgroundOptimizeCombinationsMax} combinations an optimisation and ${limits.playgroundOptimizeCombinationsPerDayMax} a user per UTC day; one optimisation running per user; ` +
    `${limits.playgroundOptimizeStartsPerWindowMax} requests a minute per user (HTTP 429 beyond, with Retry-After). A random search may sample any space, however large.`,
  request: {
    ...RUN_SOURCE_REQUEST,
    params: Maybe(T.Record(T.String(), T.Union([ParamValue, ParamRange, ParamList]))),
    method: Maybe(T.Union([T.Literal('grid'), T.Literal('random')], { description: 'Default grid' })),
    count: Maybe(T.Integer({ minimum: 1, description: 'With random: combinations to draw' })),
    seed: Maybe(T.Integer({ minimum: 0, description: 'With random: the draw\'s seed, default 1' })),
    objective: Maybe(ObjectiveName),
    constraints: Maybe(T.Object({ minTrades: Maybe(T.Integer({ minimum: 0 })), maxDrawdown: Maybe(T.Number({ minimum: 0, description: 'USD' })) }, STRICT)),
    walkForward: Maybe(T.Object({ inSampleDays: T.Integer({ minimum: 1 }), outOfSampleDays: T.Integer({ minimum: 1 }) }, {
      ...STRICT, description: 'Rolling windows of trade dates holding bars: optimise each in-sample part, run its best on the next out-of-sample part',
    })),
  },
  fields: {
    ...RUN_SOURCE_FIELDS,
    params: { keep: 'invalid_params' },
    method: { defer: 'invalid_method' }, count: { defer: 'invalid_method' }, seed: { defer: 'invalid_method' },
    objective: { defer: 'invalid_objective' },
    constraints: { keep: 'invalid_constraints' },
    walkForward: { keep: 'invalid_walk_forward' },
  },
  response: okBody({ optimizationId: T.String(), status: T.Literal('running') }),
  errors: codes.optimize,
  errorFields: { optimizationId: T.Optional(T.String({ description: 'With errorCode 11: the optimisation already running' })) },
});

export const optimizations = endpoint('GET /optimizations', 'cookie-pro', 'Your optimisations, newest first, a page at a time (extension)', {
  description:
    `Query: \`offset\` (a whole number ≥ 0, default 0) and \`limit\` (1 to ${limits.playgroundOptimizationsPageMax}, default ${limits.playgroundOptimizationsKeptPerUserMax}). ` +
    `A user keeps the newest ${limits.playgroundOptimizationsKeptPerUserMax} optimisations (older ended ones are deleted when a new one starts). \`best\` is null for a walk-forward (its windows each have one).`,
  response: okBody({
    optimizations: T.Array(OptimizationSummary, { maxItems: limits.playgroundOptimizationsPageMax }),
    offset: T.Integer({ minimum: 0 }),
    limit: T.Integer({ minimum: 1, maximum: limits.playgroundOptimizationsPageMax }),
    total: T.Integer({ minimum: 0, description: 'Every optimisation of yours' }),
  }),
  errors: codes.optimizations,
});

export const optimization = endpoint('GET /optimizations/:id', 'cookie-pro', 'An optimisation of yours: progress, the best combination so far, walk-forward results', {
  response: okBody({ optimization: Optimization }),
  errors: codes.optimization,
});

export const optimizationEvents = endpoint('GET /optimizations/:id/events', 'cookie-pro', 'Server-Sent Events of an optimisation: `progress` when done or the best changes, then `done`, then the stream closes', {
  produces: 'event-stream',
  response: T.Union([
    T.Object({ event: T.Literal('progress'), data: OptimizationProgress }, { ...STRICT, title: 'OptimizationProgressEvent' }),
    T.Object({ event: T.Literal('done'), data: Optimization }, { ...STRICT, title: 'OptimizationDoneEvent' }),
  ]),
  errors: codes.optimization,
});

export const optimizationStop = endpoint('POST /optimizations/:id/stop', 'cookie-pro', 'Stops an optimisation: queued combinations are cancelled, running ones stopped (finished ones kept)', {
  response: okBody({ optimizationId: T.String() }),
  errors: codes.optimizationStop,
});

export const optimizationCombinations = endpoint('GET /optimizations/:id/combinations', 'cookie-pro', 'A page of an optimisation\'s combinations, sorted', {
  description:
    'Query: `sort` (objective, index, netPnl, returnPct, sharpeRatio, profitFactor, winRate, totalTrades, maxDrawdown; default objective), ' +
    `\`order\` (asc or desc; default desc, asc for index; nulls last either way), \`offset\` (≥ 0), \`limit\` (1 to ${limits.playgroundOptimizePageMax}, default 100).`,
  response: okBody({
    objective: ObjectiveName,
    combinations: T.Array(Combination, { maxItems: limits.playgroundOptimizePageMax }),
    offset: T.Integer({ minimum: 0 }),
    limit: T.Integer({ minimum: 1 }),
    total: T.Integer({ minimum: 0 }),
  }),
  errors: codes.optimizationCombinations,
});

export const optimizationHeatmap = endpoint('GET /optimizations/:id/heatmap', 'cookie-pro', 'The objective over two params (`x`, `y`): cells[yi][xi] is the best completed combination there (over the other params), or null', {
  response: okBody({
    objective: ObjectiveName,
    x: HeatmapAxis,
    y: HeatmapAxis,
    cells: T.Array(T.Array(HeatmapCell)),
  }),
  errors: codes.optimizationHeatmap,
});

export const OPTIMIZE_ENDPOINTS: readonly EndpointInfo[] = [optimize, optimizations, optimization, optimizationEvents, optimizationStop, optimizationCombinations, optimizationHeatmap];
