// Trading accounts: replay-session accounts and challenge accounts. Balances are integer cents.

import type { Db } from './db.ts';

export type AccountKind = 'replay' | 'challenge';

export interface AccountRow {
  id: number;
  userId: number;
  kind: AccountKind;
  name: string;
  balanceCents: number;
  active: boolean;
  createdMs: number;
}

interface RawAccount {
  id: number;
  user_id: number;
  kind: AccountKind;
  name: string;
  balance_cents: number;
  active: number;
  created_ms: number;
}

function toAccount(r: RawAccount): AccountRow {
  return {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    name: r.name,
    balanceCents: r.balance_cents,
    active: r.active === 1,
    createdMs: r.created_ms,
  };
}

export class AccountStore {
  constructor(private readonly db: Db) {}

  insert(a: { userId: number; kind: AccountKind; name: string; balanceCents: number; nowMs: number }): AccountRow {
    const r = this.db
      .query(
        `INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms)
         VALUES ($user_id, $kind, $name, $balance, 1, $now) RETURNING *`,
      )
      .get({ user_id: a.userId, kind: a.kind, name: a.name, balance: a.balanceCents, now: a.nowMs }) as RawAccount;
    return toAccount(r);
  }

  /** Deletes a replay account (its session, orders and fills deleted first, in the same transaction). */
  deleteReplay(id: number): void {
    this.db.query(`DELETE FROM accounts WHERE id = $id AND kind = 'replay'`).run({ id });
  }

  rename(id: number, name: string): void {
    this.db.query('UPDATE accounts SET name = $name WHERE id = $id').run({ id, name });
  }

  byId(id: number): AccountRow | null {
    const r = this.db.query('SELECT * FROM accounts WHERE id = $id').get({ id }) as RawAccount | null;
    return r ? toAccount(r) : null;
  }

  /** The user's accounts, oldest first; `activeOnly` keeps those that can still trade. */
  listForUser(userId: number, activeOnly: boolean): AccountRow[] {
    const sql = activeOnly
      ? 'SELECT * FROM accounts WHERE user_id = $u AND active = 1 ORDER BY id'
      : 'SELECT * FROM accounts WHERE user_id = $u ORDER BY id';
    return (this.db.query(sql).all({ u: userId }) as RawAccount[]).map(toAccount);
  }

  setBalance(id: number, balanceCents: number): void {
    this.db.query('UPDATE accounts SET balance_cents = $b WHERE id = $id').run({ id, b: balanceCents });
  }

  setActive(id: number, active: boolean): void {
    this.db.query('UPDATE accounts SET active = $a WHERE id = $id').run({ id, a: active ? 1 : 0 });
  }
}
