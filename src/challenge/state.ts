// ChallengeState: what the service persists per challenge account between calls and sessions, and
// the pure transitions of the challenge state machine (the model below; choices the spec leaves open:
// docs/decisions.md, "Challenges").
//
// The model:
// - Status and phase: a challenge starts `active` in the `evaluation` phase. A pass sets `passed`;
//   the next session start (prepareSession) opens the `performance` (funded) phase: balance back to
//   the starting size, floor back to start − max loss, trading days and daily records cleared, no
//   profit target, the same loss rules. A violation sets `violated` in either phase; `ended` is the
//   user closing the challenge. passed, violated and ended refuse orders ("Account violation").
// - Days are CME trade dates (17:00 America/Chicago boundary) for every instrument, as day numbers.
//   `days` holds one record per trade date with at least one fill in the current phase: its closed
//   (realized, net of fees) P&L, and the part of it made since the last payout (`windowPnlCents`).
//   A trade date on which a payout is taken keeps only the P&L made after the payout in its window
//   part, so nothing is counted in two payout windows.
// - The maximum loss floor trails the end-of-day equity (balance plus open P&L marked at the last
//   price before the trade-date boundary, the way Topstep marks at settlement): floor =
//   max(floor, EOD − max loss), capped at the starting balance, where it locks for good
//   (`drawdownLocked`). A payout locks it at the starting balance at once.
// - The daily loss base is the equity at the start of the trade date (`dayStartEquityCents`), so the
//   day's net P&L is realized plus open P&L since the boundary, also for a position held across it.
// - The simulated calendar only moves forward: a new session may not start before `lastSimTimeS`,
//   the latest simulated time the challenge has seen.

import { err, ok, type Result } from '../lib/result.ts';
import { nextTradeDay, tradeDate, tradeDateStartS } from '../domain/trading-hours.ts';
import type { ChallengePlan } from './plans.ts';

export type ChallengeStatus = 'active' | 'passed' | 'violated' | 'ended';
export type ChallengePhase = 'evaluation' | 'performance';
export type ChallengeRuleName = 'maxLossLimit' | 'dailyLossLimit';

export interface DayRecord {
  /** CME trade date as a day number (days since 1970-01-01). */
  readonly tradeDate: number;
  fillCount: number;
  /** Realized P&L net of fees of the fills on this trade date. */
  closedPnlCents: number;
  /** The part of closedPnlCents made since the last payout (performance phase). */
  windowPnlCents: number;
}

/** A decision of the rules: a terminal violation or pass, or a soft daily-loss breach. */
export interface ChallengeOutcome {
  readonly kind: 'violation' | 'pass' | 'soft_breach';
  /** null for a pass. */
  readonly rule: ChallengeRuleName | null;
  readonly message: string;
  /** maxLossLimit: equity at the deciding price; dailyLossLimit: the day's net P&L there; pass: balance. */
  readonly valueCents: number;
  /** maxLossLimit: the floor; dailyLossLimit: −limit; pass: start + target. */
  readonly limitCents: number;
  /** Time of the deciding stored bar (or of the command). */
  readonly timeS: number;
  /** Index of the deciding bar in the stored bars the rule ran over; the service converts it. */
  readonly barIndex: number;
  readonly phase: ChallengePhase;
  /** Where the position was liquidated; null when flat. */
  readonly liquidationPriceTicks: number | null;
}

export interface ChallengeState {
  readonly version: 1;
  readonly planKey: string;
  status: ChallengeStatus;
  phase: ChallengePhase;
  readonly startingBalanceCents: number;
  /** Realized balance, carried across sessions (a session starts with it). */
  balanceCents: number;
  floorCents: number;
  drawdownLocked: boolean;
  highestEodBalanceCents: number;
  /** The trade date the rules are in; null before the challenge has seen any time. */
  currentTradeDate: number | null;
  dayStartEquityCents: number;
  /** Trade dates with fills in the current phase, ascending. */
  days: DayRecord[];
  /** Set on a soft daily-loss breach: no orders until a later trade date. */
  softBreachTradeDate: number | null;
  lastSimTimeS: number | null;
  /** Trade date of the last payout (the payout window starts there); null before the first. */
  payoutWindowStartDate: number | null;
  payoutCount: number;
  payoutsTotalCents: number;
  /** The violation or pass that ended the current phase. */
  outcome: ChallengeOutcome | null;
}

/** What the service shows as the challenge snapshot (`propFirm`), with the spec's values. */
export interface ChallengeSnapshot {
  readonly status: ChallengeStatus;
  readonly isFunded: boolean;
  readonly currentPhase: ChallengePhase;
  readonly tradingDaysCount: number;
  readonly drawdownLocked: boolean;
}

export type SessionStartError =
  | { readonly kind: 'challenge_inactive' }
  | { readonly kind: 'session_before_challenge_time'; readonly lastSimTimeS: number };

/** The challenge's day for a time: the CME trade date, whatever the instrument's own session. */
export function challengeTradeDate(timeS: number): number {
  return tradeDate('cme_globex', timeS);
}

/** When the trade date after `day` begins (17:00 CT, Sunday for Monday). */
export function nextTradeDateBoundaryS(day: number): number {
  return tradeDateStartS('cme_globex', nextTradeDay(day));
}

export function newChallenge(plan: ChallengePlan, phase: ChallengePhase = 'evaluation'): ChallengeState {
  const start = plan.startingBalanceCents;
  return {
    version: 1, planKey: plan.key, status: 'active', phase, startingBalanceCents: start, balanceCents: start,
    floorCents: start - plan.maxLossLimitCents, drawdownLocked: false, highestEodBalanceCents: start,
    currentTradeDate: null, dayStartEquityCents: start, days: [], softBreachTradeDate: null, lastSimTimeS: null,
    payoutWindowStartDate: null, payoutCount: 0, payoutsTotalCents: 0, outcome: null,
  };
}

/** After a pass: the funded phase starts fresh at the starting size; the simulated calendar goes on. */
export function startPerformancePhase(state: ChallengeState, plan: ChallengePlan): ChallengeState {
  if (state.status !== 'passed' || state.phase !== 'evaluation') {
    throw new Error(`performance phase needs a passed evaluation, not ${state.status}/${state.phase}`);
  }
  const fresh = newChallenge(plan, 'performance');
  return {
    ...fresh, currentTradeDate: state.currentTradeDate, lastSimTimeS: state.lastSimTimeS,
  };
}

/**
 * The state a new session on this challenge starts from, given the time of its first bar: opens the
 * performance phase after a pass, refuses inactive challenges and sessions going back in time.
 */
export function prepareSession(
  state: ChallengeState,
  plan: ChallengePlan,
  firstBarS: number,
): Result<ChallengeState, SessionStartError> {
  if (state.status === 'violated' || state.status === 'ended') return err({ kind: 'challenge_inactive' });
  if (state.lastSimTimeS !== null && firstBarS < state.lastSimTimeS) {
    return err({ kind: 'session_before_challenge_time', lastSimTimeS: state.lastSimTimeS });
  }
  return ok(state.status === 'passed' ? startPerformancePhase(state, plan) : cloneState(state));
}

export function endChallenge(state: ChallengeState): ChallengeState {
  return { ...cloneState(state), status: state.status === 'active' ? 'ended' : state.status };
}

/** The trailing rule at a trade-date boundary: follows EOD − max loss up, never past the lock level. */
export function trailedFloorCents(
  floorCents: number,
  eodCents: number,
  maxLossCents: number,
  lockCents: number,
): number {
  return Math.min(lockCents, Math.max(floorCents, eodCents - maxLossCents));
}

/**
 * A payout of `amountCents` on simulated trade date `simTradeDate`: balance down, a new payout window
 * from that date (what was made so far leaves the window), and the floor locked at the starting balance.
 * Eligibility and the amount are checked first (payout.ts).
 */
export function applyPayout(state: ChallengeState, amountCents: number, simTradeDate: number): ChallengeState {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new Error(`bad payout amount ${amountCents}`);
  const next = cloneState(state);
  next.balanceCents -= amountCents;
  next.dayStartEquityCents -= amountCents;
  next.payoutWindowStartDate = simTradeDate;
  next.payoutCount += 1;
  next.payoutsTotalCents += amountCents;
  next.floorCents = state.startingBalanceCents;
  next.drawdownLocked = true;
  for (const d of next.days) d.windowPnlCents = 0;
  return next;
}

export function canPlaceOrders(state: ChallengeState, tradeDate: number): boolean {
  return orderRefusal(state, tradeDate) === null;
}

/** Why a new order is refused, in the place-order error vocabulary; null when it may be placed. */
export function orderRefusal(
  state: ChallengeState,
  tradeDate: number,
): { kind: 'challenge_inactive' } | { kind: 'rejected'; reason: string } | null {
  if (state.status !== 'active') return { kind: 'challenge_inactive' };
  if (state.softBreachTradeDate !== null && tradeDate <= state.softBreachTradeDate) {
    return { kind: 'rejected', reason: SOFT_BREACH_REASON };
  }
  return null;
}

export const SOFT_BREACH_REASON =
  'Daily loss limit reached: no new orders until the next trade date begins (17:00 America/Chicago)';

export function tradingDaysCount(state: ChallengeState): number {
  return state.days.length;
}

export function snapshotOf(state: ChallengeState): ChallengeSnapshot {
  return {
    status: state.status,
    isFunded: state.phase === 'performance',
    currentPhase: state.phase,
    tradingDaysCount: tradingDaysCount(state),
    drawdownLocked: state.drawdownLocked,
  };
}

export function cloneState(state: ChallengeState): ChallengeState {
  return { ...state, days: state.days.map((d) => ({ ...d })) };
}
