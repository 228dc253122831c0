// Challenge accounts: the rule state (src/challenge/state.ts) as JSON with a version number, and
// their payouts. `save` with an expected version is a compare-and-set, so two writers (two payout
// requests, even from two processes) can never both apply a change made from the same state.

import type { ChallengeState } from '../challenge/state.ts';
import type { Db } from './db.ts';

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
  constructor(private readonly db: Db) {}

  insert(accountId: number, planKey: string, state: ChallengeState, nowMs: number): void {
    this.db
      .query('INSERT INTO challenges (account_id, plan_key, state, version, created_ms) VALUES ($a, $p, $s, 1, $now)')
      .run({ a: accountId, p: planKey, s: JSON.stringify(state), now: nowMs });
  }

  get(accountId: number): ChallengeRow | null {
    const r = this.db.query('SELECT * FROM challenges WHERE account_id = $a').get({ a: accountId }) as {
      account_id: number;
      plan_key: string;
      state: string;
      version: number;
    } | null;
    return r ? { accountId: r.account_id, planKey: r.plan_key, state: JSON.parse(r.state), version: r.version } : null;
  }

  /** Writes the state; with `expectedVersion`, only if nobody wrote since. Returns whether it wrote. */
  save(accountId: number, state: ChallengeState, expectedVersion?: number): boolean {
    const s = JSON.stringify(state);
    if (expectedVersion === undefined) {
      return this.db.query('UPDATE challenges SET state = $s, version = version + 1 WHERE account_id = $a').run({ a: accountId, s }).changes === 1;
    }
    return (
      this.db
        .query('UPDATE challenges SET state = $s, version = version + 1 WHERE account_id = $a AND version = $v')
        .run({ a: accountId, s, v: expectedVersion }).changes === 1
    );
  }

  insertPayout(p: PayoutRow): void {
    this.db
      .query(
        `INSERT INTO payouts (id, account_id, amount_cents, balance_before_cents, balance_after_cents, status, sim_trade_date, requested_ms)
         VALUES ($id, $a, $amount, $before, $after, $status, $date, $ms)`,
      )
      .run({
        id: p.id,
        a: p.accountId,
        amount: p.amountCents,
        before: p.balanceBeforeCents,
        after: p.balanceAfterCents,
        status: p.status,
        date: p.simTradeDate,
        ms: p.requestedMs,
      });
  }

  payouts(accountId: number): PayoutRow[] {
    const rows = this.db.query('SELECT * FROM payouts WHERE account_id = $a ORDER BY requested_ms DESC, rowid DESC').all({ a: accountId }) as {
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
