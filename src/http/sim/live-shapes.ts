// The live gateway's wire shapes where they differ from the spec's (shapes.ts), for the live profile
// (docs/gateway-profile.md): its whole order enums, orders with `updateTimestamp` always set and
// `customTag` echoed, positions without `contractDisplayName`, trades with the P&L of a closing fill.
// Like shapes.ts, this module imports nothing of the server but the shared shapes.

import { type TLiteral, Type as T } from '@sinclair/typebox';
import { Nullable, STRICT } from '../shared/schemas.ts';
import { Order, Position, Trade } from './shapes.ts';

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

/** The spec's Order (shapes.ts) with the gateway's enums, `updateTimestamp` always set and `customTag` echoed. */
export const LiveOrder = T.Object(
  {
    ...Order.properties,
    updateTimestamp: T.String({ description: 'The last change: the fill, cancel or modify, else the creation' }),
    status: LiveOrderStatusValue,
    type: LiveOrderTypeValue,
    stopPrice: Nullable(T.Number({ description: 'A trailing stop\'s current stop' })),
    customTag: Nullable(T.String()),
  },
  { ...STRICT, title: 'LiveOrder' },
);

const { contractDisplayName: _, ...positionFields } = Position.properties;

/** The spec's Position without `contractDisplayName`, its id and time those of the opening fill. */
export const LivePosition = T.Object(
  {
    ...positionFields,
    id: T.Integer({ description: 'Stable while the position is open: the id of the fill that opened it' }),
    creationTimestamp: T.String({ description: 'When the position opened (simulated time)' }),
  },
  { ...STRICT, title: 'LivePosition' },
);

/** The spec's Trade with the P&L of a closing fill. */
export const LiveTrade = T.Object(
  {
    ...Trade.properties,
    id: T.Integer({ description: 'The fill\'s id, stable' }),
    profitAndLoss: Nullable(T.Number({ description: 'Gross P&L of the contracts this fill closed; null on an opening fill' })),
  },
  { ...STRICT, title: 'LiveTrade' },
);
