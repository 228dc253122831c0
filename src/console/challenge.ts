// The user's challenge accounts with their rule figures, as GET /api/auth/challenges states them
// (the web application's endpoint beside the spec's propFirm snapshot): shared by the desk's rule
// panel and the Challenges page. Money in USD.

import type { Static } from '@sinclair/typebox';
import type { ChallengeDetail as ChallengeDetailSchema, ChallengeOutcome as ChallengeOutcomeSchema } from '../http/web/shapes.ts';
import { auth } from './api.ts';

export type ChallengeDetail = Static<typeof ChallengeDetailSchema>;
export type ChallengeOutcome = Static<typeof ChallengeOutcomeSchema>;
export type ChallengeStatus = ChallengeDetail['status'];
export type ChallengePhase = ChallengeDetail['phase'];

export async function loadChallengeDetails(): Promise<ChallengeDetail[]> {
  const r = await auth<{ challenges: ChallengeDetail[] }>('GET', 'challenges');
  return r.challenges;
}

export const STATUS_LABEL: Record<ChallengeStatus, string> = { active: 'Active', passed: 'Passed', violated: 'Violated', ended: 'Ended' };

export const PHASE_LABEL: Record<ChallengePhase, string> = { evaluation: 'Evaluation', performance: 'Performance (funded)' };

/** A status or phase the labels above do not name yet, capitalised. */
export const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

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
