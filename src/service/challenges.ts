// Challenge accounts: creation (admin), lookup, and the write-back of a challenge's state with its
// account row (balance, and `active` = may still trade). The rules themselves are src/challenge.

import { type ChallengePlan, type DailyLossMode, type PayoutPolicy, type PlanSize, planByKey, planFor } from '../challenge/plans.ts';
import { type ChallengePhase, type ChallengeState, endChallenge, newChallenge } from '../challenge/state.ts';
import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Invalid } from '../lib/invalid.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { AccountRow, AccountStore } from '../store/accounts.ts';
import type { ChallengeRow, ChallengeStore } from '../store/challenges.ts';
import type { Sql } from '../store/sql.ts';
import { challengeAccountName } from './account-names.ts';

export interface Challenge {
  account: AccountRow;
  plan: ChallengePlan;
  state: ChallengeState;
  version: number;
}

export type ChallengeLookupError = { kind: 'account_not_found' };

/** Why a user may not start an evaluation: no such plan, or as many under way as one user may have. */
export type StartEvaluationError = { kind: 'plan_not_found' } | { kind: 'evaluations_limit'; max: number };

export class ChallengeService {
  constructor(
    private readonly db: Sql,
    private readonly accounts: AccountStore,
    private readonly store: ChallengeStore,
    private readonly clock: Clock,
  ) {}

  async create(userId: number, size: PlanSize, phase: ChallengePhase, policy: PayoutPolicy, dailyLossMode: DailyLossMode = 'hard'): Promise<Challenge> {
    const plan = planFor(size, policy, dailyLossMode);
    const state = newChallenge(plan, phase);
    const nowMs = this.clock.nowMs();
    return this.db.transaction(async () => {
      const account = await this.accounts.insert({ userId, kind: 'challenge', name: 'Challenge', balanceCents: state.balanceCents, nowMs });
      const name = challengeAccountName(size, account.id);
      await this.accounts.rename(account.id, name);
      await this.store.insert(account.id, plan.key, state, nowMs);
      return { account: { ...account, name }, plan, state, version: 1 };
    });
  }

  /**
   * A user starts an evaluation on a plan themselves (the console; the admin CLI's `create` has no
   * limit): refused while the user has `userActiveEvaluationsMax` evaluations still active. Passed,
   * violated and ended ones, and funded (performance-phase) accounts, do not count.
   */
  async startEvaluation(userId: number, planKey: string): Promise<Result<Challenge, StartEvaluationError>> {
    const plan = planByKey(planKey);
    if (!plan) return err({ kind: 'plan_not_found' });
    return this.db.transaction(async () => {
      await this.store.lockUserCreation(userId);
      if ((await this.activeEvaluationCount(userId)) >= limits.userActiveEvaluationsMax) return err({ kind: 'evaluations_limit', max: limits.userActiveEvaluationsMax });
      return ok(await this.create(userId, plan.size, 'evaluation', plan.payout.policy, plan.dailyLossMode));
    });
  }

  /** The user's challenges still active in the evaluation phase: what `startEvaluation` limits. */
  async activeEvaluationCount(userId: number): Promise<number> {
    return (await this.listOwned(userId)).filter((c) => c.state.status === 'active' && c.state.phase === 'evaluation').length;
  }

  /** A challenge account the user owns (any status). */
  async owned(userId: number, accountId: number | Invalid): Promise<Result<Challenge, ChallengeLookupError>> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const c = await this.byId(accountId);
    return c && c.account.userId === userId ? ok(c) : err({ kind: 'account_not_found' });
  }

  /** Every challenge account of a user, any status, oldest first. */
  async listOwned(userId: number): Promise<Challenge[]> {
    const accounts = (await this.accounts.listForUser(userId, false)).filter((a) => a.kind === 'challenge');
    const out: Challenge[] = [];
    for (const a of accounts) out.push((await this.byId(a.id)) as Challenge);
    return out;
  }

  async byId(accountId: number): Promise<Challenge | null> {
    const account = await this.accounts.byId(accountId);
    if (!account || account.kind !== 'challenge') return null;
    const row = await this.store.get(accountId) as ChallengeRow;
    const plan = planByKey(row.planKey);
    if (!plan) throw new Error(`challenge ${accountId} has unknown plan ${row.planKey}`);
    return { account, plan, state: row.state, version: row.version };
  }

  /**
   * Writes a challenge's state and mirrors it on its account row. Call inside the caller's
   * transaction; with `expectedVersion` it is a compare-and-set and returns false when it lost.
   */
  async save(accountId: number, state: ChallengeState, expectedVersion?: number): Promise<boolean> {
    if (!await this.store.save(accountId, state, expectedVersion)) return false;
    await this.accounts.setBalance(accountId, state.balanceCents);
    await this.accounts.setActive(accountId, state.status === 'active');
    return true;
  }

  /** Closes a challenge for good (status `ended`); a passed or violated one keeps its status. */
  async end(accountId: number): Promise<ChallengeState | null> {
    const c = await this.byId(accountId);
    if (!c) return null;
    const next = endChallenge(c.state);
    await this.db.transaction(() => this.save(accountId, next));
    return next;
  }
}
