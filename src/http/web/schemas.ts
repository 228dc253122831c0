// The web application's endpoints (`/api/auth/`): request and response schemas beside the code
// tables (codes.ts). WEB_ENDPOINTS lists them for the API reference.

import { Type as T } from '@sinclair/typebox';
import { SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import { defineEndpoint, type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { Nullable, RunResults, RunTrade, STRICT } from '../shared/schemas.ts';
import * as codes from './codes.ts';

export const WebUser = T.Object({ email: T.String(), plan: T.Union([T.Literal('free'), T.Literal('pro')]) }, { ...STRICT, title: 'WebUser' });

export const login = defineEndpoint({
  method: 'POST',
  path: '/login',
  // Not cookie-authenticated, but guarded like one: a cross-site login would sign the victim in as
  // the attacker (login CSRF).
  auth: 'web',
  summary: 'Signs in with email and password; sets the session cookie (rd_session)',
  request: { email: T.String(), password: T.String() },
  // The throttle counts the attempt before the fields are looked at: the service answers them.
  fields: { email: { defer: 'missing_credentials' }, password: { defer: 'missing_credentials' } },
  response: okBody({ user: WebUser }),
  errors: codes.login,
});

export const logout = defineEndpoint({
  method: 'POST',
  path: '/logout',
  auth: 'web',
  summary: 'Ends the session (if any) and clears the cookie; always succeeds',
  body: 'none',
  request: {},
  fields: {},
  response: okBody({}),
  errors: codes.none,
});

export const me = defineEndpoint({
  method: 'GET',
  path: '/me',
  auth: 'cookie',
  summary: 'The signed-in user',
  request: {},
  fields: {},
  response: okBody({ user: WebUser }),
  errors: codes.none,
});

export const apiKeyStatus = defineEndpoint({
  method: 'GET',
  path: '/api-key',
  auth: 'cookie',
  summary: 'Whether the user has an API key (the key itself is never shown again)',
  request: {},
  fields: {},
  response: okBody({ hasApiKey: T.Boolean(), userName: T.String({ description: 'The userName of Auth/loginKey' }) }),
  errors: codes.none,
});

export const apiKeyCreate = defineEndpoint({
  method: 'POST',
  path: '/api-key',
  auth: 'cookie',
  summary: 'Makes a new API key, shown once; the old key and every token it issued are revoked (Pro)',
  request: {},
  fields: {},
  response: okBody({ userName: T.String(), apiKey: T.String({ description: 'rdk_ + 43 base64url characters' }) }),
  errors: codes.none,
  otherErrors: [[403, SIM_PRO_REQUIRED]],
});

export const changePassword = defineEndpoint({
  method: 'POST',
  path: '/password',
  auth: 'cookie',
  summary: "Changes the signed-in user's password (the current one required); every other web session is signed out, this one stays",
  description: 'A wrong current password counts as a failed web login (the same throttle). API keys and the tokens they issued are not touched.',
  request: { currentPassword: T.String(), newPassword: T.String({ description: '8 to 256 characters' }) },
  fields: { newPassword: { refuse: { kind: 'invalid_new_password' } }, currentPassword: { refuse: { kind: 'wrong_password' } } },
  response: okBody({}),
  errors: codes.changePassword,
});

const lit = <const V extends string>(...vs: V[]) => T.Union(vs.map((v) => T.Literal(v)));

export const ChallengeOutcome = T.Object(
  {
    kind: lit('violation', 'pass', 'soft_breach'),
    rule: Nullable(lit('maxLossLimit', 'dailyLossLimit')),
    message: T.String(),
    time: T.String({ description: 'ISO 8601 UTC time of the deciding bar' }),
    phase: lit('evaluation', 'performance'),
  },
  { ...STRICT, title: 'ChallengeOutcome' },
);

export const ChallengeDetail = T.Object(
  {
    accountId: T.Integer(),
    name: T.String(),
    status: lit('active', 'passed', 'violated', 'ended'),
    phase: lit('evaluation', 'performance'),
    isFunded: T.Boolean(),
    plan: T.Object(
      { key: T.String(), size: lit('50K', '100K', '150K'), policy: lit('standard', 'consistency'), dailyLossMode: lit('hard', 'soft') },
      STRICT,
    ),
    startingBalance: T.Number(),
    balance: T.Number(),
    profit: T.Number({ description: 'Realized profit of the phase: balance − startingBalance' }),
    profitTarget: Nullable(T.Number({ description: 'Evaluation only' })),
    targetBalance: Nullable(T.Number({ description: 'startingBalance + profitTarget; evaluation only' })),
    trailingFloor: T.Number({ description: 'The maximum-loss floor, trailing end-of-day balance highs until locked' }),
    drawdownLocked: T.Boolean(),
    dailyLossLimit: T.Number(),
    dailyLossFloor: Nullable(T.Number({ description: "Today's day-start equity − dailyLossLimit; null before the first trade date or while paused" })),
    effectiveFloor: T.Number({ description: 'The higher of the two floors: where trading stops first' }),
    bestDay: T.Number({ description: 'Best trade date’s closed P&L in the phase' }),
    consistencyPct: T.Number({ description: 'To pass, bestDay must be below this percentage of profit' }),
    tradingDays: T.Integer(),
    minTradingDays: T.Integer(),
    maxContracts: T.Integer(),
    pausedForDay: T.Boolean({ description: 'A soft daily-loss breach paused trading until the next trade date' }),
    liveSession: T.Boolean({ description: 'A replay session is open on the account' }),
    lastSimulatedTime: Nullable(T.String()),
    outcome: Nullable(ChallengeOutcome),
  },
  { ...STRICT, title: 'ChallengeDetail' },
);

export const challenges = defineEndpoint({
  method: 'GET',
  path: '/challenges',
  auth: 'cookie',
  summary: "The user's challenge accounts with their rule figures (floors, target, best day, trading days) and outcome",
  request: {},
  fields: {},
  response: okBody({ challenges: T.Array(ChallengeDetail) }),
  errors: codes.none,
});

export const ChallengePlanInfo = T.Object(
  {
    key: T.String({ description: 'What POST /challenges takes, e.g. `50K-standard`' }),
    size: lit('50K', '100K', '150K'),
    policy: lit('standard', 'consistency'),
    dailyLossMode: lit('hard', 'soft'),
    startingBalance: T.Number(),
    profitTarget: T.Number({ description: 'Evaluation: realized profit to pass' }),
    maxLossLimit: T.Number({ description: 'The trailing floor starts this far below the starting balance' }),
    dailyLossLimit: T.Number(),
    maxContracts: T.Integer({ description: 'Largest net position in minis (micros count 1/10)' }),
    minTradingDays: T.Integer(),
    passConsistencyPct: T.Number({ description: 'To pass, the best day must be below this percentage of the profit' }),
    payout: T.Object(
      {
        requiredWinningDays: T.Integer(),
        winningDayMinProfit: T.Number(),
        minPayout: T.Number(),
        maxPayout: T.Number(),
        profitCapPct: T.Number({ description: 'A payout takes at most this percentage of the profit since the last one' }),
        consistencyPct: Nullable(T.Number()),
      },
      STRICT,
    ),
  },
  { ...STRICT, title: 'ChallengePlan' },
);

export const challengePlans = defineEndpoint({
  method: 'GET',
  path: '/challenge-plans',
  auth: 'cookie',
  summary: 'The challenge plans a user may start an evaluation on, with their rules, and how many evaluations the user has under way',
  request: {},
  fields: {},
  response: okBody({
    plans: T.Array(ChallengePlanInfo),
    activeEvaluations: T.Integer({ description: "The user's evaluations still active" }),
    activeEvaluationsMax: T.Integer({ description: 'The most one user may have active at once' }),
  }),
  errors: codes.none,
});

export const startEvaluation = defineEndpoint({
  method: 'POST',
  path: '/challenges',
  auth: 'cookie-pro',
  summary: 'Starts an evaluation on a plan for the signed-in user (at most 3 active at once); trade it from a replay session',
  request: { planKey: T.String({ description: 'From GET /challenge-plans' }) },
  fields: { planKey: { refuse: { kind: 'plan_not_found' } } },
  response: okBody({ challenge: ChallengeDetail }),
  errors: codes.startEvaluation,
  otherErrors: [[403, SIM_PRO_REQUIRED]],
});

export const DataRange = T.Object(
  {
    symbol: T.String({ description: 'The instrument symbol (`NQ`)' }),
    contractId: T.String({ description: 'The contract ID Contract/available answers for the instrument' }),
    firstDate: T.String({ description: 'First UTC day with data, YYYY-MM-DD' }),
    lastDate: T.String({ description: 'Last UTC day with data, YYYY-MM-DD (synthetic history joined with imported days)' }),
  },
  { ...STRICT, title: 'DataRange' },
);

export const dataRanges = defineEndpoint({
  method: 'GET',
  path: '/data-ranges',
  auth: 'cookie',
  summary: 'The days of data the server holds per instrument (what a replay may start on), for the console',
  request: {},
  fields: {},
  response: okBody({ instruments: T.Array(DataRange) }),
  errors: codes.none,
});

export const replayResults = defineEndpoint({
  method: 'GET',
  path: '/replay-results/:accountId',
  auth: 'cookie',
  summary: "A replay session's statistics from its fills (round-trip trades, win rate, averages, largest, profit factor, maximum drawdown), live or ended",
  description:
    "The earlier family's Replay/end `results`, for any of the user's replay or challenge accounts, at any time: the console shows them when a session ends and for ended sessions.",
  request: {},
  fields: {},
  response: okBody({ accountId: T.Integer(), name: T.String(), canTrade: T.Boolean(), results: RunResults }),
  errors: codes.replayResults,
});

export const SessionContract = T.Object(
  {
    id: T.String(),
    name: T.String(),
    description: T.String(),
    tickSize: T.Number(),
    tickValue: T.Number(),
    symbolId: T.String(),
  },
  { ...STRICT, title: 'SessionContract', description: 'As Contract/search lists it (without activeContract)' },
);

export const replaySessionInfo = defineEndpoint({
  method: 'GET',
  path: '/replay-sessions/:accountId',
  auth: 'cookie',
  summary: 'What a live replay session is: instrument, timeframe, span, clock, progress, chart history, playback, challenge',
  description:
    'Lets any browser open a session started elsewhere (another browser, a bot): the current family answers a session\'s progress and snapshot, not its instrument, span or timeframe. Times are ISO 8601 UTC; `currentTime` is the simulated now (the close of the last bar played).',
  request: {},
  fields: {},
  response: okBody({
    accountId: T.Integer(),
    name: T.String(),
    contract: SessionContract,
    timeframe: T.String({ description: 'Canonical, e.g. `1m`' }),
    startTime: T.String(),
    endTime: T.String(),
    currentTime: T.String(),
    currentIndex: T.Integer(),
    totalBars: T.Integer(),
    historyBars: T.Integer({ description: 'Bars before startTime Replay/start offered as chart history' }),
    playing: T.Boolean(),
    challenge: Nullable(T.Object({ accountId: T.Integer(), name: T.String() }, { ...STRICT, title: 'SessionChallenge', description: 'The challenge account the session trades for' })),
    startingBalance: Nullable(T.Number({ description: 'The balance before the first fill (null on a challenge session)' })),
  }),
  errors: codes.replaySession,
});


const journalSessionFields = {
  accountId: T.Integer(),
  name: T.String(),
  contract: SessionContract,
  timeframe: T.String({ description: 'Canonical, e.g. `1m`' }),
  startTime: T.String({ description: 'The span Replay/start was given (ISO 8601 UTC)' }),
  endTime: T.String(),
  currentTime: T.String({ description: 'Where the session stood when it ended (or stands): the simulated now' }),
  barsPlayed: T.Integer({ description: 'Bars played (currentIndex)' }),
  historyBars: T.Integer({ description: 'Bars before startTime Replay/start offered as chart history' }),
  status: lit('active', 'ended'),
  endedAt: Nullable(T.String({ description: 'Wall-clock time the session ended (ISO 8601 UTC)' })),
  endReason: Nullable(T.String({ description: '`ended` (Replay/end), `idle`, `violation`, …' })),
  challengeAccountId: Nullable(T.Integer({ description: 'The challenge account the session traded for' })),
  results: RunResults,
  note: T.String({ description: "The session's note ('' when none)" }),
};

export const JournalSession = T.Object(journalSessionFields, { ...STRICT, title: 'JournalSession' });

export const JournalTrade = T.Object(
  { tradeNumber: T.Integer({ minimum: 1, description: '1 for the oldest round trip' }), ...RunTrade.properties, note: T.String() },
  { ...STRICT, title: 'JournalTrade' },
);

export const EquityPoint = T.Object(
  { time: T.String({ description: 'ISO 8601 UTC' }), balance: T.Number({ description: 'USD, after the fills of that second' }) },
  { ...STRICT, title: 'EquityPoint' },
);

export const journal = defineEndpoint({
  method: 'GET',
  path: '/journal',
  auth: 'cookie',
  summary: "The user's ended replay sessions, most recently ended first (at most 50), with their statistics and notes",
  request: {},
  fields: {},
  response: okBody({ sessions: T.Array(JournalSession) }),
  errors: codes.none,
});

export const journalSession = defineEndpoint({
  method: 'GET',
  path: '/journal/:accountId',
  auth: 'cookie',
  summary: 'One replay session of the user (ended or live): statistics, round-trip trades with their notes, the balance curve',
  request: {},
  fields: {},
  response: okBody({ ...journalSessionFields, trades: T.Array(JournalTrade), equity: T.Array(EquityPoint, { description: 'The starting balance, then the balance after each second with fills (at most 2,000 points, evenly thinned)' }) }),
  errors: codes.journalSession,
});

export const journalNote = defineEndpoint({
  method: 'POST',
  path: '/journal/:accountId/note',
  auth: 'cookie',
  summary: "Writes the note of a session (tradeNumber null) or of its n-th trade; blank text deletes it",
  request: {
    tradeNumber: Nullable(T.Integer({ description: 'null: the session; n ≥ 1: its n-th round trip' })),
    text: T.String({ description: 'At most 4,000 characters' }),
  },
  fields: { tradeNumber: { refuse: { kind: 'invalid_note' } }, text: { refuse: { kind: 'invalid_note' } } },
  response: okBody({ tradeNumber: Nullable(T.Integer()), text: T.String(), updatedAt: T.String() }),
  errors: codes.journalNote,
});

export const HorizontalLine = T.Object({ price: T.Number({ description: "In the instrument's units; kept at the nearest tick" }) }, { title: 'HorizontalLine' });

export const TrendLine = T.Object(
  {
    startTime: T.String({ description: 'ISO 8601 UTC, the first end clicked' }),
    startPrice: T.Number(),
    endTime: T.String({ description: 'ISO 8601 UTC' }),
    endPrice: T.Number(),
  },
  { title: 'TrendLine' },
);

const drawingsBody = okBody({
  accountId: T.Integer(),
  horizontalLines: T.Array(T.Object(HorizontalLine.properties, STRICT)),
  trendLines: T.Array(T.Object(TrendLine.properties, STRICT)),
  updatedAt: Nullable(T.String({ description: 'When they were last written (ISO 8601 UTC); null when the session has none yet' })),
});

export const drawings = defineEndpoint({
  method: 'GET',
  path: '/replay-sessions/:accountId/drawings',
  auth: 'cookie',
  summary: "A replay session's chart drawings (horizontal and trend lines), live or ended: what any browser opening it shows",
  request: {},
  fields: {},
  response: drawingsBody,
  errors: codes.drawingsRead,
});

export const drawingsReplace = defineEndpoint({
  method: 'PUT',
  path: '/replay-sessions/:accountId/drawings',
  auth: 'cookie',
  summary: "Replaces a replay session's chart drawings with the lines sent (at most 200 in all; empty lists clear them)",
  description: 'Written whole: the last write wins. Prices are kept at the nearest tick of the instrument; times to the second.',
  request: { horizontalLines: T.Array(HorizontalLine), trendLines: T.Array(TrendLine) },
  fields: { horizontalLines: { refuse: { kind: 'invalid_drawings' } }, trendLines: { refuse: { kind: 'invalid_drawings' } } },
  response: drawingsBody,
  errors: codes.drawingsReplace,
});

/** Every endpoint of the family, relative to its prefix (`/api/auth`). */
export const WEB_ENDPOINTS: readonly EndpointInfo[] = [login, logout, me, apiKeyStatus, apiKeyCreate, challenges, dataRanges, replayResults, replaySessionInfo, journal, journalSession, journalNote, drawings, drawingsReplace, challengePlans, startEvaluation, changePassword];
