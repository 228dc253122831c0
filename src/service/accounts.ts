// The accounts a user sees through Account/search: replay-session accounts while they live and
// challenge accounts. Whether an account may trade is decided by its owner module (replay or
// challenge), which keeps the `active` flag current.

import type { AccountRow, AccountStore } from '../store/accounts.ts';

export interface AccountView {
  id: number;
  name: string;
  balanceCents: number;
  canTrade: boolean;
  kind: AccountRow['kind'];
}

export class AccountService {
  constructor(private readonly accounts: AccountStore) {}

  /** Active accounts first (so bots that take the first account get a live one), then by id. */
  search(userId: number, onlyActive: boolean): AccountView[] {
    const rows = this.accounts.listForUser(userId, onlyActive);
    const views = rows.map((r) => ({ id: r.id, name: r.name, balanceCents: r.balanceCents, canTrade: r.active, kind: r.kind }));
    return views.sort((a, b) => Number(b.canTrade) - Number(a.canTrade) || a.id - b.id);
  }

  /** The account if it belongs to the user. */
  owned(userId: number, accountId: unknown): AccountRow | null {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return null;
    const row = this.accounts.byId(accountId);
    return row && row.userId === userId ? row : null;
  }
}
