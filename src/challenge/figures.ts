// The rule figures a trader watches on a challenge account, in cents: where the trailing floor is,
// where today's daily-loss floor is, how the best day compares with the consistency limit, the
// profit target and the trading days. Pure: derived from the stored state and the plan only, with the
// same definitions the rules use (rules.ts effectiveFloorCents, pass.ts).

import { bestDayCents } from './pass.ts';
import type { ChallengePlan } from './plans.ts';
import { type ChallengeState, tradingDaysCount } from './state.ts';

export interface ChallengeFigures {
  startingBalanceCents: number;
  balanceCents: number;
  /** Realized profit of the phase: balance − start. */
  profitCents: number;
  /** The balance that passes the evaluation (start + target); null in the performance phase. */
  targetBalanceCents: number | null;
  profitTargetCents: number | null;
  /** The trailing maximum-loss floor (end-of-day trailing; stops trailing once locked). */
  trailingFloorCents: number;
  drawdownLocked: boolean;
  dailyLossLimitCents: number;
  dailyLossMode: 'hard' | 'soft';
  /** Today's daily-loss floor (day-start equity − limit); null before the first trade date or while a soft breach pauses the day. */
  dailyLossFloorCents: number | null;
  /** The floor that ends (or, soft, pauses) trading first: the higher of the two. */
  effectiveFloorCents: number;
  bestDayCents: number;
  /** Consistency: the best day must stay below this share of total profit to pass. */
  consistencyPct: number;
  tradingDays: number;
  minTradingDays: number;
  maxContracts: number;
  /** Trading paused until the next trade date after a soft daily-loss breach. */
  pausedForDay: boolean;
}

export function challengeFigures(state: ChallengeState, plan: ChallengePlan): ChallengeFigures {
  const evaluation = state.phase === 'evaluation';
  const dailyActive = plan.dailyLossLimitCents > 0 && state.softBreachTradeDate === null && state.currentTradeDate !== null;
  const dailyFloor = dailyActive ? state.dayStartEquityCents - plan.dailyLossLimitCents : null;
  return {
    startingBalanceCents: state.startingBalanceCents,
    balanceCents: state.balanceCents,
    profitCents: state.balanceCents - state.startingBalanceCents,
    targetBalanceCents: evaluation ? state.startingBalanceCents + plan.profitTargetCents : null,
    profitTargetCents: evaluation ? plan.profitTargetCents : null,
    trailingFloorCents: state.floorCents,
    drawdownLocked: state.drawdownLocked,
    dailyLossLimitCents: plan.dailyLossLimitCents,
    dailyLossMode: plan.dailyLossMode,
    dailyLossFloorCents: dailyFloor,
    effectiveFloorCents: dailyFloor === null ? state.floorCents : Math.max(state.floorCents, dailyFloor),
    bestDayCents: bestDayCents(state),
    consistencyPct: plan.passConsistencyPct,
    tradingDays: tradingDaysCount(state),
    minTradingDays: plan.minTradingDays,
    maxContracts: plan.maxContracts,
    pausedForDay: state.softBreachTradeDate !== null,
  };
}
