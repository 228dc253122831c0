// Challenge accounts: creation (admin), lookup, and the write-back of a challenge's state with its
// account row (balance, and `active` = may still trade). The rules themselves are src/challenge.

import { type ChallengePlan, type DailyLossMode, type PayoutPolicy, type PlanSize, planByKey, planFor } from '../challenge/plans.ts';
import { type ChallengePhase, type ChallengeState, endChallenge, newChallenge } from '../challenge/state.ts';
import type { Clock } from '../lib/clock.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { AccountRow, AccountStore } from '../store/accounts.ts';
import type { ChallengeRow, ChallengeStore } from '../store/challenges.ts';
import { type Db, inTransaction } from '../store/db.ts';

export interface Challenge {
  account: AccountRow;
  plan: ChallengePlan;
  state: ChallengeState;
  version: number;
}

export type ChallengeLookupError = { kind: 'account_not_found' };

export class ChallengeService {
  constructor(
    private readonly db: Db,
    private readonly accounts: AccountStore,
    private readonly store: ChallengeStore,
    private readonly clock: Clock,
  ) {}

  create(userId: number, size: PlanSize, phase: ChallengePhase, policy: PayoutPolicy, dailyLossMode: DailyLossMode = 'hard'): Challenge {
    const plan = planFor(size, policy, dailyLossMode);
    const state = newChallenge(plan, phase);
    const nowMs = this.clock.nowMs();
    return inTransaction(this.db, () => {
      const account = this.accounts.insert({ userId, kind: 'challenge', name: 'Challenge', balanceCents: state.balanceCents, nowMs });
      const name = `CHALLENGE-${size}-${account.id}`;
      this.accounts.rename(account.id, name);
      this.store.insert(account.id, plan.key, state, nowMs);
      return { account: { ...account, name }, plan, state, version: 1 };
    });
  }

  /** A challenge account the user owns (any status). */
  owned(userId: number, accountId: unknown): Result<Challenge, ChallengeLookupError> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const c = this.byId(accountId);
    return c && c.account.userId === userId ? ok(c) : err({ kind: 'account_not_found' });
  }

  /** Every challenge account of a user, any status, oldest first. */
  listOwned(userId: number): Challenge[] {
    return this.accounts
      .listForUser(userId, false)
      .filter((a) => a.kind === 'challenge')
      .map((a) => this.byId(a.id) as Challenge);
  }

  byId(accountId: number): Challenge | null {
    const account = this.accounts.byId(accountId);
    if (!account || account.kind !== 'challenge') return null;
    const row = this.store.get(accountId) as ChallengeRow;
    const plan = planByKey(row.planKey);
    if (!plan) throw new Error(`challenge ${accountId} has unknown plan ${row.planKey}`);
    return { account, plan, state: row.state, version: row.version };
  }

  /**
   * Writes a challenge's state and mirrors it on its account row. Call inside the caller's
   * transaction; with `expectedVersion` it is a compare-and-set and returns false when it lost.
   */
  save(accountId: number, state: ChallengeState, expectedVersion?: number): boolean {
    if (!this.store.save(accountId, state, expectedVersion)) return false;
    this.accounts.setBalance(accountId, state.balanceCents);
    this.accounts.setActive(accountId, state.status === 'active');
    return true;
  }

  /** Closes a challenge for good (status `ended`); a passed or violated one keeps its status. */
  end(accountId: number): ChallengeState | null {
    const c = this.byId(accountId);
    if (!c) return null;
    const next = endChallenge(c.state);
    inTransaction(this.db, () => this.save(accountId, next));
    return next;
  }
}
