// The journal's notes: a trader's text on a replay session (trade number 0) and on each of its
// round-trip trades (trade number n ≥ 1: the n-th, oldest first). A note is written whole; an empty
// one is deleted. Notes go with their session's account (ReplayStore.deleteEnded deletes them).

import type { Sql } from './sql.ts';

/** The trade number of a session's own note. */
export const SESSION_NOTE = 0;

export interface NoteRow {
  tradeNumber: number;
  text: string;
  updatedMs: number;
}

export class JournalStore {
  constructor(private readonly db: Sql) {}

  /** Every note of a session, the session's first, then by trade number. */
  async notesOf(accountId: number): Promise<NoteRow[]> {
    const rows = await this.db.all<{ trade_number: number; text: string; updated_ms: number }>(
      'SELECT trade_number, text, updated_ms FROM journal_notes WHERE account_id = $a ORDER BY trade_number',
      { a: accountId },
    );
    return rows.map((r) => ({ tradeNumber: r.trade_number, text: r.text, updatedMs: r.updated_ms }));
  }

  /** The session notes (trade number 0) of several sessions, by account id. */
  async sessionNotesOf(accountIds: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (accountIds.length === 0) return out;
    // Ids are integers the caller read from the store: safe to inline, and one statement on both backends.
    const rows = await this.db.all<{ account_id: number; text: string }>(
      `SELECT account_id, text FROM journal_notes WHERE trade_number = 0 AND account_id IN (${accountIds.map((id) => Math.trunc(id)).join(', ')})`,
    );
    for (const r of rows) out.set(r.account_id, r.text);
    return out;
  }

  /**
   * What a user's notes hold, leaving out the note at (`accountId`, `tradeNumber`) (the one a write
   * replaces): notes in all, UTF-8 bytes of text, notes on that session, and whether that note exists.
   */
  async usage(userId: number, accountId: number, tradeNumber: number): Promise<{ count: number; bytes: number; inSession: number; replaces: boolean }> {
    const it = 'n.account_id = $a AND n.trade_number = $t';
    const r = await this.db.get<{ n: number; bytes: number; in_session: number; replaced: number }>(
      `SELECT COALESCE(SUM(CASE WHEN ${it} THEN 0 ELSE 1 END), 0) AS n,
              COALESCE(SUM(CASE WHEN ${it} THEN 0 ELSE octet_length(n.text) END), 0) AS bytes,
              COALESCE(SUM(CASE WHEN n.account_id = $a AND n.trade_number != $t THEN 1 ELSE 0 END), 0) AS in_session,
              COALESCE(SUM(CASE WHEN ${it} THEN 1 ELSE 0 END), 0) AS replaced
         FROM journal_notes n JOIN replay_sessions s ON s.account_id = n.account_id
        WHERE s.user_id = $u`,
      { u: userId, a: accountId, t: tradeNumber },
    );
    return { count: Number(r?.n ?? 0), bytes: Number(r?.bytes ?? 0), inSession: Number(r?.in_session ?? 0), replaces: Number(r?.replaced ?? 0) > 0 };
  }

  async put(accountId: number, tradeNumber: number, text: string, nowMs: number): Promise<void> {
    await this.db.run(
      `INSERT INTO journal_notes (account_id, trade_number, text, updated_ms) VALUES ($a, $n, $t, $now)
         ON CONFLICT (account_id, trade_number) DO UPDATE SET text = excluded.text, updated_ms = excluded.updated_ms`,
      { a: accountId, n: tradeNumber, t: text, now: nowMs },
    );
  }

  async delete(accountId: number, tradeNumber: number): Promise<void> {
    await this.db.run('DELETE FROM journal_notes WHERE account_id = $a AND trade_number = $n', { a: accountId, n: tradeNumber });
  }
}
