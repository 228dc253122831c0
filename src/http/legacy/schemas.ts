// The earlier family: every endpoint's request and response schema, field rules and code table,
// beside the code tables (codes.ts, trading-codes.ts). The handlers (auth.ts … trade.ts, payout.ts)
// serve these; LEGACY_ENDPOINTS lists them for the API reference. Shapes not listed in the spec's
// "Earlier family differences" are the current family's (Account, Bar, payouts, the enums).
// Field rules (src/http/shared/endpoint.ts): `refuse` for the fields checked before anything else,
// `defer` for the ones this adapter or a service checks later, in the order they check them (this
// family checks several fields in the adapter before the service runs: brackets and size before the
// contract, the contract before the account).

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { ACCOUNT_SESSION, type EndpointInfo, okBody } from '../shared/endpoint.ts';
import { loginKeyEndpoint, logoutEndpoint } from '../shared/auth-endpoints.ts';
import { accountPost, endpoint, sessionPost } from '../shared/declare.ts';
import { payoutEndpoints } from '../shared/payout-routes.ts';
import { BARS_REQUEST, BARS_RULES, ChallengeAccountId, REPLAY_SPEED, replaySteps, START_RULES } from '../shared/requests.ts';
import {
  Account,
  AccountId,
  accountContract,
  Bar,
  IsoTimeText,
  Maybe,
  Nullable,
  OrderSideValue,
  OrderStatusValue,
  OrderTypeValue,
  PositionTypeValue,
  RunResults,
  STRICT,
} from '../shared/schemas.ts';
import * as codes from './codes.ts';
import { LEGACY_POLICY } from './policy.ts';
import { parseLegacyId } from './present-trading.ts';
import * as trading from './trading-codes.ts';

// ---- resources ----

export const LegacyContract = T.Object(
  {
    id: T.String({ description: 'Contract ID, CON.F.US.{symbol}.{monthYear}, with this family\'s symbol (CON.F.US.CL.J25)' }),
    name: T.String({ description: 'Short symbol (CL)' }),
    description: T.String(),
    tickSize: T.Number(),
    tickValue: T.Number({ description: 'USD per tick per contract' }),
    contractSize: T.Number({ description: 'Multiplier: USD per 1.0 of price' }),
  },
  { ...STRICT, title: 'Contract' },
);

/** A string ID `"<replay account id>-<engine id>"` as this family answers it. */
const LegacyId = (what: string) => T.String({ description: `${what} ID, "<replay account id>-<number>"`, pattern: '^\\d+-\\d+$' });
/** An order ID as sent: any string (one that names no order of the caller's is `Order not found`). */
const OrderIdInput = T.String({ description: 'Order ID from Order/place or Order/search, "<replay account id>-<number>"' });

export const LegacyOrder = T.Object(
  {
    id: LegacyId('Order'),
    ...accountContract,
    type: OrderTypeValue,
    side: OrderSideValue,
    size: T.Integer(),
    limitPrice: Nullable(T.Number()),
    stopPrice: Nullable(T.Number()),
    status: OrderStatusValue,
    fillPrice: Nullable(T.Number()),
    filledSize: T.Integer(),
    createdAt: T.String({ description: 'ISO 8601 submission time (simulated)' }),
  },
  { ...STRICT, title: 'Order' },
);

export const LegacyPosition = T.Object(
  {
    ...accountContract,
    type: PositionTypeValue,
    size: T.Integer(),
    averagePrice: T.Number(),
  },
  { ...STRICT, title: 'Position' },
);

export const LegacyTrade = T.Object(
  {
    id: LegacyId('Fill'),
    orderId: LegacyId('Order'),
    ...accountContract,
    side: OrderSideValue,
    size: T.Integer(),
    price: T.Number(),
    timestamp: T.String({ description: 'ISO 8601 fill time (simulated)' }),
  },
  { ...STRICT, title: 'Trade' },
);

/** Where a replay stands (Replay/step and Replay/jumpTo). */
const replayPosition = {
  currentBar: T.Integer({ minimum: -1, description: '0-based index of the last bar played; -1 before the first' }),
  totalBars: T.Integer(),
  complete: T.Boolean({ description: 'True when every bar has been played (or a challenge outcome ended the session)' }),
};

// ---- shared request pieces ----

/** Order/cancel and Order/modify name the session by the order ID's account (`<replay account id>-<order id>`). */
const ORDER_ID_SESSION = { body: 'orderId', account: (id: unknown) => parseLegacyId(id)?.accountId } as const;
const SIZE = `Contracts: a whole number from 1 to ${limits.orderSizeMax}`;
const INVALID_SIZE = { kind: 'invalid_size' } as const;
/** Sizes: not a number > 0 is `Size must be greater than 0`; a fraction and a size over the bound have rows of their own. */
const Size = T.Number({ exclusiveMinimum: 0, description: SIZE });

// ---- Auth, Status ----

export const loginKey = loginKeyEndpoint('Logs in with an API key; the token is valid 24 hours (shared with the current family)', codes.loginKey);

export const validate = endpoint('POST /Auth/validate', 'bearer-row', 'Checks the bearer token: `token` is the same token, or a fresh one when less than an hour is left', {
  response: okBody({ token: T.String() }),
  errors: codes.validate,
  errorFields: { token: T.Null() },
});

export const logout = logoutEndpoint('Revokes the bearer token', codes.none);

export const ping = endpoint('GET /Status/ping', 'none', 'Liveness: a JSON envelope with `message` pong', {
  response: okBody({ message: T.Literal('pong') }),
  errors: codes.none,
});

// ---- Account, Contract ----

export const accountSearch = endpoint('POST /Account/search', 'bearer', 'Accounts of the user: live replay and challenge accounts first', {
  request: { onlyActiveAccounts: Maybe(T.Boolean({ description: 'Default false; true returns only active accounts' })) },
  fields: { onlyActiveAccounts: { refuse: { kind: 'only_active_not_boolean' } } },
  response: okBody({ accounts: T.Array(Account) }),
  errors: codes.accountSearch,
});

export const contractSearch = endpoint('POST /Contract/search', 'bearer', 'Every contract matching a text (no cap)', {
  request: { searchText: Maybe(T.String({ description: 'Matches symbol, description and contract ID; null or omitted returns all' })) },
  fields: { searchText: { refuse: { kind: 'search_text_not_string' } } },
  response: okBody({ contracts: T.Array(LegacyContract) }),
  errors: codes.contractSearch,
});

export const contractSearchById = endpoint('POST /Contract/searchById', 'bearer', 'One contract by ID (any month, or a symbol) as a one-element `contracts` array; `id` echoes the ID sent', {
  request: { contractId: T.String() },
  fields: { contractId: { refuse: { kind: 'contract_not_found' } } },
  response: okBody({ contracts: T.Array(LegacyContract, { minItems: 1, maxItems: 1 }) }),
  errors: codes.contractSearchById,
});

// ---- History ----

export const retrieveBars = endpoint('POST /History/retrieveBars', 'bearer', 'Historical bars, oldest first; `barsBack` counts back from endTime; `Accept: application/x-msgpack` gets msgpack', {
  produces: 'json+msgpack',
  request: {
    contractId: T.String({ description: 'This family\'s contract ID (or symbol)' }),
    ...BARS_REQUEST,
    endTime: Maybe(T.String({ description: 'ISO 8601 time; default the replay time of the user\'s live session, else the end of the data' })),
    barsBack: Maybe(
      T.Integer({ minimum: 1, description: 'The last barsBack bars before endTime (not with startTime); capped by instrument and timeframe' }),
    ),
  },
  // barsBack is checked before anything else; the rest by the service, in its order.
  fields: {
    barsBack: { refuse: { kind: 'bars_back_invalid' } },
    contractId: { defer: 'contract_not_found' },
    ...BARS_RULES,
  },
  response: okBody({ bars: T.Array(Bar) }),
  errors: trading.retrieveBars,
});

// ---- Replay ----

export const replayStart = endpoint('POST /Replay/start', 'bearer', 'Starts a replay session (one per user) with its own account, over a span of trade dates', {
  request: {
    instrumentSymbol: T.String({ description: 'This family\'s symbol: NQ, ES, MNQ, MES, GC, CL, EURUSD' }),
    startDate: Maybe(T.String({ description: 'YYYY-MM-DD trade date (required)' })),
    endDate: Maybe(T.String({ description: 'YYYY-MM-DD trade date, not before startDate, at most 2 years past it; default startDate' })),
    timeframe: T.Union(['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1D'].map((v) => T.Literal(v)), { description: 'Case-sensitive' }),
    accountId: ChallengeAccountId,
  },
  // Checked by this adapter (instrument, startDate present, timeframe), then by the service.
  fields: {
    instrumentSymbol: { defer: 'instrument_required' },
    ...START_RULES,
  },
  response: okBody({
    ...accountContract,
    totalBars: T.Integer(),
    startTime: T.String({ description: 'ISO 8601 start of the span (session open of startDate, clipped to the data)' }),
    endTime: T.String({ description: 'ISO 8601 end of the span (session close of endDate, clipped to the data)' }),
  }),
  errors: trading.replayStart,
});

export const replayStep = sessionPost('/Replay/step', `Plays the next bars (1 to ${LEGACY_POLICY.stepsMax}) and returns them; msgpack on request`, {
  produces: 'json+msgpack',
  ...replaySteps(LEGACY_POLICY.stepsMax),
  response: okBody({ ...replayPosition, bars: T.Array(Bar) }),
  errors: trading.replayAdvance,
});

export const replayJumpTo = sessionPost('/Replay/jumpTo', 'Processes every bar up to a time without returning them (forward only)', {
  request: { timestamp: IsoTimeText },
  fields: { timestamp: { defer: 'invalid_target_time' } },
  response: okBody(replayPosition),
  errors: trading.replayAdvance,
});

export const replayPlay = sessionPost('/Replay/play', 'Plays bars on a timer: speed 1 is real time (one bar per bar width)', {
  ...REPLAY_SPEED,
  response: okBody({}),
  errors: trading.replayPlay,
});

export const replayPause = sessionPost('/Replay/pause', 'Stops playback', {
  response: okBody({}),
  errors: trading.replaySession,
});

export const replayEnd = sessionPost('/Replay/end', 'Flattens, cancels working orders, ends the session and returns its results', {
  response: okBody({ results: RunResults }),
  errors: trading.replaySession,
});

// ---- Order ----

const NoBracket = T.Optional(T.Null({ description: 'Not supported: any value is refused; place protective orders separately' }));

export const orderPlace = endpoint('POST /Order/place', 'bearer', 'Places an order in the account\'s live session', {
  session: ACCOUNT_SESSION,
  request: {
    accountId: AccountId,
    contractId: T.String(),
    type: OrderTypeValue,
    side: OrderSideValue,
    size: Size,
    limitPrice: Maybe(T.Number({ description: 'Required for types 1 and 3; on this family\'s tick grid' })),
    stopPrice: Maybe(T.Number({ description: 'Required for types 3 and 4; on this family\'s tick grid' })),
    stopLossBracket: NoBracket,
    takeProfitBracket: NoBracket,
  },
  // This adapter checks brackets, size, the contract and the price grid; the service then size, type
  // and side, the account, and missing prices.
  fields: {
    stopLossBracket: { refuse: { kind: 'brackets_unsupported' } }, takeProfitBracket: { refuse: { kind: 'brackets_unsupported' } },
    size: { refuse: INVALID_SIZE },
    contractId: { defer: 'contract_not_found' },
    limitPrice: { defer: 'price_required' }, stopPrice: { defer: 'price_required' },
    type: { defer: 'invalid_type_or_side' }, side: { defer: 'invalid_type_or_side' },
    accountId: { defer: 'account_not_found' },
  },
  response: okBody({
    orderId: LegacyId('Order'),
    // The status right after placement: 2 for an order filled at once, 6 for a resting one.
    orderStatus: OrderStatusValue,
  }),
  errors: trading.placeOrder,
});

const orderList = { orders: T.Array(LegacyOrder, { maxItems: limits.orderSearchMax }) };

export const orderSearch = accountPost('/Order/search', `Orders of the account, newest first (the ${limits.orderSearchMax} newest)`, {
  response: okBody(orderList),
  errors: trading.searchOrders,
});

export const orderSearchOpen = sessionPost('/Order/searchOpen', 'Working orders of the live session (status 6), newest first', {
  response: okBody(orderList),
  errors: trading.searchOrders,
});

export const orderCancel = endpoint('POST /Order/cancel', 'bearer', 'Cancels a working order', {
  session: ORDER_ID_SESSION,
  request: { orderId: OrderIdInput },
  fields: { orderId: { refuse: { kind: 'order_not_found' } } },
  response: okBody({}),
  errors: trading.cancelOrder,
});

export const orderModify = endpoint('POST /Order/modify', 'bearer', 'Changes the size or prices of a working order (null or absent keeps a value)', {
  session: ORDER_ID_SESSION,
  request: {
    orderId: OrderIdInput,
    size: Maybe(Size),
    limitPrice: Maybe(T.Number({ description: 'Limit and StopLimit orders only; on this family\'s tick grid' })),
    stopPrice: Maybe(T.Number({ description: 'Stop and StopLimit orders only; on this family\'s tick grid' })),
  },
  fields: {
    orderId: { refuse: { kind: 'order_not_found' } },
    size: { defer: 'invalid_size' },
    limitPrice: { defer: 'invalid_price' }, stopPrice: { defer: 'invalid_price' },
  },
  response: okBody({}),
  errors: trading.modifyOrder,
});

// ---- Position, Trade ----

export const positionSearchOpen = sessionPost('/Position/searchOpen', 'The open position of the account\'s live session (empty when flat)', {
  response: okBody({ positions: T.Array(LegacyPosition) }),
  errors: trading.searchOrders,
});

export const positionClose = endpoint('POST /Position/closeContract', 'bearer', 'Closes the whole position at market', {
  session: ACCOUNT_SESSION,
  request: { accountId: AccountId, contractId: T.String() },
  // The contract (this family's IDs) is checked first, then the service's account and position.
  fields: { contractId: { refuse: { kind: 'contract_not_found' } }, accountId: { defer: 'account_not_found' } },
  response: okBody({}),
  errors: trading.closePosition,
});

export const positionPartialClose = endpoint('POST /Position/partialCloseContract', 'bearer', 'Closes part of the position at market', {
  session: ACCOUNT_SESSION,
  request: { accountId: AccountId, contractId: T.String(), size: Size },
  // Size first, then the contract, then the service's account, position and size checks.
  fields: { size: { refuse: INVALID_SIZE }, contractId: { defer: 'contract_not_found' }, accountId: { defer: 'account_not_found' } },
  response: okBody({}),
  errors: trading.partialClosePosition,
});

export const tradeSearch = accountPost('/Trade/search', `Fills of the account, oldest first (the ${limits.tradeSearchMax} newest)`, {
  response: okBody({ trades: T.Array(LegacyTrade, { maxItems: limits.tradeSearchMax }) }),
  errors: trading.searchOrders,
});

// ---- Payout ----

export const payout = payoutEndpoints(codes);

/** Every endpoint of the family, relative to its prefix (`/api/legacy-sim`). */
export const LEGACY_ENDPOINTS: readonly EndpointInfo[] = [
  loginKey, validate, logout, ping,
  accountSearch, contractSearch, contractSearchById, retrieveBars,
  replayStart, replayStep, replayJumpTo, replayPlay, replayPause, replayEnd,
  orderPlace, orderSearch, orderSearchOpen, orderCancel, orderModify,
  positionSearchOpen, positionClose, positionPartialClose, tradeSearch,
  payout.eligibility, payout.request, payout.history,
];
