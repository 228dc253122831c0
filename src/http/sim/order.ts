// Order/place, search, searchOpen, cancel, modify of the current family.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import type { Order } from '../../engine/types.ts';
import type { Listing } from '../../service/trading.ts';
import { mapError } from '../shared/code-table.ts';
import { INVALID, type Invalid, route, routeByProfile } from '../shared/endpoint.ts';
import { presentLiveOrder, specListsOrder } from '../shared/present-gateway.ts';
import { symbolIdStyleOf } from '../shared/profile.ts';
import * as codes from './codes.ts';
import * as live from './live-schemas.ts';
import { presentOrder } from './present.ts';
import { accountBounds } from './replay-window.ts';
import * as ep from './schemas.ts';

export function registerOrder<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.orderPlace, async ({ body, principal }) => {
    const r = await s.trading.place(principal.user.id, {
      accountId: body.accountId,
      contractId: body.contractId,
      type: body.type,
      side: body.side,
      size: body.size,
      limitPrice: body.limitPrice,
      stopPrice: body.stopPrice,
      stopLossTicks: bracketTicks(body.stopLossBracket),
      takeProfitTicks: bracketTicks(body.takeProfitBracket),
    });
    return r.ok ? ep.orderPlace.ok({ orderId: r.value.order.id }) : mapError(codes.placeOrder, r.error);
  });

  const list = (accountId: number, l: Listing<Order>, open: boolean) => {
    if (!l.instrument) return ep.orderSearch.ok({ orders: [] });
    const contract = s.contracts.contractFor(l.instrument);
    return ep.orderSearch.ok({ orders: l.rows.filter(specListsOrder).map((o) => presentOrder(accountId, contract, o, open)) });
  };
  // Under the live profile each order names the contract that traded when it was placed (the front
  // month on its simulated date, as Contract/search names it on the replay clock).
  const liveList = (accountId: number, l: Listing<Order>) => {
    const inst = l.instrument;
    if (!inst) return live.orderSearch.ok({ orders: [] });
    const style = symbolIdStyleOf(s.config, 'live');
    return live.orderSearch.ok({ orders: l.rows.map((o) => presentLiveOrder(accountId, s.contracts.contractFor(inst, { style, atMs: o.createdS * 1000 }), o)) });
  };

  routeByProfile(app, s, [ep.orderSearch, async ({ body, principal }) => {
    const r = await s.trading.search(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    return r.ok ? list(body.accountId, r.value, false) : mapError(codes.searchOrders, r.error);
  }], [live.orderSearch, async ({ body, principal }) => {
    // "Orders of the last 24 hours" means the 24 hours before the session's time (replay-window.ts).
    const bounds = await accountBounds(s, principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    const r = await s.trading.search(principal.user.id, body.accountId, bounds.start, bounds.end);
    return r.ok ? liveList(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  }]);

  routeByProfile(app, s, [ep.orderSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.searchOpen(principal.user.id, body.accountId);
    return r.ok ? list(body.accountId, r.value, true) : mapError(codes.searchOrders, r.error);
  }], [live.orderSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.searchOpen(principal.user.id, body.accountId);
    return r.ok ? liveList(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  }]);

  route(app, s, ep.orderCancel, async ({ body, principal }) => {
    const r = await s.trading.cancel(principal.user.id, body.accountId, body.orderId);
    return r.ok ? ep.orderCancel.ok({}) : mapError(codes.cancelOrder, r.error);
  });

  // Spec: unsupported in the simulator; every call answers errorCode 3.
  route(app, s, ep.orderModify, () => mapError(codes.modifyOrder, { kind: 'unsupported' }));
}

/** The distance of a bracket `{ticks: N}` (the gateway's `{ticks, type}` too: `type` is ignored); null for none. */
function bracketTicks(bracket: { ticks: number } | null | undefined | Invalid): number | null | Invalid {
  if (bracket === undefined || bracket === null) return null;
  return bracket === INVALID ? INVALID : (bracket as { ticks: number }).ticks;
}
