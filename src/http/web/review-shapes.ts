// The journal's review shapes (issue 30): a trade with its initial stop, R-multiple, excursions and
// time in trade; the statistics of a session or of several (expectancy, daily P&L calendar, P&L by
// weekday and by hour). Money in USD, prices in the instrument's units, times ISO 8601 UTC.

import { Type as T } from '@sinclair/typebox';
import { coreLimits as limits } from '../../core-limits.ts';
import { Nullable, RunTrade, STRICT } from '../shared/schemas.ts';

const Tags = T.Array(T.String(), { maxItems: limits.journalTagsPerTargetMax, description: 'Lower case, sorted' });

export const ReviewTrade = T.Object(
  {
    tradeNumber: T.Integer({ minimum: 1, description: '1 for the oldest round trip (the notes\' numbering)' }),
    ...RunTrade.properties,
    initialStop: Nullable(T.Number({ description: 'The stop-loss working when the trade opened (docs/decisions.md); null: none' })),
    risk: Nullable(T.Number({ description: 'USD at risk to the initial stop for the trade\'s size; null without a stop, or one at or beyond the entry' })),
    rMultiple: Nullable(T.Number({ description: 'Net P&L / risk, two decimals; null without a risk' })),
    mae: T.Number({ minimum: 0, description: 'Maximum adverse excursion, USD for the trade\'s size, from the stored bars' }),
    mfe: T.Number({ minimum: 0, description: 'Maximum favourable excursion, USD for the trade\'s size' }),
    maeTicks: T.Number({ minimum: 0, description: 'Ticks from the average entry, two decimals' }),
    mfeTicks: T.Number({ minimum: 0 }),
    durationSeconds: T.Integer({ minimum: 0, description: 'Time in trade, entry to exit' }),
    tags: Tags,
    note: T.String(),
  },
  { ...STRICT, title: 'ReviewTrade' },
);

const bucket = {
  trades: T.Integer({ minimum: 1 }),
  wins: T.Integer({ minimum: 0 }),
  losses: T.Integer({ minimum: 0 }),
  pnl: T.Number({ description: 'USD, net of fees' }),
};

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

export const ReviewStats = T.Object(
  {
    trades: T.Integer({ minimum: 0 }),
    expectancy: T.Number({ description: 'Average net P&L per trade, USD' }),
    expectancyR: Nullable(T.Number({ description: 'Average R of the trades with an initial stop; null when none has one' })),
    tradesWithR: T.Integer({ minimum: 0 }),
    calendar: T.Array(T.Object({ date: T.String({ description: 'Trading day YYYY-MM-DD (CME: a new day at 17:00 Chicago time), of the exit' }), ...bucket }, STRICT), {
      description: 'Days with trades, oldest first',
    }),
    byWeekday: T.Array(T.Object({ weekday: T.Union(WEEKDAYS.map((d) => T.Literal(d))), ...bucket }, STRICT), { description: 'Weekday of the trading day; those with trades, Monday first' }),
    byHour: T.Array(T.Object({ hour: T.Integer({ minimum: 0, maximum: 23 }), ...bucket }, STRICT), { description: 'Hour of the entry in `timeZone`; those with trades' }),
  },
  { ...STRICT, title: 'ReviewStats' },
);
