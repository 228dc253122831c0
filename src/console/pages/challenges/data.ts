// What the Challenges page knows about the user's challenge accounts, read through the current
// family as a bot would: Account/search (challenge accounts are named `CHALLENGE-<size>-<id>`;
// `canTrade` is true while the challenge is active), Payout/eligibility (answers only in the
// performance phase; errorCode 2 otherwise) and Payout/history (any challenge account).

import { ApiError, sim } from '../../api.ts';

export interface Account {
  id: number;
  name: string;
  balance: number;
  canTrade: boolean;
}

export interface Eligibility {
  eligible: boolean;
  reasons: string[];
  winningDays: number;
  requiredWinningDays: number;
  winningDayMinProfit: number;
  netProfitSincePayout: number;
  totalFundedProfits: number;
  consistencyLimit: number;
  maxPayout: number;
  minPayout: number;
  consistencyPct: number | null;
  windowStartDate: string | null;
}

export interface Payout {
  id: string;
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  status: string;
  requestedAt: string;
  simulatedDate?: string;
}

export type Phase = 'evaluation' | 'performance' | null;

export interface ChallengeView {
  account: Account;
  /** `50K` from the account name. */
  size: string | null;
  /** 'active' while it may trade; 'closed' once passed, violated or ended. */
  status: 'active' | 'closed';
  /** null when the API cannot tell (a closed challenge). */
  phase: Phase;
  eligibility: Eligibility | null;
  /** Why eligibility is not shown (the server's message), when it is not. */
  eligibilityNote: string | null;
  payouts: Payout[] | null;
  payoutsError: string | null;
}

export const isChallenge = (a: Account) => a.name.startsWith('CHALLENGE-');

export async function loadAccounts(): Promise<Account[]> {
  const r = await sim<{ accounts: Account[] }>('Account/search', { onlyActiveAccounts: false });
  return r.accounts.filter(isChallenge).sort((a, b) => Number(b.canTrade) - Number(a.canTrade) || b.id - a.id);
}

/** Eligibility and history of one challenge account; the phase follows from eligibility's answer. */
export async function loadChallenge(account: Account): Promise<ChallengeView> {
  const size = /^CHALLENGE-([^-]+)-/.exec(account.name)?.[1] ?? null;
  const view: ChallengeView = {
    account,
    size,
    status: account.canTrade ? 'active' : 'closed',
    phase: null,
    eligibility: null,
    eligibilityNote: null,
    payouts: null,
    payoutsError: null,
  };
  const [elig, hist] = await Promise.allSettled([
    sim<{ eligibility: Eligibility }>('Payout/eligibility', { accountId: account.id }),
    sim<{ payouts: Payout[] }>('Payout/history', { accountId: account.id }),
  ]);
  if (elig.status === 'fulfilled') {
    view.eligibility = elig.value.eligibility;
    view.phase = 'performance';
  } else {
    const e = elig.reason;
    view.eligibilityNote = e instanceof Error ? e.message : String(e);
    // errorCode 2: not in the performance phase (also when no longer active).
    if (e instanceof ApiError && e.errorCode === 2 && account.canTrade) view.phase = 'evaluation';
  }
  if (hist.status === 'fulfilled') view.payouts = hist.value.payouts;
  else view.payoutsError = hist.reason instanceof Error ? hist.reason.message : String(hist.reason);
  return view;
}

export async function requestPayout(accountId: number, amount: number): Promise<string> {
  const r = await sim<{ payoutId: string }>('Payout/request', { accountId, amount });
  return r.payoutId;
}
