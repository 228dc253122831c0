// The journal's data as the server states it (GET /api/auth/journal, /journal/:accountId, POST
// /journal/:accountId/note), and the reads of a past session's bars for its read-only chart.

import type { Static } from '@sinclair/typebox';
import type * as shapes from '../../../http/web/shapes.ts';
import type * as review from '../../../http/web/review-shapes.ts';
import { timeZoneName } from '../../time-format.ts';
import { auth } from '../../api.ts';
import type { ApiBar } from '../../chart.ts';
import { loadHistory, loadPlayed, sessionMeta } from '../desk/model.ts';
import { NO_TRAILS } from '../desk/trailing.ts';

export type JournalSession = Static<typeof shapes.JournalSession>;
export type JournalTrade = Static<typeof shapes.JournalTrade>;
export type JournalDetail = Static<typeof shapes.JournalDetail>;
export type ReviewTrade = Static<typeof review.ReviewTrade>;
export type ReviewStats = Static<typeof review.ReviewStats>;
export interface SessionReview {
  accountId: number;
  timeZone: string;
  tags: string[];
  trades: ReviewTrade[];
  stats: ReviewStats;
}
export interface JournalSummary {
  timeZone: string;
  tag: string | null;
  sessions: number;
  stats: ReviewStats;
}

const zoneQuery = () => `timeZone=${encodeURIComponent(timeZoneName())}`;

/** The ended sessions, or those carrying `tag` (on the session or a trade). */
export async function loadJournal(tag = ''): Promise<JournalSession[]> {
  return (await auth<{ sessions: JournalSession[] }>('GET', tag ? `journal?tag=${encodeURIComponent(tag)}` : 'journal')).sessions;
}

/** A session's trades reviewed (R, MAE/MFE, time in trade, tags) and its statistics, hours in the chosen zone. */
export function loadReview(accountId: number): Promise<SessionReview> {
  return auth<SessionReview>('GET', `journal/${accountId}/review?${zoneQuery()}`);
}

/** The statistics across the listed sessions, or of the trades carrying `tag`. */
export function loadSummary(tag = ''): Promise<JournalSummary> {
  return auth<JournalSummary>('GET', `journal/review?${zoneQuery()}${tag ? `&tag=${encodeURIComponent(tag)}` : ''}`);
}

/** Replaces the tags of the session (tradeNumber null) or of a trade; answers them as kept. */
export async function saveTags(accountId: number, tradeNumber: number | null, tags: string[]): Promise<string[]> {
  return (await auth<{ tags: string[] }>('PUT', `journal/${accountId}/tags`, { tradeNumber, tags })).tags;
}

/** Where the session's trades download as CSV. */
export const csvHref = (accountId: number) => `/api/auth/journal/${accountId}/trades.csv`;

/** A price with the tick's decimals (an average between ticks keeps its own). */
export function tickPrice(price: number | null, tickSize: number): string {
  if (price === null) return '—';
  const s = String(tickSize);
  const decimals = s.includes('e-') ? Number(s.split('e-')[1]) : s.includes('.') ? s.length - s.indexOf('.') - 1 : 0;
  const fixed = price.toFixed(decimals);
  return Number(fixed) === price ? fixed : String(price);
}

/** A time in trade as `45s`, `12m 05s`, `3h 04m`, `2d 03h`. */
export function duration(seconds: number): string {
  const p = (n: number) => String(n).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${p(seconds % 60)}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${p(Math.floor((seconds % 3600) / 60))}m`;
  return `${Math.floor(seconds / 86_400)}d ${p(Math.floor((seconds % 86_400) / 3600))}h`;
}

export function loadJournalSession(accountId: number): Promise<JournalDetail> {
  return auth<JournalDetail>('GET', `journal/${accountId}`);
}

/** Writes a note whole (tradeNumber null: the session's); blank deletes it. Answers the text kept. */
export async function saveNote(accountId: number, tradeNumber: number | null, text: string): Promise<string> {
  return (await auth<{ text: string }>('POST', `journal/${accountId}/note`, { tradeNumber, text })).text;
}

/** The bars the session showed: its chart history, then every bar it played (up to 100,000). */
export async function loadSessionBars(d: JournalDetail): Promise<ApiBar[]> {
  const meta = sessionMeta(d, { startingBalance: null, challengeAccountId: d.challengeAccountId, challengeName: null, brackets: {}, trailing: NO_TRAILS });
  const [history, played] = await Promise.all([loadHistory(meta), loadPlayed(meta, null, d.barsPlayed)]);
  return [...history, ...played];
}

/** Why a session ended, in words. */
export function endWords(reason: string | null): string {
  switch (reason) {
    case 'ended':
      return 'ended by the trader';
    case 'idle':
      return 'ended after an hour idle';
    case 'violation':
      return 'ended by a rule violation';
    case 'pass':
      return 'ended: the evaluation passed';
    case 'unrestorable':
      return 'ended: could not be restored after a restart';
    case null:
      return '';
    default:
      return `ended: ${reason}`;
  }
}
