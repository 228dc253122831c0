// The accounts a user sees through Account/search: replay-session accounts while they live and
// challenge accounts. Whether an account may trade is decided by its owner module (replay or
// challenge), which keeps the `active` flag current.

import { limits } from '../config.ts';
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

  /**
   * Active accounts first (so bots that take the first account get a live one), then by id. Of the
   * ended replay accounts only the newest `endedReplayAccountsListedMax` are listed: a bot starting
   * sessions all day would otherwise get an ever longer answer.
   */
  async search(userId: number, onlyActive: boolean): Promise<AccountView[]> {
    const rows = await this.accounts.listForUser(userId, onlyActive);
    const endedReplay = rows.filter((r) => r.kind === 'replay' && !r.active);
    const dropped = new Set(endedReplay.slice(0, Math.max(0, endedReplay.length - limits.endedReplayAccountsListedMax)));
    const views = rows
      .filter((r) => !dropped.has(r))
      .map((r) => ({ id: r.id, name: r.name, balanceCents: r.balanceCents, canTrade: r.active, kind: r.kind }));
    return views.sort((a, b) => Number(b.canTrade) - Number(a.canTrade) || a.id - b.id);
  }

  /** The account if it belongs to the user (an id that is no whole number names none). */
  async owned(userId: number, accountId: number): Promise<AccountRow | null> {
    if (!Number.isInteger(accountId)) return null;
    const row = await this.accounts.byId(accountId);
    return row && row.userId === userId ? row : null;
  }
}
