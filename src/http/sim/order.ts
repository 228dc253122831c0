// Order/place, search, searchOpen, cancel, modify of the current family.

import type { Services } from '../../service/services.ts';
import type { Order } from '../../engine/types.ts';
import type { Listing } from '../../service/trading.ts';
import { mapError } from '../shared/code-table.ts';
import { failure, success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentOrder } from './present.ts';

export function registerOrder(app: App, s: Services): void {
  authedPost(app, s, '/Order/place', ({ body, principal }) => {
    const r = s.trading.place(principal.user.id, {
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
    return r.ok ? success({ orderId: r.value.order.id }) : mapError(codes.placeOrder, r.error);
  });

  const list = (accountId: number, l: Listing<Order>, open: boolean) => {
    if (!l.instrument) return success({ orders: [] });
    const contract = s.contracts.contractFor(l.instrument);
    return success({ orders: l.rows.map((o) => presentOrder(accountId, contract, o, open)) });
  };

  authedPost(app, s, '/Order/search', ({ body, principal }) => {
    const r = s.trading.search(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    return r.ok ? list(body.accountId as number, r.value, false) : mapError(codes.searchOrders, r.error);
  });

  authedPost(app, s, '/Order/searchOpen', ({ body, principal }) => {
    const r = s.trading.searchOpen(principal.user.id, body.accountId);
    return r.ok ? list(body.accountId as number, r.value, true) : mapError(codes.searchOrders, r.error);
  });

  authedPost(app, s, '/Order/cancel', ({ body, principal }) => {
    const r = s.trading.cancel(principal.user.id, body.accountId, body.orderId);
    return r.ok ? success() : mapError(codes.cancelOrder, r.error);
  });

  // Spec: unsupported in the simulator; every call answers errorCode 3.
  authedPost(app, s, '/Order/modify', () => failure(3, 'Order modification not supported in simulator'));
}

/**
 * The distance of a bracket `{ticks: N}` (also the gateway's `{ticks, type}`, whose `type` we ignore).
 * A bracket that is not an object yields NaN, which the service refuses as an invalid bracket.
 */
function bracketTicks(bracket: unknown): unknown {
  if (bracket === undefined || bracket === null) return null;
  return typeof bracket === 'object' ? ((bracket as { ticks?: unknown }).ticks ?? Number.NaN) : Number.NaN;
}
