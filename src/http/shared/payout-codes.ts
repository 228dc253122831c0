// The Payout endpoints' code tables (payout-routes.ts): the same rows in both simulator families, in
// each family's words (the current family's withdrawals in the performance phase, the earlier
// family's payouts in the funded phase).

import { ACCOUNT_NOT_FOUND_ROW } from './code-rows.ts';
import type { PayoutTables } from './payout-routes.ts';
import { payoutReasonText } from './present-common.ts';

export interface PayoutWords {
  /** What the family calls the challenge phase in which payouts are taken ("performance phase"). */
  readonly phase: string;
  /** What it calls a payout, capitalised ("Withdrawal"). */
  readonly payout: string;
  /** Its message for an account outside that phase. */
  readonly notInPhase: string;
}

/** A family's three Payout tables and its phase's name, from its words. */
export function payoutTables(w: PayoutWords): PayoutTables {
  // A practice branch of a challenge session (Replay/branch) is refused by every Payout endpoint.
  const practice_account = [
    2,
    (e: { challengeId: number }) => `This account is a practice branch of challenge account ${e.challengeId}: practice accounts never take ${w.payout.toLowerCase()}s`,
    `This account is a practice branch of challenge account {challengeId}: practice accounts never take ${w.payout.toLowerCase()}s`,
  ] as const;
  const payoutEligibility: PayoutTables['payoutEligibility'] = { account_not_found: ACCOUNT_NOT_FOUND_ROW, not_performance_phase: [2, w.notInPhase], practice_account };
  return {
    payoutEligibility,
    payoutRequest: {
      ...payoutEligibility,
      invalid_amount: [3, `Invalid ${w.payout.toLowerCase()} amount`],
      not_eligible: [
        4,
        (e) => `${w.payout} not eligible: ${e.eligibility.reasons.map((r) => payoutReasonText(r, w.phase)).join('; ')}`,
        `${w.payout} not eligible: {reasons, joined by "; "}`,
      ],
      conflict: [5, `${w.payout} failed — please retry`],
    },
    payoutHistory: { account_not_found: ACCOUNT_NOT_FOUND_ROW, practice_account },
    PAYOUT_PHASE: w.phase,
  };
}
