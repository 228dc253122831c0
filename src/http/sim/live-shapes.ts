// The live gateway's wire shapes where they differ from the spec's (shapes.ts), for the live profile
// (docs/gateway-profile.md): its whole order enums, orders with `updateTimestamp` always set and
// `customTag` echoed, positions without `contractDisplayName`, trades with the P&L of a closing fill.
// Like shapes.ts, this module imports nothing of the server but the shared shapes.

import { type TLiteral, Type as T } from '@sinclair/typebox';
import { Nullable, OrderSideValue, PositionTypeValue, STRICT } from '../shared/schemas.ts';

function literals<const V extends readonly number[]>(values: V, title: string, description: string) {
  return T.Union(values.map((v) => T.Literal(v)) as TLiteral<V[number]>[], { title, description });
}

/** Order types of the live gateway. */
export const LiveOrderTypeValue = literals(
  [1, 2, 3, 4, 5, 6, 7] as const,
  'LiveOrderType',
  '1 Limit, 2 Market, 3 StopLimit, 4 Stop, 5 TrailingStop, 6 JoinBid, 7 JoinAsk',
);

/** Order statuses the live profile reports: a working order is 1 (Open) wherever it is listed. */
export const LiveOrderStatusValue = literals(
  [1, 2, 3, 4, 5, 8] as const,
  'LiveOrderStatus',
  '1 Open (working), 2 Filled, 3 Cancelled, 4 Expired, 5 Rejected, 8 Suspended (a bracket leg waiting for its entry)',
);

export const LiveOrder = T.Object(
  {
    id: T.Integer(),
    accountId: T.Integer(),
    contractId: T.String(),
    symbolId: T.String(),
    creationTimestamp: T.String(),
    updateTimestamp: T.String({ description: 'The last change: the fill, cancel or modify, else the creation' }),
    status: LiveOrderStatusValue,
    type: LiveOrderTypeValue,
    side: OrderSideValue,
    size: T.Integer(),
    limitPrice: Nullable(T.Number()),
    stopPrice: Nullable(T.Number({ description: 'A trailing stop\'s current stop' })),
    fillVolume: T.Integer(),
    filledPrice: Nullable(T.Number()),
    customTag: Nullable(T.String()),
  },
  { ...STRICT, title: 'LiveOrder' },
);

export const LivePosition = T.Object(
  {
    id: T.Integer({ description: 'Stable while the position is open: the id of the fill that opened it' }),
    accountId: T.Integer(),
    contractId: T.String(),
    creationTimestamp: T.String({ description: 'When the position opened (simulated time)' }),
    type: PositionTypeValue,
    size: T.Integer(),
    averagePrice: T.Number(),
  },
  { ...STRICT, title: 'LivePosition' },
);

export const LiveTrade = T.Object(
  {
    id: T.Integer({ description: 'The fill\'s id, stable' }),
    accountId: T.Integer(),
    contractId: T.String(),
    creationTimestamp: T.String(),
    price: T.Number(),
    profitAndLoss: Nullable(T.Number({ description: 'Gross P&L of the contracts this fill closed; null on an opening fill' })),
    fees: T.Number(),
    side: OrderSideValue,
    size: T.Integer(),
    voided: T.Boolean(),
    orderId: T.Integer(),
  },
  { ...STRICT, title: 'LiveTrade' },
);
