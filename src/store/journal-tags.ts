// The journal's tags: labels on a replay session (trade number 0) and on each of its round-trip
// trades (trade number n ≥ 1, as the notes number them), kept case-folded, one row per tag. A
// target's tags are written whole. Tags go with their session's account (ReplayStore.deleteEnded).

import { SESSION_NOTE } from './journal.ts';
import type { Sql } from './sql.ts';

/** The trade number of a session's own tags (the notes' numbering). */
export const SESSION_TAGS = SESSION_NOTE;

export class JournalTagStore {
  constructor(private readonly db: Sql) {}

  /** Every tag of a session, by trade number (0: the session's own), each list sorted. */
  async tagsOf(accountId: number): Promise<Map<number, string[]>> {
    const rows = await this.db.all<{ trade_number: number; tag: string }>(
      'SELECT trade_number, tag FROM journal_tags WHERE account_id = $a ORDER BY trade_number, tag',
      { a: accountId },
    );
    const out = new Map<number, string[]>();
    for (const r of rows) {
      const n = Number(r.trade_number);
      const list = out.get(n);
      if (list) list.push(r.tag);
      else out.set(n, [r.tag]);
    }
    return out;
  }

  /** The session tags (trade number 0) of several sessions, by account id. */
  async sessionTagsOf(accountIds: readonly number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (accountIds.length === 0) return out;
    // Ids are integers the caller read from the store: safe to inline, and one statement on both backends.
    const rows = await this.db.all<{ account_id: number; tag: string }>(
      `SELECT account_id, tag FROM journal_tags WHERE trade_number = 0 AND account_id IN (${accountIds.map((id) => Math.trunc(id)).join(', ')}) ORDER BY account_id, tag`,
    );
    for (const r of rows) {
      const id = Number(r.account_id);
      out.set(id, [...(out.get(id) ?? []), r.tag]);
    }
    return out;
  }

  /** Of a user's sessions, those carrying `tag` on the session or on any of its trades. */
  async sessionsTagged(userId: number, tag: string): Promise<Set<number>> {
    const rows = await this.db.all<{ account_id: number }>(
      `SELECT DISTINCT t.account_id FROM journal_tags t JOIN replay_sessions s ON s.account_id = t.account_id
        WHERE s.user_id = $u AND t.tag = $tag`,
      { u: userId, tag },
    );
    return new Set(rows.map((r) => Number(r.account_id)));
  }

  /** How many tag rows the user's sessions hold, leaving out those of (`accountId`, `tradeNumber`), which a write replaces. */
  async usage(userId: number, accountId: number, tradeNumber: number): Promise<number> {
    const r = await this.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM journal_tags t JOIN replay_sessions s ON s.account_id = t.account_id
        WHERE s.user_id = $u AND NOT (t.account_id = $a AND t.trade_number = $t)`,
      { u: userId, a: accountId, t: tradeNumber },
    );
    return Number(r?.n ?? 0);
  }

  /** Replaces the tags of one target (the caller's transaction makes it one step). */
  async replace(accountId: number, tradeNumber: number, tags: readonly string[]): Promise<void> {
    await this.db.run('DELETE FROM journal_tags WHERE account_id = $a AND trade_number = $t', { a: accountId, t: tradeNumber });
    for (const tag of tags) {
      await this.db.run('INSERT INTO journal_tags (account_id, trade_number, tag) VALUES ($a, $t, $tag)', { a: accountId, t: tradeNumber, tag });
    }
  }
}
