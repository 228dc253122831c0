// Request fields and rules both simulator families declare alike: the bars History/retrieveBars
// asks for, what Replay/start checks after the instrument, Replay/play's pace. Each family spreads
// them among its own fields, in the order its service checks them.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { IsoTimeText, Maybe } from './schemas.ts';

/** History/retrieveBars: the bar width and where the span starts (its end is each family's). */
export const BARS_REQUEST = {
  unit: T.Union([T.Literal(1), T.Literal(2), T.Literal(3), T.Literal(4)], { description: '1 Second, 2 Minute, 3 Hour, 4 Day' }),
  unitNumber: T.Integer({ minimum: 1 }),
  startTime: Maybe(IsoTimeText),
};

/** The rules of BARS_REQUEST and of `endTime`. */
export const BARS_RULES = {
  unit: { defer: 'unit_invalid' }, unitNumber: { defer: 'unit_number_invalid' },
  startTime: { defer: 'invalid_time_range' }, endTime: { defer: 'invalid_time_range' },
} as const;

/** Replay/start's `accountId`. */
export const ChallengeAccountId = Maybe(T.Integer({ description: 'A challenge account whose rules and size the session inherits' }));

/** Replay/start's rules after the instrument: the dates, the timeframe (its schema is the family's), the challenge account. */
export const START_RULES = {
  startDate: { defer: 'date_invalid' }, endDate: { defer: 'date_invalid' },
  timeframe: { defer: 'invalid_timeframe' },
  accountId: { defer: 'challenge_not_found' },
} as const;

/** Replay/step's field and rule, for the family's bound. */
export const replaySteps = (max: number) =>
  ({
    request: { steps: Maybe(T.Integer({ minimum: 1, maximum: max, default: 1 })) },
    fields: { steps: { defer: 'invalid_steps' } },
  }) as const;

/** Replay/play's field and rule. */
export const REPLAY_SPEED = {
  request: { speed: Maybe(T.Number({ minimum: limits.replaySpeedMin, maximum: limits.replaySpeedMax, default: 1 })) },
  fields: { speed: { defer: 'invalid_speed' } },
} as const;
