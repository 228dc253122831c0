// Challenge accounts: the rule state (src/challenge/state.ts) as JSON with a version number, and
// their payouts. `save` with an expected version is a compare-and-set, so two writers (two payout
// requests, even from two processes) can never both apply a change made from the same state.

import type { ChallengeState } from '../challenge/state.ts';
import type { Sql } from './sql.ts';
import { inSeqOrder, nextSeq } from './seq.ts';

export interface ChallengeRow {
  accountId: number;
  planKey: string;
  state: ChallengeState;
  version: number;
}

export interface PayoutRow {
  id: string;
  accountId: number;
  amountCents: number;
  balanceBeforeCents: number;
  balanceAfterCents: number;
  status: string;
  simTradeDate: number;
  requestedMs: number;
}

export class ChallengeStore {
  constructor(private readonly db: Sql) {}

  /**
   * Serializes the creation of one user's challenges until the caller's transaction ends, so a count
   * of them and the insert it allows are one step on every node. SQLite's single connection already
   * runs one transaction at a time; PostgreSQL takes a transaction-level advisory lock on the user.
   */
  async lockUserCreation(userId: number): Promise<void> {
    if (this.db.dialect === 'postgres') await this.db.run('SELECT pg_advisory_xact_lock(hashtextextended($k::text, 0))', { k: `challenge-create:${userId}` });
  }

  async insert(accountId: number, planKey: string, state: ChallengeState, nowMs: number): Promise<void> {
    await this.db.run('INSERT INTO challenges (account_id, plan_key, state, version, created_ms) VALUES ($a, $p, $s, 1, $now)', { a: accountId, p: planKey, s: JSON.stringify(state), now: nowMs });
  }

  async get(accountId: number): Promise<ChallengeRow | null> {
    const r = (await this.db.get('SELECT * FROM challenges WHERE account_id = $a', { a: accountId })) as {
      account_id: number;
      plan_key: string;
      state: string;
      version: number;
    } | null;
    return r ? { accountId: r.account_id, planKey: r.plan_key, state: JSON.parse(r.state), version: r.version } : null;
  }

  /** Writes the state; with `expectedVersion`, only if nobody wrote since. Returns whether it wrote. */
  async save(accountId: number, state: ChallengeState, expectedVersion?: number): Promise<boolean> {
    const s = JSON.stringify(state);
    if (expectedVersion === undefined) {
      return (await this.db.run('UPDATE challenges SET state = $s, version = version + 1 WHERE account_id = $a', { a: accountId, s })) === 1;
    }
    return (
      (await this.db.run('UPDATE challenges SET state = $s, version = version + 1 WHERE account_id = $a AND version = $v', { a: accountId, s, v: expectedVersion })) === 1
    );
  }

  async insertPayout(p: PayoutRow): Promise<void> {
    await inSeqOrder(this.db, 'payouts', () => this.db.run(`INSERT INTO payouts (id, account_id, amount_cents, balance_before_cents, balance_after_cents, status, sim_trade_date, requested_ms, seq)
         VALUES ($id, $a, $amount, $before, $after, $status, $date, $ms, ${nextSeq('payouts')})`, {
        id: p.id,
        a: p.accountId,
        amount: p.amountCents,
        before: p.balanceBeforeCents,
        after: p.balanceAfterCents,
        status: p.status,
        date: p.simTradeDate,
        ms: p.requestedMs,
      }));
  }

  async payouts(accountId: number): Promise<PayoutRow[]> {
    const rows = (await this.db.all('SELECT * FROM payouts WHERE account_id = $a ORDER BY requested_ms DESC, seq DESC', { a: accountId })) as {
      id: string;
      account_id: number;
      amount_cents: number;
      balance_before_cents: number;
      balance_after_cents: number;
      status: string;
      sim_trade_date: number;
      requested_ms: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      amountCents: r.amount_cents,
      balanceBeforeCents: r.balance_before_cents,
      balanceAfterCents: r.balance_after_cents,
      status: r.status,
      simTradeDate: r.sim_trade_date,
      requestedMs: r.requested_ms,
    }));
  }
}
