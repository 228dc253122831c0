// Simulated payouts of challenge accounts in the performance phase: eligibility, requests, history.
//
// A request is checked and applied in one transaction: the balance drops by the amount, a payout
// record is written, the payout window restarts and the loss floor locks at the starting balance.
// Two requests for one account never both succeed: the one that finds another in flight (an
// event-loop yield is held for the whole request) or loses the compare-and-set on the challenge
// row's version answers `conflict` (spec errorCode 5). While a session on the challenge is live,
// its engine and rule are updated too, so the session trades on with the new balance.

import { eligibility as eligibilityOf, checkPayoutAmount, isPayoutPhase, type PayoutEligibility } from '../challenge/payout.ts';
import { ChallengeRule } from '../challenge/rules.ts';
import { applyPayout, challengeTradeDate, type ChallengeState } from '../challenge/state.ts';
import type { Clock } from '../lib/clock.ts';
import type { Invalid } from '../lib/invalid.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { randomSecret } from '../lib/secrets.ts';
import type { ChallengeStore, PayoutRow } from '../store/challenges.ts';
import type { Sql } from '../store/sql.ts';
import type { LiveSession } from './replay/session.ts';
import type { Challenge, ChallengeService } from './challenges.ts';
import type { ReplayService } from './replay/service.ts';

/** A practice branch of a challenge session (Replay/branch) is no challenge: it never takes a payout. */
export type PracticeRefusal = { kind: 'practice_account'; challengeId: number };
export type PayoutPhaseError = { kind: 'account_not_found' } | { kind: 'not_performance_phase' } | PracticeRefusal;
export type PayoutHistoryError = { kind: 'account_not_found' } | PracticeRefusal;
export type PayoutRequestError =
  | PayoutPhaseError
  | { kind: 'invalid_amount' }
  | { kind: 'not_eligible'; eligibility: PayoutEligibility }
  | { kind: 'conflict' };

export class PayoutService {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly db: Sql,
    private readonly challenges: ChallengeService,
    private readonly store: ChallengeStore,
    private readonly replay: ReplayService,
    private readonly clock: Clock,
  ) {}

  async eligibility(userId: number, accountId: number | Invalid): Promise<Result<PayoutEligibility, PayoutPhaseError>> {
    const c = await this.performanceChallenge(userId, accountId);
    if (!c.ok) return c;
    const state = await this.currentState(c.value);
    return ok(eligibilityOf(state, c.value.plan, currentDate(state)));
  }

  async request(userId: number, accountId: number | Invalid, amount: number | Invalid): Promise<Result<{ payout: PayoutRow }, PayoutRequestError>> {
    // Marked before anything is awaited: a second request for the account arriving meanwhile finds
    // this one in flight, however long the store takes to answer the checks.
    const key = `${userId}:${String(accountId)}`;
    const first = !this.inFlight.has(key);
    if (first) this.inFlight.add(key);
    try {
      const c = await this.performanceChallenge(userId, accountId);
      if (!c.ok) return c;
      const id = c.value.account.id;
      if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) return err({ kind: 'invalid_amount' });
      const cents = Math.round(amount * 100);
      if (Math.abs(cents - amount * 100) > 1e-6) return err({ kind: 'invalid_amount' });
      if (!first) return err({ kind: 'conflict' });
      await new Promise<void>((resolve) => setImmediate(resolve));
      const live = await this.replay.liveOfChallenge(id);
      // The session's lock first, then the store's transaction (LiveSession.exclusive).
      return await (live ? live.exclusive(() => this.apply(userId, id, cents, live)) : this.apply(userId, id, cents, null));
    } finally {
      if (first) this.inFlight.delete(key);
    }
  }

  async history(userId: number, accountId: number | Invalid): Promise<Result<PayoutRow[], PayoutHistoryError>> {
    const c = await this.challenges.owned(userId, accountId);
    if (!c.ok) return (await this.practiceRefusal(userId, accountId)) ?? c;
    return ok(await this.store.payouts(c.value.account.id));
  }

  private async apply(userId: number, accountId: number, cents: number, locked: LiveSession | null): Promise<Result<{ payout: PayoutRow }, PayoutRequestError>> {
    const c = await this.performanceChallenge(userId, accountId);
    if (!c.ok) return c;
    // The session may have ended while this request waited for its lock.
    const live = locked && this.replay.liveSessionOfChallenge(accountId) === locked ? locked : null;
    const state = live?.challenge ? live.challenge.rule.state : c.value.state;
    const date = currentDate(state);
    const elig = eligibilityOf(state, c.value.plan, date);
    const checked = checkPayoutAmount(elig, cents);
    if (!checked.ok) return checked.error.kind === 'not_eligible' ? err({ kind: 'not_eligible', eligibility: elig }) : err({ kind: 'invalid_amount' });
    const next = applyPayout(state, cents, date);
    const payout: PayoutRow = {
      id: `po_${randomSecret(12)}`,
      accountId,
      amountCents: cents,
      balanceBeforeCents: state.balanceCents,
      balanceAfterCents: next.balanceCents,
      status: 'completed',
      simTradeDate: date,
      requestedMs: this.clock.nowMs(),
    };
    let done: boolean;
    try {
      done = await this.db.transaction(async () => {
        if (!await this.challenges.save(accountId, next, c.value.version)) return false;
        await this.store.insertPayout(payout);
        if (live?.challenge) {
          // The live session trades on with the reduced balance under a rule over the new state.
          const mark = this.replay.mark(live);
          live.engine.balanceCents -= cents;
          live.challenge.rule = new ChallengeRule(next, c.value.plan, live.engine);
          // A payout acts on the session as a trade does (its `last_activity_ms`, src/service/replay-clock.ts).
          live.lastActivityMs = this.clock.nowMs();
          await this.replay.commit(live, mark);
        }
        return true;
      });
    } catch (e) {
      // The transaction rolled back; the live session must not keep the reduced balance.
      if (live) await this.replay.reload(live);
      throw e;
    }
    return done ? ok({ payout }) : err({ kind: 'conflict' });
  }

  private async performanceChallenge(userId: number, accountId: number | Invalid): Promise<Result<Challenge, PayoutPhaseError>> {
    const c = await this.challenges.owned(userId, accountId);
    if (!c.ok) return (await this.practiceRefusal(userId, accountId)) ?? c;
    return isPayoutPhase(await this.currentState(c.value)) ? c : err({ kind: 'not_performance_phase' });
  }

  /** The refusal of an account that is one of the user's practice branches of a challenge session, else null. */
  private async practiceRefusal(userId: number, accountId: number | Invalid): Promise<Result<never, PracticeRefusal> | null> {
    if (typeof accountId !== 'number') return null;
    const challengeId = await this.replay.practiceOf(userId, accountId);
    return challengeId === null ? null : err({ kind: 'practice_account', challengeId });
  }

  /** The freshest state: the live session's rule holds it while a session runs. */
  private async currentState(c: Challenge): Promise<ChallengeState> {
    return (await this.replay.liveOfChallenge(c.account.id))?.challenge?.rule.state ?? c.state;
  }
}

/** The simulated trade date the challenge is in (the current, unfinished one never counts as won). */
function currentDate(state: ChallengeState): number {
  if (state.currentTradeDate !== null) return state.currentTradeDate;
  return state.lastSimTimeS === null ? 0 : challengeTradeDate(state.lastSimTimeS);
}
