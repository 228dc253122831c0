// The live profile's declarations of the current family's endpoints that answer differently from the
// spec's (docs/gateway-profile.md): each shares method, path and authentication with its spec
// declaration in schemas.ts and is served by `routeByProfile` (src/http/shared/endpoint.ts), which
// picks the declaration by the request's profile after authentication.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { defineEndpoint, okBody } from '../shared/endpoint.ts';
import { sessionPost } from '../shared/declare.ts';
import { Maybe } from '../shared/schemas.ts';
import * as liveCodes from './live-codes.ts';
import { LiveOrder, LiveOrderTypeValue, LivePosition, LiveTrade } from './live-shapes.ts';
import * as spec from './schemas.ts';

/** `{ticks, type}` as the gateway sends brackets: signed ticks (long stop-loss below: negative), the leg's type. */
const LiveBracket = Maybe(
  T.Object(
    {
      ticks: T.Union([T.Integer({ maximum: -1 }), T.Integer({ minimum: 1 })], { description: 'Signed distance from the entry in ticks: a long\'s stop-loss negative and take-profit positive, a short\'s the reverse' }),
      // Any value reaches the service, which names a wrong type as the gateway does ("Invalid stop loss type (…)").
      type: T.Optional(T.Unknown({ description: 'Stop-loss 4 Stop (default) or 5 TrailingStop (ticks: the trail); take-profit 1 Limit (default)' })),
    },
    { description: 'The gateway\'s `{ticks, type}`' },
  ),
);

export const orderPlace = defineEndpoint({
  ...spec.orderPlace,
  summary: 'Places an order: the live gateway\'s types 1–7, trailPrice, customTag, linkedOrderId and typed, signed brackets',
  request: {
    ...spec.ORDER_REQUEST,
    type: LiveOrderTypeValue,
    trailPrice: Maybe(T.Number({ description: 'Type 5: the trailing distance in price' })),
    customTag: Maybe(T.String({ description: 'Echoed on the order; unique among the account\'s orders' })),
    linkedOrderId: Maybe(T.Integer({ description: 'A working order to link with as one-cancels-other' })),
    stopLossBracket: LiveBracket,
    takeProfitBracket: LiveBracket,
  },
  fields: {
    ...spec.ORDER_RULES,
    trailPrice: { defer: 'invalid_trail' },
    customTag: { defer: 'invalid_custom_tag' },
    linkedOrderId: { defer: 'linked_order_not_found' },
    ...spec.BRACKET_RULES,
  },
  response: okBody({ orderId: T.Integer() }),
  errors: liveCodes.placeOrder,
});

export const orderModify = sessionPost('/Order/modify', 'Changes a working (or suspended) order: size, limitPrice, stopPrice, trailPrice; null or absent keeps a value', {
  request: {
    orderId: T.Integer(),
    size: Maybe(T.Integer({ minimum: 1, maximum: limits.orderSizeMax })),
    limitPrice: Maybe(T.Number()),
    stopPrice: Maybe(T.Number()),
    trailPrice: Maybe(T.Number({ description: 'A trailing stop\'s new distance in price' })),
  },
  fields: {
    orderId: { defer: 'order_not_found' },
    size: { defer: 'invalid_size' },
    limitPrice: { defer: 'invalid_price' }, stopPrice: { defer: 'invalid_price' },
    trailPrice: { defer: 'invalid_trail' },
  },
  response: okBody({}),
  errors: liveCodes.modifyOrder,
});

export const positionSearchOpen = defineEndpoint({
  ...spec.positionSearchOpen,
  summary: 'The open position of the account\'s live session (empty when flat); the live gateway\'s position shape',
  response: okBody({ positions: T.Array(LivePosition) }),
});

export const positionClose = defineEndpoint({ ...spec.positionClose, errors: liveCodes.closePosition });
export const positionPartialClose = defineEndpoint({ ...spec.positionPartialClose, errors: liveCodes.closePosition });

export const orderSearch = defineEndpoint({
  ...spec.orderSearch,
  summary: 'Orders of the account, newest first, bounded by submission time (inclusive); the live gateway\'s order shape',
  response: okBody({ orders: T.Array(LiveOrder, { maxItems: limits.orderSearchMax }) }),
});

export const orderSearchOpen = defineEndpoint({
  ...spec.orderSearchOpen,
  summary: 'Working and suspended orders of the live session; the live gateway\'s order shape',
  response: okBody({ orders: T.Array(LiveOrder) }),
});

export const retrieveBars = defineEndpoint({
  ...spec.retrieveBars,
  summary: 'Historical bars newest first, never past the replay clock (docs/gateway-profile.md); `Accept: application/x-msgpack` gets msgpack',
  request: {
    ...spec.retrieveBars.request,
    unit: T.Union([T.Literal(1), T.Literal(2), T.Literal(3), T.Literal(4), T.Literal(5), T.Literal(6)], {
      description: '1 Second, 2 Minute, 3 Hour, 4 Day, 5 Week, 6 Month',
    }),
    limit: Maybe(T.Integer({ minimum: 1, description: `The bars nearest endTime; default and cap ${limits.historyBarsPerRequestMax}` })),
    includePartialBar: T.Optional(T.Boolean({ description: 'true keeps a trailing bar that ends after endTime; false or absent drops it' })),
    live: T.Optional(T.Boolean({ description: 'Accepted and ignored' })),
  },
  fields: { ...spec.retrieveBars.fields, live: { drop: true } },
});

export const tradeSearch = defineEndpoint({
  ...spec.tradeSearch,
  summary: 'Fills of the account, newest first, bounded by fill time on the replay clock; the live gateway\'s trade shape',
  response: okBody({ trades: T.Array(LiveTrade, { maxItems: limits.tradeSearchMax }) }),
});
