// The live profile's declarations of the current family's endpoints that answer differently from the
// spec's (docs/gateway-profile.md): each shares method, path and authentication with its spec
// declaration in schemas.ts and is served by `routeByProfile` (src/http/shared/endpoint.ts), which
// picks the declaration by the request's profile after authentication.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { defineEndpoint, okBody } from '../shared/endpoint.ts';
import { Maybe } from '../shared/schemas.ts';
import * as codes from './codes.ts';
import { LiveOrder } from './live-shapes.ts';
import * as spec from './schemas.ts';

export const orderSearch = defineEndpoint({
  ...spec.orderSearch,
  summary: 'Orders of the account, newest first, bounded by submission time (inclusive); the live gateway\'s order shape',
  response: okBody({ orders: T.Array(LiveOrder, { maxItems: limits.orderSearchMax }) }),
  errors: codes.searchOrders,
});

export const orderSearchOpen = defineEndpoint({
  ...spec.orderSearchOpen,
  summary: 'Working and suspended orders of the live session; the live gateway\'s order shape',
  response: okBody({ orders: T.Array(LiveOrder) }),
  errors: codes.searchOrders,
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

/** The spec's Trade shape for now: only the window is read differently (docs/gateway-profile.md). */
export const tradeSearch = defineEndpoint({ ...spec.tradeSearch });
