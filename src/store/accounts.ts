// Trading accounts: replay-session accounts and challenge accounts. Balances are integer cents.

import type { Columns } from './columns.ts';
import type { Sql } from './sql.ts';

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

type RawAccount = Columns<AccountRow, { active: number }>;

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
  constructor(private readonly db: Sql) {}

  async insert(a: { userId: number; kind: AccountKind; name: string; balanceCents: number; nowMs: number }): Promise<AccountRow> {
    const r = (await this.db.get(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms)
         VALUES ($user_id, $kind, $name, $balance, 1, $now) RETURNING *`, { user_id: a.userId, kind: a.kind, name: a.name, balance: a.balanceCents, now: a.nowMs })) as RawAccount;
    return toAccount(r);
  }

  /** Deletes a replay account (its session, orders and fills deleted first, in the same transaction). */
  async deleteReplay(id: number): Promise<void> {
    await this.db.run(`DELETE FROM accounts WHERE id = $id AND kind = 'replay'`, { id });
  }

  async rename(id: number, name: string): Promise<void> {
    await this.db.run('UPDATE accounts SET name = $name WHERE id = $id', { id, name });
  }

  async byId(id: number): Promise<AccountRow | null> {
    const r = (await this.db.get('SELECT * FROM accounts WHERE id = $id', { id })) as RawAccount | null;
    return r ? toAccount(r) : null;
  }

  /** The user's accounts, oldest first; `activeOnly` keeps those that can still trade. */
  async listForUser(userId: number, activeOnly: boolean): Promise<AccountRow[]> {
    const sql = activeOnly
      ? 'SELECT * FROM accounts WHERE user_id = $u AND active = 1 ORDER BY id'
      : 'SELECT * FROM accounts WHERE user_id = $u ORDER BY id';
    return ((await this.db.all(sql, { u: userId })) as RawAccount[]).map(toAccount);
  }

  async setBalance(id: number, balanceCents: number): Promise<void> {
    await this.db.run('UPDATE accounts SET balance_cents = $b WHERE id = $id', { id, b: balanceCents });
  }

  async setActive(id: number, active: boolean): Promise<void> {
    await this.db.run('UPDATE accounts SET active = $a WHERE id = $id', { id, a: active ? 1 : 0 });
  }
}
