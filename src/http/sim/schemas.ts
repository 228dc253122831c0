// Current family: every endpoint's request and response schema, field rules and code table, beside
// the code tables (codes.ts). The handlers (auth.ts … position.ts) serve these; SIM_ENDPOINTS lists
// them for the API reference. Field rules (src/http/shared/endpoint.ts): `refuse` for the fields a
// service checks first, `defer` for the ones it checks after looking something up.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { ACCOUNT_SESSION, defineEndpoint, type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { loginKeyEndpoint, logoutEndpoint } from '../shared/auth-endpoints.ts';
import { ACCOUNT_NOT_FOUND, accountPost, endpoint, sessionPost } from '../shared/declare.ts';
import { payoutEndpoints } from '../shared/payout-routes.ts';
import { BARS_REQUEST, BARS_RULES, ChallengeAccountId, REPLAY_SPEED, replaySteps, START_RULES } from '../shared/requests.ts';
import {
  Account,
  AccountId,
  Bar,
  IsoTimeText,
  Maybe,
  Nullable,
  OrderSideValue,
  OrderStatusValue,
  OrderTypeValue,
  PositionTypeValue,
  STRICT,
} from '../shared/schemas.ts';
import * as codes from './codes.ts';
import { AccountSnapshot, Contract, FilledOrder, Order, Position, PropFirm, progressFields, snapshotFields, Trade } from './shapes.ts';

export * from './shapes.ts';

// ---- shared request pieces ----

const timeBounds = { startTimestamp: Maybe(IsoTimeText), endTimestamp: Maybe(IsoTimeText) };
const timeBoundRules = { startTimestamp: { defer: 'invalid_timestamp' }, endTimestamp: { defer: 'invalid_timestamp' } } as const;
const Bracket = Maybe(
  T.Object(
    { ticks: T.Union([T.Integer({ maximum: -1 }), T.Integer({ minimum: 1 })], { description: 'Distance from the entry price in ticks (sign ignored)' }) },
    { description: '`{ticks: N}`; the gateway\'s `type` is accepted and ignored' },
  ),
);

// ---- Auth ----

export const loginKey = loginKeyEndpoint('Logs in with an API key; the token is valid 24 hours', codes.loginKey);

export const validate = endpoint('POST /Auth/validate', 'bearer-row', 'Rotates the bearer token: the sent one is revoked, newToken is used thereafter', {
  response: okBody({ newToken: T.String() }),
  errors: codes.validate,
  errorFields: { newToken: T.Null() },
});

export const logout = logoutEndpoint('Revokes the bearer token (bearer only: the console\'s cookie has its own logout)', codes.none);

export const ping = endpoint('GET /Status/ping', 'none', 'Liveness: plain text `pong`', {
  produces: 'text',
  response: T.Literal('pong'),
  errors: codes.none,
});

// ---- Account, Contract ----

export const accountSearch = endpoint('POST /Account/search', 'bearer', 'Accounts of the user: live replay and challenge accounts first', {
  request: { onlyActiveAccounts: Maybe(T.Boolean()) },
  fields: { onlyActiveAccounts: { refuse: { kind: 'invalid_only_active' } } },
  response: okBody({ accounts: T.Array(Account) }),
  errors: codes.accountSearch,
});

const contractSearchSpec = {
  method: 'POST',
  auth: 'bearer',
  request: { searchText: Maybe(T.String({ description: 'Matches symbol, name and description; null or omitted returns all' })) },
  fields: { searchText: { refuse: { kind: 'invalid_search_text' } } },
  response: okBody({ contracts: T.Array(Contract, { maxItems: limits.contractSearchMax }) }),
  errors: codes.contractSearch,
} as const;

export const contractSearch = defineEndpoint({ ...contractSearchSpec, path: '/Contract/search', summary: 'Active contracts matching a text' });
export const contractAvailable = defineEndpoint({ ...contractSearchSpec, path: '/Contract/available', summary: 'Alias of Contract/search' });

export const contractSearchById = endpoint('POST /Contract/searchById', 'bearer', 'One contract by ID (matched on its symbol; `id` echoes the ID sent)', {
  request: { contractId: T.String() },
  fields: { contractId: { refuse: { kind: 'contract_not_found' } } },
  response: okBody({ contract: Contract }),
  errors: codes.contractById,
});

// ---- History ----

export const retrieveBars = endpoint('POST /History/retrieveBars', 'bearer', 'Historical bars, oldest first; `Accept: application/x-msgpack` gets msgpack', {
  produces: 'json+msgpack',
  request: {
    contractId: T.String(),
    ...BARS_REQUEST,
    endTime: Maybe(IsoTimeText),
    limit: Maybe(T.Integer({ minimum: 1, description: `Default and cap ${limits.historyBarsPerRequestMax}` })),
    includePartialBar: T.Optional(T.Boolean({ description: 'Accepted for compatibility; the trailing partial bar is always included' })),
  },
  fields: {
    contractId: { refuse: { kind: 'contract_not_found' } },
    ...BARS_RULES,
    limit: { defer: 'limit_invalid' },
    includePartialBar: { drop: true },
  },
  response: okBody({ bars: T.Array(Bar) }),
  errors: codes.retrieveBars,
});

// ---- Replay ----

/** An instrument of a replay session, as Replay/start names it. */
const SessionInstrument = T.Object({ name: T.String(), contractId: T.String(), tickSize: T.Number(), tickValue: T.Number() }, STRICT);

export const replayStart = endpoint('POST /Replay/start', 'bearer', 'Starts a replay session with its own account', {
  // The start limiter counts the call before any field is looked at: the service answers every field.
  request: {
    instrumentSymbol: Maybe(T.String({ description: 'Symbol; one of instrumentSymbol and contractId is required' })),
    contractId: Maybe(T.String({ description: 'ID from Contract/search' })),
    instrumentSymbols: Maybe(T.Array(T.String(), {
      description: `Extension: a session over several instruments (1 to ${limits.replayInstrumentsMax}) on one account and one clock; the first is the session's instrument (instrumentSymbol, if sent, must name it)`,
    })),
    startDate: Maybe(T.String({ description: 'YYYY-MM-DD (required)' })),
    endDate: Maybe(T.String({ description: 'YYYY-MM-DD, after startDate and at most 2 years past it' })),
    timeframe: Maybe(T.String({ description: 'Default 1s; grammar ^([1-9]\\d{0,4})(s|m|h|d|w|M|y)$' })),
    accountId: ChallengeAccountId,
  },
  fields: {
    instrumentSymbol: { defer: 'instrument_required' }, contractId: { defer: 'instrument_required' },
    instrumentSymbols: { defer: 'instruments_invalid' },
    ...START_RULES,
  },
  response: okBody({
    accountId: T.Integer(),
    sessionId: T.String(),
    totalBars: T.Integer(),
    historyBars: T.Integer(),
    instrument: SessionInstrument,
    instruments: T.Optional(T.Array(SessionInstrument, { description: 'Extension: every instrument, in the order asked (sessions started with instrumentSymbols only)' })),
  }),
  errors: codes.replayStart,
});

export const replayStep = sessionPost('/Replay/step', 'Plays the next bars (1 to 100) and returns them; msgpack on request', {
  produces: 'json+msgpack',
  ...replaySteps(limits.replayStepsMax),
  response: okBody({
    ...progressFields,
    bars: T.Array(Bar),
    barsByContract: T.Optional(T.Record(T.String(), T.Array(Bar), { description: "Extension: each instrument's bars by contract ID (sessions started with instrumentSymbols only)" })),
  }),
  errors: codes.replayAdvance,
});

export const replayJumpTo = sessionPost('/Replay/jumpTo', 'Processes every bar up to a time without returning them (forward only)', {
  request: { targetTime: IsoTimeText },
  fields: { targetTime: { defer: 'invalid_target_time' } },
  response: okBody(progressFields),
  errors: codes.replayAdvance,
});

export const replayPlay = sessionPost('/Replay/play', 'Plays bars on a timer: speed 1 = two bars a second', {
  ...REPLAY_SPEED,
  response: okBody({ playing: T.Literal(true), speed: T.Number() }),
  errors: codes.replayPlay,
});

export const replayPause = sessionPost('/Replay/pause', 'Stops playback', {
  response: okBody({ paused: T.Literal(true), account: AccountSnapshot, propFirm: Nullable(PropFirm) }),
  errors: codes.replaySession,
});

const instrumentChange = (path: string, summary: string) => sessionPost(path, summary, {
  request: { instrumentSymbol: Maybe(T.String({ description: 'Symbol of the instrument' })) },
  fields: { instrumentSymbol: { defer: 'instrument_required' } },
  response: okBody({ instruments: T.Array(SessionInstrument, { description: "The session's instruments after the change, in order" }) }),
  errors: codes.replayInstruments,
});

export const replayAddInstrument = instrumentChange(
  '/Replay/addInstrument',
  'Extension: adds an instrument to a session started with instrumentSymbols; it joins at the session\'s time',
);

export const replayRemoveInstrument = instrumentChange(
  '/Replay/removeInstrument',
  'Extension: removes an instrument (not the first) without a position or working order from a session started with instrumentSymbols',
);

export const replayBranch = sessionPost('/Replay/branch', "Extension: a new session whose state is exactly this session's at the close of a bar it has played", {
  description:
    'The new session starts at `time` with the orders, positions, balance, orders and fills history, challenge rule state and drawings the session had ' +
    'at that close, before any command sent at that time; the original is untouched. A challenge session\'s branch is practice (`practiceOf`): ' +
    "its rules are shown and applied on its own copy of their state, never the challenge's evaluation, and it never requests a payout.",
  request: { time: IsoTimeText },
  fields: { time: { defer: 'invalid_time' } },
  response: okBody({
    accountId: T.Integer({ description: "The new session's replay account" }),
    sessionId: T.String(),
    parentAccountId: T.Integer({ description: 'The session it was branched from' }),
    branchTime: T.String({ description: 'The bar close it left from (ISO 8601 UTC): its simulated now' }),
    currentIndex: T.Integer(),
    totalBars: T.Integer(),
    historyBars: T.Integer(),
    practiceOf: Nullable(T.Integer({ description: 'A practice branch of a challenge session: the challenge account whose rules it shows; null otherwise' })),
    account: AccountSnapshot,
    propFirm: Nullable(PropFirm),
  }),
  errors: codes.replayBranch,
});

export const replayEnd = sessionPost('/Replay/end', 'Flattens, cancels working orders, persists the balance and ends the session', {
  response: okBody({
    ended: T.Literal(true),
    account: T.Object({ ...snapshotFields, filledOrders: T.Array(FilledOrder) }, { ...STRICT, title: 'FinalSnapshot' }),
  }),
  errors: codes.replaySession,
});

// ---- Order ----

/** Order/place's fields before the brackets; the live profile's declaration adds its own after them. */
export const ORDER_REQUEST = {
  accountId: AccountId,
  contractId: T.String(),
  type: OrderTypeValue,
  side: OrderSideValue,
  size: T.Integer({ minimum: 1, maximum: limits.orderSizeMax }),
  limitPrice: Maybe(T.Number({ description: 'Required for types 1 and 3' })),
  stopPrice: Maybe(T.Number({ description: 'Required for types 3 and 4' })),
};

/** The rules of ORDER_REQUEST. The service checks size, then type and side, then the account: those three come first here too. */
export const ORDER_RULES = {
  size: { refuse: { kind: 'invalid_size' } },
  type: { refuse: { kind: 'invalid_type_or_side' } }, side: { refuse: { kind: 'invalid_type_or_side' } },
  accountId: { refuse: ACCOUNT_NOT_FOUND },
  contractId: { defer: 'contract_not_found' },
  limitPrice: { defer: 'price_required' }, stopPrice: { defer: 'price_required' },
} as const;

export const BRACKET_RULES = { stopLossBracket: { defer: 'invalid_bracket' }, takeProfitBracket: { defer: 'invalid_bracket' } } as const;

export const orderPlace = endpoint('POST /Order/place', 'bearer', 'Places an order in the account\'s live session', {
  session: ACCOUNT_SESSION,
  request: { ...ORDER_REQUEST, stopLossBracket: Bracket, takeProfitBracket: Bracket },
  fields: { ...ORDER_RULES, ...BRACKET_RULES },
  response: okBody({ orderId: T.Integer() }),
  errors: codes.placeOrder,
});

export const orderSearch = accountPost('/Order/search', 'Orders of the account, newest first, bounded by submission time (inclusive)', {
  request: timeBounds,
  fields: timeBoundRules,
  response: okBody({ orders: T.Array(Order, { maxItems: limits.orderSearchMax }) }),
  errors: codes.searchOrders,
});

export const orderSearchOpen = sessionPost('/Order/searchOpen', 'Working orders of the live session (status 1, fillVolume 0)', {
  response: okBody({ orders: T.Array(Order) }),
  errors: codes.searchOrders,
});

export const orderCancel = sessionPost('/Order/cancel', 'Cancels a working order', {
  request: { orderId: T.Integer() },
  fields: { orderId: { defer: 'order_not_found' } },
  response: okBody({}),
  errors: codes.cancelOrder,
});

export const orderModify = endpoint('POST /Order/modify', 'bearer', 'Unsupported in the simulator: cancel and place instead', {
  response: T.Never(),
  errors: codes.modifyOrder,
});

// ---- Position, Trade ----

export const positionSearchOpen = sessionPost('/Position/searchOpen', 'The open position of the account\'s live session (empty when flat)', {
  response: okBody({ positions: T.Array(Position) }),
  errors: codes.searchOrders,
});

export const positionClose = sessionPost('/Position/closeContract', 'Closes the whole position at market', {
  request: { contractId: T.String() },
  fields: { contractId: { defer: 'position_not_found' } },
  response: okBody({}),
  errors: codes.closePosition,
});

export const positionPartialClose = sessionPost('/Position/partialCloseContract', 'Closes part of the position at market', {
  request: { contractId: T.String(), size: T.Integer({ minimum: 1 }) },
  fields: { contractId: { defer: 'position_not_found' }, size: { defer: 'invalid_close_size' } },
  response: okBody({}),
  errors: codes.partialClosePosition,
});

export const tradeSearch = accountPost('/Trade/search', 'Fills of the account, newest first, bounded by fill time (inclusive)', {
  request: timeBounds,
  fields: timeBoundRules,
  response: okBody({ trades: T.Array(Trade, { maxItems: limits.tradeSearchMax }) }),
  errors: codes.searchOrders,
});

// ---- Payout ----

export const payout = payoutEndpoints(codes);

/** Every endpoint of the family, relative to its prefix (`/api/sim`, also served under `/api/sim/api`). */
export const SIM_ENDPOINTS: readonly EndpointInfo[] = [
  loginKey, validate, logout, ping,
  accountSearch, contractSearch, contractAvailable, contractSearchById, retrieveBars,
  replayStart, replayStep, replayJumpTo, replayPlay, replayPause, replayEnd, replayAddInstrument, replayRemoveInstrument, replayBranch,
  orderPlace, orderSearch, orderSearchOpen, orderCancel, orderModify,
  positionSearchOpen, positionClose, positionPartialClose, tradeSearch,
  payout.eligibility, payout.request, payout.history,
];
