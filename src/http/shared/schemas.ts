// TypeBox shapes both simulator families share (spec "Resources and their fields"): accounts, bars,
// payout eligibility and records, and the request fields most endpoints take. Response objects are
// strict (`additionalProperties: false`), so a field added or renamed without its schema fails the
// response contract. The envelope itself is built by `okBody` / `failureBody` (endpoint.ts).

import { type TLiteral, type TSchema, Type as T } from '@sinclair/typebox';
import { OrderSide, type OrderStatus, type OrderType, SpecOrderStatus, SpecOrderType } from '../../engine/types.ts';

/** Options of every response object: an unlisted field is an error. */
export const STRICT = { additionalProperties: false } as const;

/** `X or null`. */
export const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);

/** An optional request field that may also be sent as null. */
export const Maybe = <S extends TSchema>(s: S) => T.Optional(Nullable(s));

// ---- request fields ----

export const AccountId = T.Integer({ description: 'Account id from Account/search or Replay/start' });
/** A timestamp as sent: ISO 8601 (checked by the service, whose rows answer a bad one). */
export const IsoTimeText = T.String({ description: 'ISO 8601 time, e.g. 2025-03-03T14:30:00Z' });

// ---- response shapes ----

/** The account and the contract an order, a position, a fill or a replay session belongs to (both families). */
export const accountContract = { accountId: T.Integer(), contractId: T.String() };

export const Account = T.Object(
  {
    id: T.Integer(),
    name: T.String(),
    balance: T.Number(),
    canTrade: T.Boolean(),
    isVisible: T.Boolean(),
    simulated: T.Boolean(),
  },
  { ...STRICT, title: 'Account' },
);

export const Bar = T.Object(
  {
    t: T.String({ description: 'ISO 8601 open time of the bar' }),
    o: T.Number(),
    h: T.Number(),
    l: T.Number(),
    c: T.Number(),
    v: T.Number(),
  },
  { ...STRICT, title: 'Bar' },
);

export const PayoutEligibility = T.Object(
  {
    eligible: T.Boolean(),
    reasons: T.Array(T.String()),
    winningDays: T.Integer(),
    requiredWinningDays: T.Integer(),
    winningDayMinProfit: T.Number(),
    netProfitSincePayout: T.Number(),
    totalFundedProfits: T.Number(),
    consistencyLimit: T.Number(),
    maxPayout: T.Number(),
    minPayout: T.Number(),
    consistencyPct: Nullable(T.Number()),
    windowStartDate: Nullable(T.String({ description: 'Simulated date (YYYY-MM-DD) of the last payout' })),
  },
  { ...STRICT, title: 'PayoutEligibility' },
);

export const PayoutRecord = T.Object(
  {
    id: T.String(),
    amount: T.Number(),
    balanceBefore: T.Number(),
    balanceAfter: T.Number(),
    status: T.String({ examples: ['completed'] }),
    requestedAt: T.String({ description: 'ISO 8601 time of the request (wall clock)' }),
    simulatedDate: T.String({ description: 'Simulated trade date (YYYY-MM-DD) the payout was taken on' }),
  },
  { ...STRICT, title: 'PayoutRecord' },
);

/** Statistics of a finished run (earlier family Replay/end `results`; `presentStats` in present-common.ts). */
export const RunResults = T.Object(
  {
    totalPnl: T.Number({ description: 'Net P&L of the fills, USD' }),
    totalTrades: T.Integer({ description: 'Flat-to-flat round trips' }),
    winningTrades: T.Integer(),
    losingTrades: T.Integer(),
    winRate: T.Number({ minimum: 0, maximum: 100, description: 'Percent, 0 without trades' }),
    averageWin: T.Number(),
    averageLoss: T.Number({ maximum: 0 }),
    largestWin: T.Number(),
    largestLoss: T.Number({ maximum: 0 }),
    profitFactor: Nullable(T.Number({ description: 'Gross wins / gross losses; null without a losing trade' })),
    maxDrawdown: T.Number({ maximum: 0 }),
    finalBalance: T.Number(),
  },
  { ...STRICT, title: 'RunResults' },
);

/** A round-trip trade (src/engine/results.ts `TradeRecord`): a playground run's, a replay session's in the journal. */
export const RunTrade = T.Object(
  {
    side: T.Union([T.Literal('long'), T.Literal('short')]),
    size: T.Integer(),
    entryTime: T.String({ description: 'Simulated entry time (ISO 8601 UTC)' }),
    entryPrice: T.Number({ description: 'Average entry price' }),
    exitTime: T.String({ description: 'Simulated exit time (ISO 8601 UTC)' }),
    exitPrice: T.Number({ description: 'Average exit price' }),
    pnl: T.Number({ description: 'USD, net of the fees of both sides' }),
    fees: T.Number(),
    symbol: T.Optional(T.String({ description: 'Extension: the instrument traded, in a playground run or a replay session over several instruments (instrumentSymbols)' })),
  },
  { ...STRICT, title: 'RunTrade' },
);

// ---- enums both simulator families serve ----

/** A number enum: the union of its values, its names in the description. */
function enumOf<const O extends Record<string, number>>(o: O, title: string) {
  const names = Object.entries(o)
    .map(([name, v]) => `${v} ${name}`)
    .join(', ');
  return T.Union(
    Object.values(o).map((v) => T.Literal(v)) as TLiteral<O[keyof O]>[],
    { title, description: names },
  );
}

// The spec's order types and statuses are what these check and document (1–4; 1, 2, 3, 6), typed
// as the engine's (T.Unsafe keeps the union, changes only its static type): the engine also knows
// the gateway's types 5–7 and statuses 4, 5, 8, which a request must opt into and the trading
// service's spec view never answers (docs/decisions.md), so presenters compile over either.
export const OrderTypeValue = T.Unsafe<OrderType>(enumOf(SpecOrderType, 'OrderType'));
export const OrderSideValue = enumOf(OrderSide, 'OrderSide');
export const OrderStatusValue = T.Unsafe<OrderStatus>(enumOf(SpecOrderStatus, 'OrderStatus'));
export const PositionTypeValue = enumOf({ Long: 1, Short: 2 }, 'PositionType');
