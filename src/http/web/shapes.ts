// The web application's wire shapes (`/api/auth/`): TypeBox values that schemas.ts builds its
// endpoints from, and that the console takes its types from (`import type` + `Static`). This module
// imports nothing of the server but the shared shapes, so the console's type check and bundle stay
// free of it (test/tidy.test.ts).

import { Type as T } from '@sinclair/typebox';
import { coreLimits as limits } from '../../core-limits.ts';
import { Nullable, RunResults, RunTrade, STRICT } from '../shared/schemas.ts';

export const WebUser = T.Object({ email: T.String(), plan: T.Union([T.Literal('free'), T.Literal('pro')]) }, { ...STRICT, title: 'WebUser' });

export const ApiKeyStatus = T.Object(
  { hasApiKey: T.Boolean(), userName: T.String({ description: 'The userName of Auth/loginKey' }) },
  { ...STRICT, title: 'ApiKeyStatus' },
);

/** An API key's profile (docs/gateway-profile.md): its own choice (null: the server's default) and the one in force. */
export const ApiKeyProfile = T.Object(
  {
    profile: Nullable(T.Union([T.Literal('spec'), T.Literal('live')], { description: 'The key\'s choice; null follows the server\'s API_PROFILE' })),
    serverDefault: T.Union([T.Literal('spec'), T.Literal('live')], { description: 'The server\'s API_PROFILE' }),
    effective: T.Union([T.Literal('spec'), T.Literal('live')], { description: 'The profile the key\'s tokens are answered under' }),
  },
  { ...STRICT, title: 'ApiKeyProfile' },
);

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

export const ChallengePlans = T.Object(
  {
    plans: T.Array(ChallengePlanInfo),
    activeEvaluations: T.Integer({ description: "The user's evaluations still active" }),
    activeEvaluationsMax: T.Integer({ description: 'The most one user may have active at once' }),
  },
  { ...STRICT, title: 'ChallengePlans' },
);

export const DataRange = T.Object(
  {
    symbol: T.String({ description: 'The instrument symbol (`NQ`)' }),
    contractId: T.String({ description: 'The contract ID Contract/available answers for the instrument' }),
    firstDate: T.String({ description: 'First UTC day with data, YYYY-MM-DD' }),
    lastDate: T.String({ description: 'Last UTC day with data, YYYY-MM-DD (synthetic history joined with imported days)' }),
  },
  { ...STRICT, title: 'DataRange' },
);

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

/** A branch's origin (Replay/branch): present only on a branch. */
export const SessionBranch = T.Object(
  {
    parentAccountId: T.Integer({ description: 'The session it was branched from' }),
    time: T.String({ description: 'The bar close it left from (ISO 8601 UTC)' }),
    practiceOf: Nullable(T.Integer({ description: 'A practice branch of a challenge session: the challenge account whose rules it shows (never its evaluation); null otherwise' })),
  },
  { ...STRICT, title: 'SessionBranch', description: 'Present only on a session made by Replay/branch' },
);

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
  tags: T.Array(T.String(), { maxItems: limits.journalTagsPerTargetMax, description: "The session's own tags (PUT /journal/:accountId/tags), lower case, sorted" }),
  branch: T.Optional(SessionBranch),
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

const SCOPE = {
  scope: T.Optional(
    T.String({
      description: '"session" (the default when absent): this session only; "instrument": every session of this user on this instrument, so the levels carry into the next day\'s session. Answered only when "instrument"',
    }),
  ),
};
const TWO_ENDS = {
  startTime: T.String({ description: 'ISO 8601 UTC, the first end clicked' }),
  startPrice: T.Number({ description: "In the instrument's units; kept at the nearest tick" }),
  endTime: T.String({ description: 'ISO 8601 UTC' }),
  endPrice: T.Number(),
};
const AT_POINT = { time: T.String({ description: 'ISO 8601 UTC' }), price: T.Number({ description: "In the instrument's units; kept at the nearest tick" }) };

export const HorizontalLine = T.Object({ price: T.Number({ description: "In the instrument's units; kept at the nearest tick" }), ...SCOPE }, { title: 'HorizontalLine' });

export const TrendLine = T.Object({ ...TWO_ENDS, ...SCOPE }, { title: 'TrendLine' });

export const Rectangle = T.Object({ ...TWO_ENDS, ...SCOPE }, { title: 'Rectangle', description: 'Two opposite corners' });

export const HorizontalRay = T.Object({ ...AT_POINT, ...SCOPE }, { title: 'HorizontalRay', description: 'A price from a bar on, extending right' });

export const FibRetracement = T.Object(
  { ...TWO_ENDS, ...SCOPE },
  { title: 'FibRetracement', description: 'From the start (the 100 % level) to the end (0 %); the console draws 0, 23.6, 38.2, 50, 61.8, 78.6 and 100 %. The two prices differ' },
);

export const TextNote = T.Object({ ...AT_POINT, text: T.String({ description: '1 to 200 characters, kept trimmed' }), ...SCOPE }, { title: 'TextNote' });

export const SessionDrawings = T.Object(
  {
    accountId: T.Integer(),
    horizontalLines: T.Array(T.Object(HorizontalLine.properties, STRICT)),
    trendLines: T.Array(T.Object(TrendLine.properties, STRICT)),
    rectangles: T.Array(T.Object(Rectangle.properties, STRICT)),
    rays: T.Array(T.Object(HorizontalRay.properties, STRICT)),
    fibRetracements: T.Array(T.Object(FibRetracement.properties, STRICT)),
    texts: T.Array(T.Object(TextNote.properties, STRICT)),
    updatedAt: Nullable(T.String({ description: 'When they were last written (ISO 8601 UTC); null when the session has none yet' })),
  },
  { ...STRICT, title: 'SessionDrawings' },
);

/** A working trailing stop of a live session (desk order tools): the spec's order view lists it as a Stop. */
export const SessionTrailingStop = T.Object(
  {
    orderId: T.Integer(),
    contractId: T.String(),
    trailTicks: T.Integer({ minimum: 1, description: 'The trail in ticks: the stop follows the best price reached by this distance' }),
    trailPrice: T.Number({ description: 'The trail in price (trailTicks × tick size)' }),
  },
  { ...STRICT, title: 'SessionTrailingStop' },
);

export const SessionInfo = T.Object(
  {
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
  historyStartTime: Nullable(T.String({
    description: 'Open time of the first of those bars (ISO 8601 UTC): History/retrieveBars from it to startTime answers them; null when historyBars is 0',
  })),
  playing: T.Boolean(),
  challenge: Nullable(T.Object({ accountId: T.Integer(), name: T.String() }, { ...STRICT, title: 'SessionChallenge', description: 'The challenge account the session trades for' })),
  startingBalance: Nullable(T.Number({ description: 'The balance before the first fill (null on a challenge session)' })),
  instruments: T.Optional(T.Array(SessionContract, {
    description: 'A session started with instrumentSymbols: every instrument, in the order started (`contract` is the first); absent for a session of one instrument started the spec\'s way',
  })),
  branch: T.Optional(SessionBranch),
  },
  { ...STRICT, title: 'SessionInfo' },
);

export const JournalDetail = T.Object(
  {
    ...journalSessionFields,
    historyStartTime: Nullable(T.String({
      description: 'Open time of the first chart-history bar (ISO 8601 UTC): History/retrieveBars from it to startTime answers the historyBars bars; null when there are none',
    })),
    trades: T.Array(JournalTrade, { maxItems: limits.journalTradesListedMax, description: `The first ${limits.journalTradesListedMax} round trips, oldest first; \`results.totalTrades\` counts them all` }),
    equity: T.Array(EquityPoint, { description: 'The starting balance, then the balance after each second with fills (at most 2,000 points, evenly thinned)' }),
  },
  { ...STRICT, title: 'JournalDetail' },
);
