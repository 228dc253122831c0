// The journal's data as the server states it (GET /api/auth/journal, /journal/:accountId, POST
// /journal/:accountId/note), and the reads of a past session's bars for its read-only chart.

import type { Static } from '@sinclair/typebox';
import type * as shapes from '../../../http/web/shapes.ts';
import { auth } from '../../api.ts';
import type { ApiBar } from '../../chart.ts';
import { loadHistory, loadPlayed, sessionMeta } from '../desk/model.ts';
import { NO_TRAILS } from '../desk/trailing.ts';

export type JournalSession = Static<typeof shapes.JournalSession>;
export type JournalTrade = Static<typeof shapes.JournalTrade>;
export type JournalDetail = Static<typeof shapes.JournalDetail>;

export async function loadJournal(): Promise<JournalSession[]> {
  return (await auth<{ sessions: JournalSession[] }>('GET', 'journal')).sessions;
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
