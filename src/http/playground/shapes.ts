// The playground family's wire shapes (`/api/playground/`: templates, strategies, runs, executions):
// TypeBox values that schemas.ts builds its endpoints from, and that the console takes its types from
// (`import type` + `Static`). This module imports nothing of the server but the shared shapes and the
// pure limits, so the console's type check and bundle stay free of it (test/tidy.test.ts).

import { Type as T } from '@sinclair/typebox';
import { coreLimits as limits } from '../../core-limits.ts';
import { Nullable, RunResults, RunTrade, STRICT } from '../shared/schemas.ts';

export const IsoTime = (description: string) => T.String({ description: `${description} (ISO 8601 UTC)` });
export const TradeDate = (description: string) => T.String({ description: `${description} (YYYY-MM-DD)`, examples: ['2025-03-03'] });

export const ParamValue = T.Union([T.Number(), T.String(), T.Boolean()], { title: 'ParamValue' });

/** Parameter values of a strategy or a run: a flat object of numbers, strings and booleans. */
export const Params = T.Record(T.String(), ParamValue, {
  title: 'Params',
  description: `A flat object: at most ${limits.strategyParamsMax} keys of 1 to ${limits.strategyParamKeyMax} characters; numbers, booleans or strings of at most ${limits.strategyParamStringMax} characters`,
});

export const TemplateParam = T.Object(
  {
    name: T.String(),
    label: T.String(),
    type: T.Union([T.Literal('number'), T.Literal('string'), T.Literal('boolean')]),
    default: ParamValue,
    min: Nullable(T.Number()),
    max: Nullable(T.Number()),
    step: T.Optional(T.Number({ description: 'Numbers must be min (or 0) plus a whole multiple of step; present only when the template sets one' })),
  },
  { ...STRICT, title: 'TemplateParam' },
);

export const Template = T.Object(
  {
    id: T.String({ examples: ['sma_cross'] }),
    name: T.String(),
    description: T.String(),
    category: T.Union([T.Literal('trend-following'), T.Literal('mean-reversion'), T.Literal('breakout')]),
    difficulty: T.Union([T.Literal('beginner'), T.Literal('intermediate'), T.Literal('advanced')]),
    params: T.Array(TemplateParam),
    code: T.String({ description: 'The template\'s Python source, to fork it into a strategy' }),
  },
  { ...STRICT, title: 'Template' },
);

const strategySummaryFields = {
  id: T.String({ description: 'stg_ + 16 hex characters' }),
  name: T.String(),
  instrument: T.String({ description: 'Plain symbol, e.g. NQ' }),
  timeframe: T.String({ description: 'Canonical form (60m is stored as 1h)' }),
  createdAt: IsoTime('Wall-clock time of creation'),
  updatedAt: IsoTime('Wall-clock time of the last save'),
};

export const StrategySummary = T.Object(strategySummaryFields, { ...STRICT, title: 'StrategySummary' });

export const Strategy = T.Object({ ...strategySummaryFields, code: T.String(), params: Params }, { ...STRICT, title: 'Strategy' });

export const RunStatus = T.Union(
  [T.Literal('running'), T.Literal('completed'), T.Literal('failed'), T.Literal('stopped'), T.Literal('timeout')],
  { title: 'RunStatus' },
);

/** The spec's Run (GET strategies/:id/runs): result figures null while running. */
export const Run = T.Object(
  {
    id: T.String({ description: 'Execution id, exe_ + 16 characters' }),
    strategyId: Nullable(T.String()),
    instrument: T.String(),
    timeframe: T.String(),
    startDate: TradeDate('First trade date'),
    endDate: TradeDate('Last trade date'),
    status: RunStatus,
    totalPnl: Nullable(T.Number({ description: 'USD; null while running' })),
    totalTrades: Nullable(T.Integer()),
    winRate: Nullable(T.Number({ description: '0–100; null while running' })),
    params: Params,
    startedAt: IsoTime('Wall-clock start'),
    completedAt: Nullable(IsoTime('Wall-clock end; null while running')),
  },
  { ...STRICT, title: 'Run' },
);

// A round-trip trade: the shape the journal serves too (shared/schemas.ts).
export { RunTrade };

/**
 * The earlier family's Replay/end `results` plus the playground's performance figures (extension;
 * engine/performance.ts states the model). Null (and no months) for runs recorded before they existed.
 */
export const PlaygroundResults = T.Object(
  {
    ...RunResults.properties,
    returnPct: Nullable(T.Number({ description: 'Final equity against the starting balance, percent' })),
    cagrPct: Nullable(T.Number({ description: 'Compound annual growth over the span played (365.25-day years), percent; null for an empty span' })),
    sharpeRatio: Nullable(T.Number({
      description: 'Daily returns (equity at each trade date\'s close): mean / sample standard deviation × √252, risk-free rate 0; null with fewer than 2 trade dates or no variation',
    })),
    sortinoRatio: Nullable(T.Number({
      description: 'Daily returns: mean / downside deviation (√(Σ min(r, 0)² / n)) × √252, risk-free rate 0; null with fewer than 2 trade dates or no losing day',
    })),
    calmarRatio: Nullable(T.Number({
      description: 'Annualised return of the daily returns ((Π(1 + r))^(252 / n) − 1) / |maximum drawdown of the daily closes, a fraction of the peak|; null with fewer than 2 trade dates or no drawdown',
    })),
    exposurePct: Nullable(T.Number({ minimum: 0, maximum: 100, description: 'Share of bars during which a position was open, percent' })),
    expectancy: Nullable(T.Number({ description: 'Mean net P&L of a trade (Σ pnl / trades), USD; null without trades' })),
    averageTradeDurationS: Nullable(T.Integer({ minimum: 0, description: 'Mean entry-to-exit time of the trades, seconds; null without trades' })),
    longestDrawdownS: Nullable(T.Integer({ minimum: 0, description: 'Longest time from an equity peak back to it (or to the end), seconds' })),
    buyAndHold: Nullable(T.Object(
      {
        entryPrice: T.Number({ description: 'The first bar\'s open' }),
        exitPrice: T.Number({ description: 'The last bar\'s close' }),
        pnl: T.Number({ description: 'One contract held from entryPrice to exitPrice, no fees, USD' }),
        returnPct: T.Number({ description: 'pnl against the starting balance, percent' }),
        priceChangePct: T.Number({ description: 'The price\'s change from entryPrice to exitPrice, percent' }),
      },
      { ...STRICT, description: 'The benchmark: one contract bought at the span\'s first open and held to its last close; null for a run without bars or recorded before it existed' },
    )),
    monthlyReturns: T.Array(
      T.Object({ month: T.String({ description: 'YYYY-MM (of the trade dates)' }), returnPct: T.Number({ description: 'Percent against the previous month\'s last close' }) }, STRICT),
      { maxItems: 12 * (limits.replaySpanYearsMax + 1) },
    ),
  },
  { ...STRICT, title: 'PlaygroundRunResults' },
);

const progressFields = {
  id: T.String({ description: 'exe_ + 16 characters' }),
  strategyId: Nullable(T.String()),
  templateId: Nullable(T.String()),
  instrument: T.String(),
  timeframe: T.String(),
  contextTimeframes: T.Array(T.String()),
  startDate: TradeDate('First trade date'),
  endDate: TradeDate('Last trade date'),
  status: RunStatus,
  queued: T.Boolean({ description: 'Extension: true while a running execution waits for a runner (a paced run beyond the paced share waits its turn); it starts when one frees' }),
  totalPnl: T.Number(),
  totalTrades: T.Integer(),
  winRate: T.Number(),
  params: Params,
  startedAt: IsoTime('Wall-clock start'),
  completedAt: Nullable(IsoTime('Wall-clock end; null while running')),
  error: Nullable(T.String({ description: 'The Python traceback or what stopped the sandbox' })),
  speed: Nullable(T.Number({ description: 'Bars pace 1–50; null at full speed' })),
  progress: T.Object({ barsDone: T.Integer(), barsTotal: T.Integer() }, STRICT),
  balance: T.Number(),
  equity: T.Number(),
};

/** An execution without trades, curve and logs: the `progress` event. */
export const ExecutionProgress = T.Object(progressFields, { ...STRICT, title: 'ExecutionProgress' });

export const Execution = T.Object(
  {
    ...progressFields,
    results: PlaygroundResults, // the earlier family's Replay/end `results` and the performance extension
    trades: T.Array(RunTrade, { description: 'While running the 100 most recent; when done the first 5,000' }),
    tradesTotal: T.Integer(),
    equityCurve: T.Array(T.Object({ time: T.String(), equity: T.Number() }, STRICT), {
      maxItems: limits.playgroundEquityPointsMax,
      description: 'Equity at bar closes over the whole run: the first bar\'s close, then per bucket of bars its lowest, highest and last close, then the run\'s end',
    }),
    logs: T.Array(T.String()),
    logTimes: T.Array(Nullable(IsoTime('Open time of the bar the strategy was on when it printed the line')), {
      description: 'Extension: one per line of `logs`, in order; null before the first bar (init), for the truncation note, and for runs recorded before line times existed',
    }),
  },
  { ...STRICT, title: 'Execution' },
);
