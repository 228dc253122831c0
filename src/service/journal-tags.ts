// Tags on a journal session or on one of its trades (`PUT /api/auth/journal/:id/tags`): a target's
// tags are written whole, case-folded, trimmed, deduplicated and sorted; an empty list clears them.
// Bounded like the notes: tags per target, tag rows per user, characters per tag.

import { limits } from '../config.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { Sql } from '../store/sql.ts';
import { type JournalTagStore, SESSION_TAGS } from '../store/journal-tags.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { ReplayStore } from '../store/replay.ts';
import type { JournalReadError, JournalService } from './journal.ts';
import { sessionStats } from './replay/kept-results.ts';

/**
 * `invalid_tags`: the request's fields are not a trade number (or null) and a list of strings (the
 * adapter's parse step); `invalid_tag`: one tag is empty, too long or holds a character tags may not.
 */
export type TagsError =
  | JournalReadError
  | { kind: 'trade_not_found' }
  | { kind: 'invalid_tags' }
  | { kind: 'invalid_tag'; tag: string }
  | { kind: 'too_many_tags'; max: number }
  | { kind: 'tags_full'; max: number };

/** A tag as kept and matched: trimmed, inner spaces single, lower case. */
export function tagKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Letters and digits, then letters, digits, spaces and `- _ . / # + &`. */
const TAG = /^[\p{L}\p{N}][\p{L}\p{N} _\-./#+&]*$/u;

/** The tags as kept (trimmed, inner spaces single, lower case, unique, sorted), or the first one refused. */
export function normalizeTags(raw: readonly string[]): Result<string[], { kind: 'invalid_tag'; tag: string }> {
  const out = new Set<string>();
  for (const r of raw) {
    const tag = tagKey(r);
    // The refusal quotes the tag as sent, cut to a little over the longest allowed.
    const quoted = [...r].length > limits.journalTagCharsMax + 8 ? `${[...r].slice(0, limits.journalTagCharsMax + 8).join('')}…` : r;
    if (tag === '' || [...tag].length > limits.journalTagCharsMax || !TAG.test(tag)) return err({ kind: 'invalid_tag', tag: quoted });
    out.add(tag);
  }
  return ok([...out].sort());
}

export class JournalTagService {
  constructor(
    private readonly journal: JournalService,
    private readonly sessions: ReplayStore,
    private readonly accounts: AccountStore,
    private readonly tags: JournalTagStore,
    private readonly sql: Sql,
  ) {}

  /** Replaces the tags of the session (`tradeNumber` null) or of its n-th trade; answers them as kept. */
  async setTags(userId: number, accountId: number, tradeNumber: number | null, raw: readonly string[]): Promise<Result<string[], TagsError>> {
    const row = await this.journal.ownedSession(userId, accountId);
    if (!row) return err({ kind: 'session_not_found' });
    if (tradeNumber !== null) {
      const trades = (await sessionStats(this.sessions, this.accounts, row)).totalTrades;
      if (!Number.isInteger(tradeNumber) || tradeNumber < 1 || tradeNumber > trades) return err({ kind: 'trade_not_found' });
    }
    const tags = normalizeTags(raw);
    if (!tags.ok) return tags;
    if (tags.value.length > limits.journalTagsPerTargetMax) return err({ kind: 'too_many_tags', max: limits.journalTagsPerTargetMax });
    const n = tradeNumber ?? SESSION_TAGS;
    return this.sql.transaction(async () => {
      const others = await this.tags.usage(userId, row.accountId, n);
      if (others + tags.value.length > limits.journalTagRowsPerUserMax) return err({ kind: 'tags_full', max: limits.journalTagRowsPerUserMax } as const);
      await this.tags.replace(row.accountId, n, tags.value);
      return ok(tags.value);
    });
  }

  /** The session tags of several sessions (the journal's list), by account id. */
  sessionTagsOf(accountIds: readonly number[]): Promise<Map<number, string[]>> {
    return this.tags.sessionTagsOf(accountIds);
  }

  /** Of the user's sessions, those carrying `tag` (case-folded) on the session or on a trade. */
  sessionsTagged(userId: number, tag: string): Promise<Set<number>> {
    return this.tags.sessionsTagged(userId, tagKey(tag));
  }
}
