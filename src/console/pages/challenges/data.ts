// What the Challenges page knows about the user's challenge accounts: their status, phase and rule
// figures from the web application's GET /api/auth/challenges (../../challenge.ts), and through the
// current family as a bot would, Payout/eligibility (answers only in the performance phase;
// errorCode 2 otherwise) and Payout/history (any challenge account).

import type { Static } from '@sinclair/typebox';
import type { PayoutEligibility, PayoutRecord } from '../../../http/shared/schemas.ts';
import { sim } from '../../api.ts';
import { type ChallengeDetail, loadChallengeDetails } from '../../challenge.ts';

export type Eligibility = Static<typeof PayoutEligibility>;
export type Payout = Static<typeof PayoutRecord>;

export interface ChallengeView {
  detail: ChallengeDetail;
  eligibility: Eligibility | null;
  /** Why eligibility is not shown (the server's message), when it is not. */
  eligibilityNote: string | null;
  payouts: Payout[] | null;
  payoutsError: string | null;
}

/** The user's challenge accounts, active ones first, newest first. */
export async function loadDetails(): Promise<ChallengeDetail[]> {
  const all = await loadChallengeDetails();
  const active = (d: ChallengeDetail) => Number(d.status === 'active');
  return all.sort((a, b) => active(b) - active(a) || b.accountId - a.accountId);
}

/** Eligibility and history of one challenge account. */
export async function loadChallenge(detail: ChallengeDetail): Promise<ChallengeView> {
  const view: ChallengeView = { detail, eligibility: null, eligibilityNote: null, payouts: null, payoutsError: null };
  const [elig, hist] = await Promise.allSettled([
    sim<{ eligibility: Eligibility }>('Payout/eligibility', { accountId: detail.accountId }),
    sim<{ payouts: Payout[] }>('Payout/history', { accountId: detail.accountId }),
  ]);
  if (elig.status === 'fulfilled') view.eligibility = elig.value.eligibility;
  else view.eligibilityNote = elig.reason instanceof Error ? elig.reason.message : String(elig.reason);
  if (hist.status === 'fulfilled') view.payouts = hist.value.payouts;
  else view.payoutsError = hist.reason instanceof Error ? hist.reason.message : String(hist.reason);
  return view;
}

export async function requestPayout(accountId: number, amount: number): Promise<string> {
  const r = await sim<{ payoutId: string }>('Payout/request', { accountId, amount });
  return r.payoutId;
}
