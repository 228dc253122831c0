// The evaluation's pass conditions, as one pure check that names every unmet condition.
//
// Pass: in the evaluation phase, realized balance ≥ start + profit target with no open
// position, at least the plan's minimum trading days (trade dates with a fill), and the best day's
// closed P&L strictly below passConsistencyPct of the total profit (balance − start). A consistency
// shortfall never breaches the account: the trader keeps trading until it is met (as Topstep, Take
// Profit Trader and MyFundedFutures apply their consistency rules; docs/decisions.md, "Challenges").

import { formatUsd } from '../engine/account.ts';
import type { ChallengePlan } from './plans.ts';
import type { ChallengeState } from './state.ts';

/** The best trade date's closed P&L in the current phase; 0 without days. */
export function bestDayCents(state: ChallengeState): number {
  let best = 0;
  for (const d of state.days) if (d.closedPnlCents > best) best = d.closedPnlCents;
  return best;
}

/** Plain-English reasons the evaluation is not passed yet; empty when it passes now. */
export function passShortfalls(state: ChallengeState, plan: ChallengePlan, positionQty: number): string[] {
  if (state.phase !== 'evaluation') return ['The performance phase has no profit target'];
  const reasons: string[] = [];
  const targetCents = state.startingBalanceCents + plan.profitTargetCents;
  if (state.balanceCents < targetCents) {
    const balance = formatUsd(state.balanceCents);
    reasons.push(`Balance ${balance} is below the profit target balance ${formatUsd(targetCents)}`);
  }
  if (positionQty !== 0) reasons.push('The position must be closed to pass');
  if (state.days.length < plan.minTradingDays) {
    reasons.push(`${state.days.length} of ${plan.minTradingDays} minimum trading days`);
  }
  const profitCents = state.balanceCents - state.startingBalanceCents;
  const best = bestDayCents(state);
  if (profitCents > 0 && best * 100 >= plan.passConsistencyPct * profitCents) {
    reasons.push(
      `Best day ${formatUsd(best)} is not below ${plan.passConsistencyPct}% of total profit ${formatUsd(profitCents)}`,
    );
  }
  return reasons;
}

/** The cheap test first: most calls happen far from the target. */
export function isPassReached(state: ChallengeState, plan: ChallengePlan, positionQty: number): boolean {
  if (state.phase !== 'evaluation' || positionQty !== 0) return false;
  if (state.balanceCents < state.startingBalanceCents + plan.profitTargetCents) return false;
  return passShortfalls(state, plan, positionQty).length === 0;
}
