// The journal: a user's replay sessions kept after they end, each with its statistics, its
// round-trip trades, its balance curve and the trader's notes (one on the session, one per trade).
// Statistics and trades come from the session's stored fills through the product's one fold
// (replay/results.ts over src/engine/results.ts), so the journal, the desk's end panel and the earlier
// family's Replay/end agree to the cent.
//
// A session is the user's own replay account with a session row, ended or live: the list shows ended
// sessions; a live one may be read and noted too (its closed trades never renumber: trades only
// append). Another user's session, or none, reads as `session_not_found`.

import { limits } from '../config.ts';
import { findInstrument, type Instrument } from '../domain/instrument.ts';
import type { RunStats, TradeRecord } from '../engine/results.ts';
import type { Clock } from '../lib/clock.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { AccountStore } from '../store/accounts.ts';
import { type JournalStore, SESSION_NOTE } from '../store/journal.ts';
import type { ReplayStore, SessionRow } from '../store/replay.ts';
import { foldFills, keepStats, sessionStats } from './replay/kept-results.ts';
import type { EquityPoint, SessionFold } from './replay/results.ts';

export type JournalReadError = { kind: 'session_not_found' };
/**
 * `invalid_note`: the request's fields are not a trade number (or null) and a text (the adapter's
 * parse step). `too_many_notes`: a new note past the session's or the user's count; `notes_full`:
 * the user's notes would hold more than their bytes (an edit counts its new text in place of its old).
 */
export type NoteError =
  | JournalReadError
  | { kind: 'trade_not_found' }
  | { kind: 'note_too_long' }
  | { kind: 'invalid_note' }
  | { kind: 'too_many_notes'; scope: 'session' | 'user'; max: number }
  | { kind: 'notes_full'; maxBytes: number };

export interface JournalEntry {
  session: SessionRow;
  inst: Instrument;
  accountName: string;
  stats: RunStats;
  /** The session's own note ('' when none). */
  note: string;
}

export interface JournalTrade {
  /** 1-based, oldest first: the number its note is kept under. */
  tradeNumber: number;
  trade: TradeRecord;
  note: string;
}

export interface JournalDetail extends JournalEntry {
  trades: JournalTrade[];
  /** The balance after each second with fills, from the start; thinned to `journalEquityPointsMax`. */
  equity: EquityPoint[];
}

export interface SavedNote {
  tradeNumber: number | null;
  text: string;
  updatedMs: number;
}

export class JournalService {
  constructor(
    private readonly sessions: ReplayStore,
    private readonly accounts: AccountStore,
    private readonly notes: JournalStore,
    private readonly clock: Clock,
  ) {}

  /** The user's ended sessions, most recently ended first, at most `journalSessionsListedMax`, with their kept statistics. */
  async list(userId: number): Promise<JournalEntry[]> {
    const rows = await this.sessions.endedOf(userId, limits.journalSessionsListedMax);
    const notes = await this.notes.sessionNotesOf(rows.map((r) => r.accountId));
    const out: JournalEntry[] = [];
    for (const row of rows) {
      const inst = instrumentOf(row);
      const account = await this.accounts.byId(row.accountId);
      const stats = await sessionStats(this.sessions, this.accounts, row);
      out.push({ session: row, inst, accountName: account?.name ?? '', stats, note: notes.get(row.accountId) ?? '' });
    }
    return out;
  }

  /** One session with its trades, curve and notes (the trades need the fold; an ended session keeps its statistics from it). */
  async detail(userId: number, accountId: number): Promise<Result<JournalDetail, JournalReadError>> {
    const row = await this.ownedSession(userId, accountId);
    if (!row) return err({ kind: 'session_not_found' });
    const { entry, fold } = await this.fold(row);
    await keepStats(this.sessions, row, fold.stats);
    const notes = new Map((await this.notes.notesOf(row.accountId)).map((n) => [n.tradeNumber, n.text]));
    const trades = fold.trades.map((trade, i) => ({ tradeNumber: i + 1, trade, note: notes.get(i + 1) ?? '' }));
    return ok({ ...entry, note: notes.get(SESSION_NOTE) ?? '', trades, equity: thinned(fold.equity, limits.journalEquityPointsMax) });
  }

  /**
   * Writes the note of the session (`tradeNumber` null) or of its n-th trade, whole; blank text
   * deletes it. Text over `journalNoteCharsMax` characters is refused, not cut.
   */
  async setNote(userId: number, accountId: number, tradeNumber: number | null, text: string): Promise<Result<SavedNote, NoteError>> {
    const row = await this.ownedSession(userId, accountId);
    if (!row) return err({ kind: 'session_not_found' });
    if ([...text].length > limits.journalNoteCharsMax) return err({ kind: 'note_too_long' });
    if (tradeNumber !== null) {
      // The trade count: an ended session's kept statistics say it without folding its fills.
      const trades = (await sessionStats(this.sessions, this.accounts, row)).totalTrades;
      if (!Number.isInteger(tradeNumber) || tradeNumber < 1 || tradeNumber > trades) return err({ kind: 'trade_not_found' });
    }
    const n = tradeNumber ?? SESSION_NOTE;
    const nowMs = this.clock.nowMs();
    if (text.trim() === '') {
      await this.notes.delete(row.accountId, n);
      return ok({ tradeNumber, text: '', updatedMs: nowMs });
    }
    const full = await this.quotaRefusal(userId, row.accountId, n, text);
    if (full) return err(full);
    await this.notes.put(row.accountId, n, text, nowMs);
    return ok({ tradeNumber, text, updatedMs: nowMs });
  }

  /** Why writing `text` as note `n` of the session would pass the user's bounds (counts, then bytes), or null. */
  private async quotaRefusal(userId: number, accountId: number, n: number, text: string): Promise<NoteError | null> {
    // Every note of the user's but the one this write replaces, so an edit counts its new text in place of its old.
    const others = await this.notes.usage(userId, accountId, n);
    const replacing = others.replaces;
    if (!replacing && others.inSession >= limits.journalNotesPerSessionMax) return { kind: 'too_many_notes', scope: 'session', max: limits.journalNotesPerSessionMax };
    if (!replacing && others.count >= limits.journalNotesPerUserMax) return { kind: 'too_many_notes', scope: 'user', max: limits.journalNotesPerUserMax };
    if (others.bytes + Buffer.byteLength(text, 'utf8') > limits.journalNoteBytesPerUserMax) return { kind: 'notes_full', maxBytes: limits.journalNoteBytesPerUserMax };
    return null;
  }

  /** The user's session (ended or live) by its account id; null for another user's, none, or a bad id. */
  async ownedSession(userId: number, accountId: number): Promise<SessionRow | null> {
    if (!Number.isSafeInteger(accountId)) return null;
    const row = await this.sessions.session(accountId);
    return row && row.userId === userId ? row : null;
  }

  /** A session's fills folded: its statistics, its first `journalTradesListedMax` trades and its curve. */
  async fold(row: SessionRow): Promise<{ entry: Omit<JournalEntry, 'note'>; fold: SessionFold }> {
    const inst = instrumentOf(row);
    const account = await this.accounts.byId(row.accountId);
    // Read a page at a time; the detail lists the first trades only (the statistics count them all).
    const fold = await foldFills(this.sessions, row.accountId, account?.balanceCents ?? limits.startingBalanceCents, row.startS, limits.journalTradesListedMax, true);
    return { entry: { session: row, inst, accountName: account?.name ?? '', stats: fold.stats }, fold };
  }
}

function instrumentOf(row: SessionRow): Instrument {
  const inst = findInstrument(row.symbol, 'all');
  // A session row names an instrument of the catalog it was started from; the catalog only grows.
  if (!inst) throw new Error(`session ${row.accountId} names unknown instrument ${row.symbol}`);
  return inst;
}

/** At most `max` points of a curve, evenly spaced, the first and the last always kept. */
export function thinned(points: EquityPoint[], max: number): EquityPoint[] {
  if (points.length <= max) return points;
  const out: EquityPoint[] = [];
  const stride = (points.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(points[Math.round(i * stride)]);
  return out;
}
