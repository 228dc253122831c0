// Playground family (`/api/playground/`): every endpoint's request and response schema, field rules
// and code table, beside the code tables (codes.ts, run-codes.ts). The handlers (templates.ts,
// strategies.ts, runs.ts) serve these; PLAYGROUND_ENDPOINTS lists them for the API reference.
//
// Field rules (src/http/shared/endpoint.ts): the services check every field themselves, one after
// the other and after lookups (a saved strategy, a template), so no field is refused up front
// except `speed` of POST speed. `defer` where the service refuses any wrong-typed value with the
// field's row; `keep` where the service needs the value as sent: a row that quotes it (timeframe,
// contextTimeframes), looks inside it (params) or tells a missing field from a wrong one (startDate,
// timeframe of a run).

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { endpoint } from '../shared/declare.ts';
import { type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { Maybe, RunTrade, STRICT } from '../shared/schemas.ts';
import * as codes from './codes.ts';
import * as runCodes from './run-codes.ts';
import { Execution, ExecutionProgress, Params, Run, Strategy, StrategySummary, Template } from './shapes.ts';

/** POST speed's value for full speed (an extension: the spec's range is 1 to 50). */
export const FULL_SPEED = 'max';

// ---- resources: the wire shapes (shapes.ts), re-exported ----

export { Execution, ExecutionProgress, Params, ParamValue, PlaygroundResults, Run, RunStatus, RunTrade, Strategy, StrategySummary, Template, TemplateParam } from './shapes.ts';

// ---- templates ----

export const templates = endpoint('GET /templates', 'none', 'The strategy template catalog (public)', {
  response: okBody({ templates: T.Array(Template) }),
  errors: codes.none,
});

// ---- runs ----

/** What to run and over what: POST run's fields before `params`, shared with POST optimize. */
export const RUN_SOURCE_REQUEST = {
  strategyId: Maybe(T.String({ description: 'Records the run under one of your saved strategies' })),
  templateId: Maybe(T.String({ description: 'From GET templates' })),
  code: Maybe(T.String({ description: 'Python source, at most 200 KB (UTF-8)' })),
  instrument: T.String({ description: 'Symbol: NQ, ES, MNQ, MES, GC, EURUSD, LIGHTCMDUSD' }),
  startDate: T.String({ description: 'YYYY-MM-DD: a trade date; the run starts at its session open' }),
  endDate: Maybe(T.String({ description: 'YYYY-MM-DD, default startDate; at most 2 years after it' })),
  timeframe: T.String({ description: 'A width that divides a day: 1s … 30s, 1m … 30m, 1h, 4h, 1d' }),
  contextTimeframes: Maybe(T.Array(T.String(), { maxItems: 3, description: 'Up to 3 larger widths, multiples of timeframe' })),
};

/** The field rules of RUN_SOURCE_REQUEST: the service checks these fields first, in this order. */
export const RUN_SOURCE_FIELDS = {
  strategyId: { defer: 'strategy_not_found' },
  templateId: { defer: 'template_not_found' },
  code: { defer: 'source_required' },
  instrument: { defer: 'instrument_not_found' },
  startDate: { keep: 'date_invalid' },
  endDate: { defer: 'date_invalid' },
  timeframe: { keep: 'invalid_timeframe' }, contextTimeframes: { keep: 'invalid_timeframe' },
} as const;

export const run = endpoint('POST /run', 'cookie-pro', 'Starts a backtest of a template, custom code or a saved strategy in the sandbox', {
  description: 'Exactly one source: `templateId` or `code`, or a saved `strategyId` alone (its code and params). Checked whole before a runner is used; answered at once with the execution id.',
  request: {
    ...RUN_SOURCE_REQUEST,
    params: Maybe(Params),
    speed: Maybe(T.Number({ minimum: limits.replaySpeedMin, maximum: limits.replaySpeedMax, description: 'Paces the run like Replay/play; absent = full speed' })),
  },
  fields: {
    ...RUN_SOURCE_FIELDS,
    params: { keep: 'invalid_params' },
    speed: { defer: 'invalid_speed' },
  },
  response: okBody({
    executionId: T.String(),
    status: T.Literal('running'),
    queued: T.Boolean({ description: 'Extension: true when the run waits for a runner (a paced run beyond the paced share waits its turn instead of being refused)' }),
  }),
  errors: runCodes.run,
  errorFields: { executionId: T.Optional(T.String({ description: 'With errorCode 11: the execution already running' })) },
});

export const stop = endpoint('POST /stop', 'cookie-pro', 'Stops your running execution (it ends `stopped`, partial results kept)', {
  response: okBody({ executionId: T.String() }),
  errors: runCodes.stop,
});

export const speed = endpoint('POST /speed', 'cookie-pro', 'Paces your running execution: 1–50 like Replay/play, or "max" for full speed', {
  description: 'The spec allows 1 to 50; `"max"` (an extension, docs/decisions.md) returns the run to full speed. Anything else, 0 and null included, is refused.',
  request: {
    speed: T.Union([
      T.Number({ minimum: limits.replaySpeedMin, maximum: limits.replaySpeedMax, description: 'Bars pace, as Replay/play' }),
      T.Literal(FULL_SPEED, { description: 'Full speed (extension)' }),
    ]),
  },
  fields: { speed: { refuse: { kind: 'invalid_speed' } } },
  response: okBody({ executionId: T.String() }),
  errors: runCodes.speed,
});

export const execution = endpoint('GET /executions/:id', 'cookie-pro', 'An execution of yours, running or ended: progress, results, trades, equity curve, logs', {
  response: okBody({ execution: Execution }),
  errors: runCodes.execution,
});

export const executionEvents = endpoint('GET /executions/:id/events', 'cookie-pro', 'Server-Sent Events of an execution: `progress` (at most ten a second), then `done`, then the stream closes', {
  description:
    'Each event is `event: progress` or `event: done` with one `data:` line of JSON: the execution without trades, curve and logs, then the whole execution. An ended execution answers its `done` at once.',
  produces: 'event-stream',
  response: T.Union(
    [
      T.Object({ event: T.Literal('progress'), data: ExecutionProgress }, { ...STRICT, title: 'ProgressEvent' }),
      T.Object({ event: T.Literal('done'), data: Execution }, { ...STRICT, title: 'DoneEvent' }),
    ],
    { description: 'One event of the stream' },
  ),
  errors: runCodes.execution,
});

/** The columns of GET executions/:id/trades.csv, in order: RunTrade's fields. */
export const TRADE_CSV_COLUMNS = ['side', 'size', 'entryTime', 'entryPrice', 'exitTime', 'exitPrice', 'pnl', 'fees'] as const;

export const executionTrades = endpoint('GET /executions/:id/trades', 'cookie-pro', 'A page of an execution\'s trades, oldest first (extension): every trade of the run, not only the first 5,000', {
  description:
    `Query: \`offset\` (a whole number ≥ 0, default 0) and \`limit\` (1 to ${limits.playgroundTradesPageMax}, default ${limits.playgroundTradesPageMax}). ` +
    `\`total\` counts the trades that can be paged: all of the run's, up to ${limits.playgroundTradesStoredMax.toLocaleString('en-US')} ` +
    '(a run recorded before trades were stored in full: its first 5,000); `tradesTotal` counts every trade of the run. A running execution pages over the trades closed so far.',
  response: okBody({
    trades: T.Array(RunTrade, { maxItems: limits.playgroundTradesPageMax }),
    offset: T.Integer({ minimum: 0 }),
    limit: T.Integer({ minimum: 1, maximum: limits.playgroundTradesPageMax }),
    total: T.Integer({ minimum: 0, description: 'Trades that can be paged' }),
    tradesTotal: T.Integer({ minimum: 0, description: 'Every trade of the run' }),
  }),
  errors: runCodes.executionTrades,
});

export const executionTradesCsv = endpoint('GET /executions/:id/trades.csv', 'cookie-pro', 'Every trade of an execution as CSV (extension), oldest first', {
  description:
    `\`text/csv\` with a header row \`${TRADE_CSV_COLUMNS.join(',')}\`, then one row per trade, as RunTrade: side long/short, ` +
    'times ISO 8601 UTC, prices in the instrument\'s units, pnl and fees in USD. Errors answer JSON like every endpoint.',
  produces: 'csv',
  response: T.String({ pattern: `^${TRADE_CSV_COLUMNS.join(',')}\\n` }),
  errors: runCodes.execution,
});

// ---- strategies ----

export const strategyList = endpoint('GET /strategies', 'cookie-pro', 'Your saved strategies, most recently updated first', {
  response: okBody({ strategies: T.Array(StrategySummary) }),
  errors: codes.none,
});

export const strategySave = endpoint('POST /strategies/save', 'cookie-pro', 'Creates a strategy, or rewrites yours with `id`', {
  description: 'Fields are checked one after the other (name, code, instrument, timeframe, params), then the id.',
  request: {
    id: Maybe(T.String({ description: 'A strategy of yours to rewrite; absent or null creates one' })),
    name: T.String({ description: `1 to ${limits.strategyNameMax} characters (trimmed)` }),
    code: T.String({ description: 'Python source, at most 200 KB (UTF-8)' }),
    instrument: T.String(),
    timeframe: T.String(),
    params: Params,
    runId: Maybe(T.String({ description: 'Extension, on create: an ended run of yours of this code, instrument, timeframe and params (the run you saved from) to list under the new strategy; otherwise ignored' })),
  },
  fields: {
    id: { defer: 'strategy_not_found' },
    name: { defer: 'field_required' }, code: { defer: 'field_required' }, instrument: { defer: 'field_required' }, timeframe: { defer: 'field_required' },
    params: { keep: 'invalid_params' },
    runId: { drop: true },
  },
  response: okBody({ id: T.String() }),
  errors: codes.saveStrategy,
});

export const strategyGet = endpoint('GET /strategies/:id', 'cookie-pro', 'One of your strategies with its code and params', {
  response: okBody({ strategy: Strategy }),
  errors: codes.getStrategy,
});

export const strategyDelete = endpoint('DELETE /strategies/:id', 'cookie-pro', 'Deletes one of your strategies (its runs stay readable by execution id)', {
  response: okBody({}),
  errors: codes.deleteStrategy,
});

export const strategyRuns = endpoint('GET /strategies/:id/runs', 'cookie-pro', `The newest ${limits.strategyRunsListedMax} runs of one of your strategies, newest first`, {
  response: okBody({ runs: T.Array(Run, { maxItems: limits.strategyRunsListedMax }) }),
  errors: codes.strategyRuns,
});

/** Every endpoint of the family, relative to its prefix (`/api/playground`). */
export const PLAYGROUND_ENDPOINTS: readonly EndpointInfo[] = [
  templates,
  run,
  stop,
  speed,
  execution,
  executionEvents,
  executionTrades,
  executionTradesCsv,
  strategyList,
  strategySave,
  strategyGet,
  strategyDelete,
  strategyRuns,
];
