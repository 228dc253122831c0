// Payout eligibility in the performance phase (spec "Payout"; Topstep's standard and consistency payout
// paths; docs/decisions.md, "Payouts"), as a pure function of the challenge state; amounts in integer
// cents (the HTTP adapter converts to USD).
//
// Definitions:
// - Window: everything since the last payout (or since the performance phase began). Its profit,
//   netProfitSincePayout, is the closed P&L net of fees made in it (state.ts: windowPnlCents).
// - Winning day: a trade date in the window with closed profit ≥ winningDayMinProfit, strictly before
//   `currentTradeDate` (the current, unfinished date never counts, even after 17:00 CT if no bar of
//   the next date has been played yet: the date rolls when the simulation reaches it).
// - maxPayout = min(plan maximum, profitCapPct of netProfitSincePayout rounded down to the cent), 0
//   without profit. Eligible needs maxPayout ≥ minPayout.
// - Consistency policy: consistencyLimit = consistencyPct of the window profit, rounded down, 0
//   without profit: the largest day profit allowed. A best window day above it (the current date
//   included, since its profit is in the window) blocks the payout. Standard policy: consistencyPct
//   null and consistencyLimit 0 ("no limit").
// - totalFundedProfits: closed P&L of the whole performance phase, payouts included.

import { tradeDateString } from '../domain/trading-hours.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { ChallengePlan } from './plans.ts';
import type { ChallengeState } from './state.ts';

/** Where the payout window starts: the performance (funded) phase's start, or the last payout. */
export type WindowStart = 'phase_start' | 'last_payout';

/** Why an account may not take a payout now; each family words them (its phase has another name). */
export type PayoutReason =
  | { readonly kind: 'not_payout_phase' }
  | { readonly kind: 'winning_days'; readonly have: number; readonly need: number; readonly minProfitCents: number; readonly since: WindowStart }
  | { readonly kind: 'no_net_profit'; readonly since: WindowStart }
  | { readonly kind: 'below_minimum'; readonly capPct: number; readonly cappedCents: number; readonly minCents: number; readonly since: WindowStart }
  | { readonly kind: 'consistency'; readonly bestCents: number; readonly pct: number; readonly netCents: number };

export interface PayoutEligibility {
  readonly eligible: boolean;
  readonly reasons: readonly PayoutReason[];
  readonly winningDays: number;
  readonly requiredWinningDays: number;
  readonly winningDayMinProfitCents: number;
  readonly netProfitSincePayoutCents: number;
  readonly totalFundedProfitCents: number;
  readonly consistencyLimitCents: number;
  readonly maxPayoutCents: number;
  readonly minPayoutCents: number;
  readonly consistencyPct: number | null;
  /** `YYYY-MM-DD` trade date of the last payout; null before the first. */
  readonly windowStartDate: string | null;
}

export type PayoutAmountError = { readonly kind: 'invalid_amount' } | { readonly kind: 'not_eligible' };

/** Payouts exist only for active challenges in the performance phase (spec errorCode 2 otherwise). */
export function isPayoutPhase(state: ChallengeState): boolean {
  return state.status === 'active' && state.phase === 'performance';
}

export function eligibility(state: ChallengeState, plan: ChallengePlan, currentTradeDate: number): PayoutEligibility {
  const rules = plan.payout;
  let winningDays = 0;
  let netCents = 0;
  let totalCents = 0;
  let bestCents = 0;
  for (const d of state.days) {
    netCents += d.windowPnlCents;
    totalCents += d.closedPnlCents;
    if (d.windowPnlCents > bestCents) bestCents = d.windowPnlCents;
    if (d.tradeDate < currentTradeDate && d.windowPnlCents >= rules.winningDayMinProfitCents) winningDays++;
  }
  const pct = rules.consistencyPct;
  const cappedCents = netCents > 0 ? Math.floor((netCents * rules.profitCapPct) / 100) : 0;
  const maxPayoutCents = Math.min(rules.maxPayoutCents, cappedCents);
  const consistencyLimitCents = pct !== null && netCents > 0 ? Math.floor((netCents * pct) / 100) : 0;
  const since: WindowStart = state.payoutWindowStartDate === null ? 'phase_start' : 'last_payout';

  const reasons: PayoutReason[] = [];
  if (!isPayoutPhase(state)) reasons.push({ kind: 'not_payout_phase' });
  if (winningDays < rules.requiredWinningDays) {
    reasons.push({ kind: 'winning_days', have: winningDays, need: rules.requiredWinningDays, minProfitCents: rules.winningDayMinProfitCents, since });
  }
  if (netCents <= 0) reasons.push({ kind: 'no_net_profit', since });
  else if (maxPayoutCents < rules.minPayoutCents) {
    reasons.push({ kind: 'below_minimum', capPct: rules.profitCapPct, cappedCents, minCents: rules.minPayoutCents, since });
  }
  if (pct !== null && netCents > 0 && bestCents > consistencyLimitCents) {
    reasons.push({ kind: 'consistency', bestCents, pct, netCents });
  }
  return {
    eligible: reasons.length === 0,
    reasons,
    winningDays,
    requiredWinningDays: rules.requiredWinningDays,
    winningDayMinProfitCents: rules.winningDayMinProfitCents,
    netProfitSincePayoutCents: netCents,
    totalFundedProfitCents: totalCents,
    consistencyLimitCents,
    maxPayoutCents,
    minPayoutCents: rules.minPayoutCents,
    consistencyPct: pct,
    windowStartDate: state.payoutWindowStartDate === null ? null : tradeDateString(state.payoutWindowStartDate),
  };
}

/**
 * Whether `amountCents` may be paid out: a positive whole number of cents (else invalid_amount), an
 * eligible account (else not_eligible), and within [minPayout, maxPayout] (else invalid_amount).
 */
export function checkPayoutAmount(elig: PayoutEligibility, amountCents: number): Result<null, PayoutAmountError> {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) return err({ kind: 'invalid_amount' });
  if (!elig.eligible) return err({ kind: 'not_eligible' });
  if (amountCents < elig.minPayoutCents || amountCents > elig.maxPayoutCents) return err({ kind: 'invalid_amount' });
  return ok(null);
}
