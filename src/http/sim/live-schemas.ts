// The live profile's declarations of the current family's endpoints that answer differently from the
// spec's (docs/gateway-profile.md): each shares method, path and authentication with its spec
// declaration in schemas.ts and is served by `routeByProfile` (src/http/shared/endpoint.ts), which
// picks the declaration by the request's profile after authentication.

import { Type as T } from '@sinclair/typebox';
import { limits } from '../../config.ts';
import { defineEndpoint, okBody } from '../shared/endpoint.ts';
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
