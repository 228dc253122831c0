// The web application's endpoints (`/api/auth/`): request and response schemas beside the code
// tables (codes.ts). WEB_ENDPOINTS lists them for the API reference.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import { endpoint } from '../shared/declare.ts';
import { type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { Bar, IsoTimeText, Maybe, Nullable, RunResults, STRICT } from '../shared/schemas.ts';
import * as codes from './codes.ts';
import { ReviewStats, ReviewTrade } from './review-shapes.ts';

const ReviewTags = T.Array(T.String(), { maxItems: limits.journalTagsPerTargetMax, description: 'Lower case, sorted' });

/** The columns of GET /journal/:accountId/trades.csv, in order. */
export const JOURNAL_CSV_COLUMNS = [
  'tradeNumber', 'symbol', 'side', 'size', 'entryTime', 'entryPrice', 'exitTime', 'exitPrice', 'pnl', 'fees',
  'initialStop', 'rMultiple', 'mae', 'mfe', 'durationSeconds', 'tags', 'note',
] as const;
import { ApiKeyProfile, ApiKeyStatus, ChallengeDetail, ChallengePlans, DataRange, FibRetracement, HorizontalLine, HorizontalRay, JournalDetail, JournalSession, Rectangle, SessionDrawings, SessionInfo, SessionTrailingStop, TextNote, TrendLine, WebUser } from './shapes.ts';

export * from './shapes.ts';

// 'web': not cookie-authenticated, but guarded like one: a cross-site login would sign the victim in
// as the attacker (login CSRF).
export const login = endpoint('POST /login', 'web', 'Signs in with email and password; sets the session cookie (rd_session)', {
  request: { email: T.String(), password: T.String() },
  // The throttle counts the attempt before the fields are looked at: the service answers them.
  fields: { email: { defer: 'missing_credentials' }, password: { defer: 'missing_credentials' } },
  response: okBody({ user: WebUser }),
  errors: codes.login,
});

export const logout = endpoint('POST /logout', 'web', 'Ends the session (if any) and clears the cookie; always succeeds', {
  body: 'none',
  response: okBody({}),
  errors: codes.none,
});

export const me = endpoint('GET /me', 'cookie', 'The signed-in user', {
  response: okBody({ user: WebUser }),
  errors: codes.none,
});

export const apiKeyStatus = endpoint('GET /api-key', 'cookie', 'Whether the user has an API key (the key itself is never shown again)', {
  response: okBody(ApiKeyStatus.properties),
  errors: codes.none,
});

const ProfileChoice = Nullable(T.Union([T.Literal('spec'), T.Literal('live')], { description: 'spec, live, or null for the server\'s default' }));

export const apiKeyCreate = endpoint('POST /api-key', 'cookie', 'Makes a new API key, shown once; the old key and every token it issued are revoked (Pro)', {
  description: '`profile` chooses the new key\'s API profile (docs/gateway-profile.md); omitted, the new key keeps the old one\'s.',
  request: { profile: T.Optional(ProfileChoice) },
  fields: { profile: { refuse: { kind: 'invalid_profile' } } },
  response: okBody({ userName: T.String(), apiKey: T.String({ description: 'rdk_ + 43 base64url characters' }) }),
  errors: codes.apiKeyProfile,
  otherErrors: [[403, SIM_PRO_REQUIRED]],
});

export const apiKeyProfile = endpoint('GET /api-key/profile', 'cookie', 'The API profile of the current key (spec or live), and the server\'s default', {
  response: okBody(ApiKeyProfile.properties),
  errors: codes.none,
});

export const apiKeyProfileSet = endpoint('PUT /api-key/profile', 'cookie', 'Sets the current key\'s API profile; every token the key issued follows from its next request', {
  request: { profile: ProfileChoice },
  fields: { profile: { refuse: { kind: 'invalid_profile' } } },
  response: okBody(ApiKeyProfile.properties),
  errors: codes.apiKeyProfile,
});

export const changePassword = endpoint('POST /password', 'cookie', "Changes the signed-in user's password (the current one required); every other web session is signed out, this one stays", {
  description: 'A wrong current password counts as a failed web login (the same throttle). API keys and the tokens they issued are not touched.',
  request: { currentPassword: T.String(), newPassword: T.String({ description: '8 to 256 characters' }) },
  fields: { newPassword: { refuse: { kind: 'invalid_new_password' } }, currentPassword: { refuse: { kind: 'wrong_password' } } },
  response: okBody({}),
  errors: codes.changePassword,
});

export const challenges = endpoint('GET /challenges', 'cookie', "The user's challenge accounts with their rule figures (floors, target, best day, trading days) and outcome", {
  response: okBody({ challenges: T.Array(ChallengeDetail) }),
  errors: codes.none,
});

export const challengePlans = endpoint('GET /challenge-plans', 'cookie', 'The challenge plans a user may start an evaluation on, with their rules, and how many evaluations the user has under way', {
  response: okBody(ChallengePlans.properties),
  errors: codes.none,
});

export const startEvaluation = endpoint('POST /challenges', 'cookie-pro', 'Starts an evaluation on a plan for the signed-in user (at most 3 active at once); trade it from a replay session', {
  request: { planKey: T.String({ description: 'From GET /challenge-plans' }) },
  fields: { planKey: { refuse: { kind: 'plan_not_found' } } },
  response: okBody({ challenge: ChallengeDetail }),
  errors: codes.startEvaluation,
  otherErrors: [[403, SIM_PRO_REQUIRED]],
});

export const dataRanges = endpoint('GET /data-ranges', 'cookie', 'The days of data the server holds per instrument (what a replay may start on), for the console', {
  response: okBody({ instruments: T.Array(DataRange) }),
  errors: codes.none,
});

export const replayResults = endpoint('GET /replay-results/:accountId', 'cookie', "A replay session's statistics from its fills (round-trip trades, win rate, averages, largest, profit factor, maximum drawdown), live or ended", {
  description:
    "The earlier family's Replay/end `results`, for any of the user's replay or challenge accounts, at any time: the console shows them when a session ends and for ended sessions.",
  response: okBody({ accountId: T.Integer(), name: T.String(), canTrade: T.Boolean(), results: RunResults }),
  errors: codes.replayResults,
});

export const replaySessionInfo = endpoint('GET /replay-sessions/:accountId', 'cookie', 'What a live replay session is: instrument, timeframe, span, clock, progress, chart history, playback, challenge', {
  session: { path: 'accountId' },
  description:
    'Lets any browser open a session started elsewhere (another browser, a bot): the current family answers a session\'s progress and snapshot, not its instrument, span or timeframe. Times are ISO 8601 UTC; `currentTime` is the simulated now (the close of the last bar played).',
  response: okBody(SessionInfo.properties),
  errors: codes.replaySession,
});

export const replaySessionBars = endpoint('POST /replay-sessions/:accountId/bars', 'cookie', "A live replay session's bars up to its clock: the console's own read, on its own budget", {
  session: { path: 'accountId' },
  description:
    `The bars of the session's timeframe that open after \`after\` (from its chart history's start when null) and before its clock, at most \`limit\` (default and cap ${limits.consoleSessionBarsPerRequestMax}); ` +
    `\`complete\` is false when more follow. Never a bar past the session's clock. Its own rate limit (${limits.consoleSessionBarsRequestsPerWindowMax} a minute), apart from History's: ` +
    'the desk reads what a jump played without spending a bot\'s History requests. `currentTime` (the simulated now), `currentIndex` and `totalBars` are the session\'s as the bars were read.',
  request: {
    after: Maybe(IsoTimeText),
    limit: Maybe(T.Integer({ minimum: 1, description: `Default and cap ${limits.consoleSessionBarsPerRequestMax}` })),
    symbol: Maybe(T.String({ description: "A session over several instruments: the instrument whose bars are read (the session's first when null)" })),
  },
  fields: { after: { refuse: { kind: 'invalid_after' } }, limit: { refuse: { kind: 'invalid_limit' } }, symbol: { refuse: { kind: 'invalid_symbol' } } },
  response: okBody({ currentTime: T.String(), currentIndex: T.Integer(), totalBars: T.Integer(), complete: T.Boolean(), bars: T.Array(Bar) }),
  errors: codes.replaySessionBars,
});

export const replaySessionTrailingStops = endpoint('GET /replay-sessions/:accountId/trailing-stops', 'cookie', "A live replay session's working trailing stops, with their trail", {
  session: { path: 'accountId' },
  description:
    "The spec's order view (Order/searchOpen, the user hub's GatewayUserOrder as the console hears them) lists a trailing stop as a Stop at its current stop price; " +
    'the desk reads here which working orders trail and by how much, whoever placed them (the desk, another browser, a bot; a trailing stop-loss leg once its entry filled). Newest first.',
  response: okBody({ trailingStops: T.Array(SessionTrailingStop) }),
  errors: codes.replaySession,
});

export const journal = endpoint('GET /journal', 'cookie', "The user's ended replay sessions, most recently ended first (at most 50), with their statistics and notes", {
  response: okBody({ sessions: T.Array(JournalSession) }),
  errors: codes.none,
});

export const journalSession = endpoint('GET /journal/:accountId', 'cookie', 'One replay session of the user (ended or live): statistics, round-trip trades with their notes, the balance curve', {
  response: okBody(JournalDetail.properties),
  errors: codes.journalSession,
});

export const journalNote = endpoint('POST /journal/:accountId/note', 'cookie', "Writes the note of a session (tradeNumber null) or of its n-th trade; blank text deletes it", {
  description:
    `A user keeps at most ${limits.journalNotesPerSessionMax} notes on a session, ${limits.journalNotesPerUserMax} in all and ` +
    `${limits.journalNoteBytesPerUserMax / 1024 / 1024} MB of text (UTF-8); an edit counts its new text in place of its old, and deleting always works.`,
  request: {
    tradeNumber: Nullable(T.Integer({ description: 'null: the session; n ≥ 1: its n-th round trip' })),
    text: T.String({ description: 'At most 4,000 characters' }),
  },
  fields: { tradeNumber: { refuse: { kind: 'invalid_note' } }, text: { refuse: { kind: 'invalid_note' } } },
  response: okBody({ tradeNumber: Nullable(T.Integer()), text: T.String(), updatedAt: T.String() }),
  errors: codes.journalNote,
});

const zoneQuery = 'Query `timeZone`: the zone the hours of `byHour` are read in (an IANA name; UTC when absent).';

export const journalReview = endpoint('GET /journal/:accountId/review', 'cookie', "A session's trades reviewed (initial stop, R, MAE/MFE from the stored bars, time in trade, tags) and its statistics (expectancy, daily P&L, by weekday and hour)", {
  description: `${zoneQuery} The trades are the detail's (its first ${limits.journalTradesListedMax}).`,
  response: okBody({ accountId: T.Integer(), timeZone: T.String(), tags: ReviewTags, trades: T.Array(ReviewTrade, { maxItems: limits.journalTradesListedMax }), stats: ReviewStats }),
  errors: codes.journalReview,
});

export const journalSummary = endpoint('GET /journal/review', 'cookie', 'Statistics across the sessions the journal lists (expectancy, daily P&L, by weekday and hour), optionally of the trades carrying a tag', {
  description: `${zoneQuery} Query \`tag\`: only the trades carrying it, or whose session does. Excursions are per session only.`,
  response: okBody({ timeZone: T.String(), tag: Nullable(T.String()), sessions: T.Integer({ minimum: 0, description: 'Sessions with a trade counted' }), stats: ReviewStats }),
  errors: codes.journalSummary,
});

export const journalTags = endpoint('PUT /journal/:accountId/tags', 'cookie', 'Replaces the tags of a session (tradeNumber null) or of its n-th trade; an empty list clears them', {
  description:
    `Tags are kept trimmed, lower case, unique and sorted: 1 to ${limits.journalTagCharsMax} characters each, at most ${limits.journalTagsPerTargetMax} on a session or a trade, ` +
    `${limits.journalTagRowsPerUserMax.toLocaleString('en-US')} over all of a user's sessions. A refused write changes nothing.`,
  request: {
    tradeNumber: Nullable(T.Integer({ description: 'null: the session; n ≥ 1: its n-th round trip' })),
    tags: T.Array(T.String(), { maxItems: 100 }),
  },
  fields: { tradeNumber: { refuse: { kind: 'invalid_tags' } }, tags: { refuse: { kind: 'invalid_tags' } } },
  response: okBody({ tradeNumber: Nullable(T.Integer()), tags: ReviewTags }),
  errors: codes.journalTags,
});

export const journalTradesCsv = endpoint('GET /journal/:accountId/trades.csv', 'cookie', "A session's trades as CSV (RFC 4180), oldest first", {
  description:
    `\`text/csv\` with a header row \`${JOURNAL_CSV_COLUMNS.join(',')}\`, CRLF line ends, fields quoted when they hold a comma, a quote or a line break; ` +
    "times ISO 8601 UTC, prices decimal to the instrument's tick, money in USD. Errors answer JSON like every endpoint.",
  produces: 'csv',
  response: T.String({ pattern: `^${JOURNAL_CSV_COLUMNS.join(',')}\\r\\n` }),
  errors: codes.journalSession,
});

const drawingsBody = okBody(SessionDrawings.properties);

export const drawings = endpoint('GET /replay-sessions/:accountId/drawings', 'cookie', "A replay session's chart drawings, live or ended: its own and those the user keeps for its instrument; what any browser opening it shows", {
  response: drawingsBody,
  errors: codes.drawingsRead,
});

export const drawingsReplace = endpoint('PUT /replay-sessions/:accountId/drawings', 'cookie', "Replaces a replay session's chart drawings, and the user's drawings of its instrument, with those sent (at most 200 in all; empty lists clear them)", {
  description:
    'Written whole: the last write wins, for the session\'s own drawings and for those kept for its instrument (scope "instrument", shared by every session of this user on the instrument). ' +
    'rectangles, rays, fibRetracements and texts may be omitted: the session keeps those it has of an omitted kind. ' +
    'The instrument\'s drawings are replaced only when the request carries one (scope "instrument") or says instrumentDrawings: true (to clear them); otherwise they stay as they are. ' +
    'A write over 200 drawings in all is refused unless it holds no more than were kept (so one can always delete). Prices are kept at the nearest tick of the instrument; times to the second.',
  request: {
    horizontalLines: T.Array(HorizontalLine),
    trendLines: T.Array(TrendLine),
    rectangles: T.Optional(T.Array(Rectangle)),
    rays: T.Optional(T.Array(HorizontalRay)),
    fibRetracements: T.Optional(T.Array(FibRetracement)),
    texts: T.Optional(T.Array(TextNote)),
    instrumentDrawings: T.Optional(T.Boolean({ description: "true: the instrument's drawings are replaced by those sent with scope \"instrument\" (none: cleared); absent: replaced only when some are sent" })),
  },
  fields: {
    horizontalLines: { refuse: { kind: 'invalid_drawings' } },
    trendLines: { refuse: { kind: 'invalid_drawings' } },
    rectangles: { refuse: { kind: 'invalid_rectangles' } },
    rays: { refuse: { kind: 'invalid_rays' } },
    fibRetracements: { refuse: { kind: 'invalid_fib_retracements' } },
    texts: { refuse: { kind: 'invalid_texts' } },
    instrumentDrawings: { refuse: { kind: 'invalid_instrument_drawings' } },
  },
  response: drawingsBody,
  errors: codes.drawingsReplace,
});

/** Every endpoint of the family, relative to its prefix (`/api/auth`). */
export const WEB_ENDPOINTS: readonly EndpointInfo[] = [login, logout, me, apiKeyStatus, apiKeyCreate, apiKeyProfile, apiKeyProfileSet, challenges, dataRanges, replayResults, replaySessionInfo, replaySessionBars, replaySessionTrailingStops, journal, journalSession, journalNote, journalReview, journalSummary, journalTags, journalTradesCsv, drawings, drawingsReplace, challengePlans, startEvaluation, changePassword];
