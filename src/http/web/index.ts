// The web application's own endpoints (`/api/auth/`): the cookie login the Playground and the
// console rely on, the API-key settings, and the reads the console needs beside the simulator API
// (challenge figures, the days of data held, what a session is, its statistics, its drawings, the journal).

import type { Services } from '../../service/services.ts';
import { familyApp } from '../shared/family.ts';
import { registerApiKey } from './api-key.ts';
import { registerChallenges } from './challenges.ts';
import { registerDataRanges } from './data-ranges.ts';
import { registerDrawings } from './drawings.ts';
import { registerJournal } from './journal.ts';
import { registerJournalReview } from './journal-review.ts';
import { registerReplayResults } from './replay-results.ts';
import { registerReplaySessions } from './replay-sessions.ts';
import { registerWebAuth } from './auth.ts';

export function webAuthFamily(s: Services) {
  return familyApp('/api/auth', s, [
    registerWebAuth, registerApiKey, registerChallenges, registerDataRanges,
    registerReplayResults, registerReplaySessions, registerJournalReview, registerJournal, registerDrawings,
  ]);
}
