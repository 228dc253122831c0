// The user's challenge accounts with their rule figures, as GET /api/auth/challenges states them
// (the web application's endpoint beside the spec's propFirm snapshot): shared by the desk's rule
// panel and the Challenges page. Money in USD.

import { auth } from './api.ts';

export type ChallengeStatus = 'active' | 'passed' | 'violated' | 'ended';
export type ChallengePhase = 'evaluation' | 'performance';

export interface ChallengeOutcome {
  kind: 'violation' | 'pass' | 'soft_breach';
  rule: 'maxLossLimit' | 'dailyLossLimit' | null;
  message: string;
  time: string;
  phase: ChallengePhase;
}

export interface ChallengeDetail {
  accountId: number;
  name: string;
  status: ChallengeStatus;
  phase: ChallengePhase;
  isFunded: boolean;
  plan: { key: string; size: '50K' | '100K' | '150K'; policy: 'standard' | 'consistency'; dailyLossMode: 'hard' | 'soft' };
  startingBalance: number;
  balance: number;
  /** Realized profit of the phase. */
  profit: number;
  /** Evaluation only. */
  profitTarget: number | null;
  targetBalance: number | null;
  trailingFloor: number;
  drawdownLocked: boolean;
  dailyLossLimit: number;
  /** Today's daily-loss floor; null before the first trade date or while paused. */
  dailyLossFloor: number | null;
  /** The higher floor: where trading stops first. */
  effectiveFloor: number;
  bestDay: number;
  /** To pass, the best day must stay below this percentage of the profit. */
  consistencyPct: number;
  tradingDays: number;
  minTradingDays: number;
  maxContracts: number;
  pausedForDay: boolean;
  liveSession: boolean;
  lastSimulatedTime: string | null;
  outcome: ChallengeOutcome | null;
}

export async function loadChallengeDetails(): Promise<ChallengeDetail[]> {
  const r = await auth<{ challenges: ChallengeDetail[] }>('GET', 'challenges');
  return r.challenges;
}

export const STATUS_LABEL: Record<ChallengeStatus, string> = { active: 'Active', passed: 'Passed', violated: 'Violated', ended: 'Ended' };

export const PHASE_LABEL: Record<ChallengePhase, string> = { evaluation: 'Evaluation', performance: 'Performance (funded)' };

export const RULE_LABEL: Record<string, string> = { maxLossLimit: 'Maximum loss', dailyLossLimit: 'Daily loss limit' };

/**
 * How a violation's figure is counted (src/challenge/rules.ts), so it adds up with the balance on
 * screen: the figure is taken at the breach price, before the closing fills pay their fees.
 */
export const RULE_ARITHMETIC: Record<string, string> = {
  dailyLossLimit:
    "Daily net P&L = equity at the breach price − the trade date's starting equity (open P&L and the fees paid so far included). Closing the position then pays its exit fees (and any gap past that price), so the balance ends that much lower.",
  maxLossLimit:
    'Equity at the breach price (open P&L and the fees paid so far included) against the trailing floor. Closing the position then pays its exit fees (and any gap past that price), so the balance ends that much lower.',
};

/** Which floor stops trading first; 'both' when they coincide. */
export function effectiveFloorKind(d: ChallengeDetail): 'trailing' | 'daily' | 'both' {
  if (d.dailyLossFloor === null || d.dailyLossFloor < d.trailingFloor) return 'trailing';
  return d.dailyLossFloor === d.trailingFloor ? 'both' : 'daily';
}

/** The largest best day the consistency rule allows at the current profit (null without profit). */
export function consistencyLimit(d: ChallengeDetail): number | null {
  return d.profit > 0 ? Math.round(d.profit * d.consistencyPct) / 100 : null;
}

/** What a closed challenge's status means, in words. */
export function outcomeText(d: ChallengeDetail): string | null {
  if (d.outcome) return d.outcome.message;
  if (d.status === 'ended') return 'Ended before a pass or a violation; it takes no more orders.';
  if (d.status === 'passed') return 'Evaluation passed. The next replay started on the account opens the performance phase.';
  return null;
}
