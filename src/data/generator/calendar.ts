// The generator's calendar: the day its anchor path starts from, the range of days it serves, and
// which UTC days to generate up to a given moment. Holidays are not modelled: every weekday trades
// its full session (see domain/trading-hours.ts).

import type { SessionKind } from '../../domain/instrument.ts';
import { daysFromCivil } from '../../domain/timeframe.ts';
import { lastCompletedTradingDay, tradeDateEndS } from '../../domain/trading-hours.ts';
import { DAY_S } from '../../lib/time-units.ts';

/** 2024-01-01: the anchor path starts here at each instrument's `genStartPriceTicks`. */
export const GENERATOR_ORIGIN_DAY = daysFromCivil(2024, 1, 1);

export const MINUTES_PER_DAY = 1_440;

export interface GeneratorSpanOptions {
  readonly session: SessionKind;
  readonly nowEpochS: number;
  /** First UTC day; default 2024-01-01. */
  readonly firstUtcDay?: number;
  /** Last UTC day; default (and cap) the last completed trading day. */
  readonly lastUtcDay?: number | null;
}

export interface GeneratorSpan {
  readonly firstUtcDay: number;
  readonly lastUtcDay: number;
  /** Bars at or after this time are left out: they belong to a trade date not yet completed. */
  readonly endS: number;
}

/** The UTC days to generate: from 2024-01-01 (or the configured day) to the last completed trading day. */
export function generatorSpan(opts: GeneratorSpanOptions): GeneratorSpan {
  const completed = lastCompletedTradingDay(opts.session, opts.nowEpochS);
  const firstUtcDay = opts.firstUtcDay ?? GENERATOR_ORIGIN_DAY;
  const wanted = opts.lastUtcDay ?? completed;
  if (wanted < completed) return { firstUtcDay, lastUtcDay: wanted, endS: (wanted + 1) * DAY_S };
  return { firstUtcDay, lastUtcDay: completed, endS: tradeDateEndS(opts.session, completed) };
}
