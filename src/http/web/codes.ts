// The web login (`/api/auth/`): (errorCode, errorMessage) per endpoint for every domain error kind.
// The spec leaves the route and its codes to us (Authentication 5, Errors 6; docs/decisions.md).

import { limits } from '../../config.ts';
import { accountNotFound, credentialRows, replaySessionRows } from '../shared/code-rows.ts';
import { type CodeTable, TOO_MANY_REQUESTS } from '../shared/code-table.ts';
import type { SessionError } from '../../service/replay/service.ts';
import type { SessionBarsError } from '../../service/session-bars.ts';
import type { StartEvaluationError } from '../../service/challenges.ts';
import type { DrawingsReadError, DrawingsWriteError } from '../../service/drawings.ts';
import type { JournalReadError, NoteError } from '../../service/journal.ts';
import type { ReviewError } from '../../service/journal-review.ts';
import type { TagsError } from '../../service/journal-tags.ts';
import type { ChangePasswordError, WebLoginError } from '../../service/web-auth.ts';

// No password set counts as wrong credentials here (credentialRows).
export const login: CodeTable<WebLoginError> = { ...credentialRows(1), rate_limited: TOO_MANY_REQUESTS };

/** Endpoints that answer no error row of their own. */
export const none: CodeTable<never> = {};

/** Another user's replay session, or none, reads as not found. */
const sessionNotFound: CodeTable<{ kind: 'session_not_found' }> = { session_not_found: [1, 'Replay session not found'] };

export const apiKeyProfile: CodeTable<{ kind: 'invalid_profile' }> = {
  invalid_profile: [1, 'profile must be "spec", "live" or null'],
};

/** GET /replay-results/:accountId: an account that is not the user's reads as not found. */
export const replayResults: CodeTable<{ kind: 'account_not_found' }> = accountNotFound;

/** GET /replay-sessions/:accountId: the current family's Replay rows for the same kinds. */
export const replaySession: CodeTable<SessionError> = replaySessionRows;

/** POST /replay-sessions/:accountId/bars: the session's rows, unreadable fields, and the console's own rate. */
export const replaySessionBars: CodeTable<SessionError | SessionBarsError | { kind: 'invalid_after' } | { kind: 'invalid_limit' } | { kind: 'invalid_symbol' }> = {
  ...replaySessionRows,
  invalid_after: [2, 'after must be an ISO 8601 time or null'],
  invalid_limit: [3, 'limit must be a positive integer or null'],
  invalid_symbol: [4, 'symbol must name an instrument of this session, or be null'],
  rate_limited: TOO_MANY_REQUESTS,
};

/** GET /journal/:accountId: another user's session, or none, reads as not found. */
export const journalSession: CodeTable<JournalReadError> = sessionNotFound;

/** POST /journal/:accountId/note. */
export const journalNote: CodeTable<NoteError> = {
  ...sessionNotFound,
  trade_not_found: [2, 'Trade not found'],
  invalid_note: [3, 'Invalid note: tradeNumber must be null or a trade number, text a string'],
  note_too_long: [3, `Note too long (at most ${limits.journalNoteCharsMax} characters)`],
  too_many_notes: [4, (e) => `At most ${e.max} notes per ${e.scope}; delete one first (an empty note deletes it)`, 'At most {max} notes per {session|user}; delete one first (an empty note deletes it)'],
  notes_full: [5, (e) => `Your notes would exceed ${e.maxBytes / 1024 / 1024} MB; delete or shorten some first`, 'Your notes would exceed {max} MB; delete or shorten some first'],
};

const badZone = [2, 'Unknown time zone: give an IANA name such as America/Chicago, or UTC'] as const;

/** GET /journal/:accountId/review. */
export const journalReview: CodeTable<ReviewError> = { ...sessionNotFound, invalid_time_zone: badZone };

/** GET /journal/review: across the listed sessions. */
export const journalSummary: CodeTable<{ kind: 'invalid_time_zone' }> = { invalid_time_zone: badZone };

/** PUT /journal/:accountId/tags: the tags replace the target's, or nothing changes. */
export const journalTags: CodeTable<TagsError> = {
  ...sessionNotFound,
  trade_not_found: [2, 'Trade not found'],
  invalid_tags: [3, 'Invalid tags: tradeNumber must be null or a trade number, tags a list of strings'],
  invalid_tag: [
    3,
    (e) => `Invalid tag ${JSON.stringify(e.tag)}: 1 to ${limits.journalTagCharsMax} letters, digits, spaces or - _ . / # + &, starting with a letter or digit`,
    `Invalid tag "{tag}": 1 to ${limits.journalTagCharsMax} letters, digits, spaces or - _ . / # + &, starting with a letter or digit`,
  ],
  too_many_tags: [4, (e) => `At most ${e.max} tags on a session or a trade`, 'At most {max} tags on a session or a trade'],
  tags_full: [5, (e) => `Your sessions would hold more than ${e.max} tags; remove some first`, 'Your sessions would hold more than {max} tags; remove some first'],
};

/** GET /replay-sessions/:accountId/drawings: another user's session, or none, reads as not found. */
export const drawingsRead: CodeTable<DrawingsReadError> = sessionNotFound;

/** PUT /replay-sessions/:accountId/drawings: the lines replace the session's, or nothing changes. */
export const drawingsReplace: CodeTable<DrawingsWriteError> = {
  ...sessionNotFound,
  invalid_drawings: [2, 'Invalid drawings: horizontalLines holds {price}, trendLines {startTime, startPrice, endTime, endPrice}; prices are finite numbers, times ISO 8601'],
  too_many_drawings: [3, `Too many drawings (at most ${limits.replayDrawingsMax} lines)`],
  invalid_rectangles: [4, 'Invalid drawings: rectangles holds {startTime, startPrice, endTime, endPrice}; prices are finite numbers, times ISO 8601'],
  invalid_rays: [5, 'Invalid drawings: rays holds {time, price}; prices are finite numbers, times ISO 8601'],
  invalid_fib_retracements: [6, 'Invalid drawings: fibRetracements holds {startTime, startPrice, endTime, endPrice}; prices are finite numbers and differ by at least a tick, times ISO 8601'],
  invalid_texts: [7, `Invalid drawings: texts holds {time, price, text}; text is 1 to ${limits.drawingTextCharsMax} characters, prices are finite numbers, times ISO 8601`],
  invalid_scope: [8, 'Invalid drawings: scope is "session" or "instrument"'],
  invalid_instrument_drawings: [9, 'Invalid drawings: instrumentDrawings is true or false'],
};

/** POST /challenges: a user starts an evaluation (docs/decisions.md, "Challenges"). */
export const startEvaluation: CodeTable<StartEvaluationError> = {
  plan_not_found: [1, 'Plan not found'],
  evaluations_limit: [2, (e) => `You have ${e.max} evaluations under way, the most one user may have: one must pass, fail or be ended before another starts`],
};

/** POST /password: the signed-in user changes their password. */
export const changePassword: CodeTable<ChangePasswordError> = {
  wrong_password: [1, 'The current password is wrong'],
  invalid_new_password: [2, `The new password needs ${limits.passwordLengthMin} to ${limits.passwordLengthMax} characters`],
  rate_limited: TOO_MANY_REQUESTS,
};
