// Order/place, search, searchOpen, cancel, modify of the current family.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import type { Order } from '../../engine/types.ts';
import type { Listing, PlaceInput } from '../../service/trading.ts';
import { mapError } from '../shared/code-table.ts';
import { INVALID, type Invalid, route, routeByProfile } from '../shared/endpoint.ts';
import { isInvalid } from '../../lib/invalid.ts';
import { presentLiveOrder } from '../shared/present-gateway.ts';
import { symbolIdStyleOf } from '../shared/profile.ts';
import * as codes from './codes.ts';
import * as liveCodes from './live-codes.ts';
import { livePlaceError } from './live-codes.ts';
import * as live from './live-schemas.ts';
import { presentOrder } from './present.ts';
import { accountBounds } from './replay-window.ts';
import * as ep from './schemas.ts';

export function registerOrder<P extends string>(app: Elysia<P>, s: Services): void {
  registerPlace(app, s);
  registerSearch(app, s);

  route(app, s, ep.orderCancel, async ({ body, principal }) => {
    const r = await s.trading.cancel(principal.user.id, body.accountId, body.orderId);
    return r.ok ? ep.orderCancel.ok({}) : mapError(codes.cancelOrder, r.error);
  });

  // Spec: unsupported in the simulator; every call answers errorCode 3. The live gateway's modify (and
  // the console's, which drags working orders with it) changes the order in place.
  routeByProfile(app, s, [ep.orderModify, () => mapError(codes.modifyOrder, { kind: 'unsupported' })], [live.orderModify, async ({ body, principal }) => {
    const r = await s.trading.modify(principal.user.id, {
      accountId: body.accountId,
      orderId: body.orderId,
      size: body.size,
      limitPrice: body.limitPrice,
      stopPrice: body.stopPrice,
      trailPrice: body.trailPrice,
    });
    return r.ok ? live.orderModify.ok({}) : mapError(liveCodes.modifyOrder, r.error);
  }], { console: 'live' });
}

function registerPlace<P extends string>(app: Elysia<P>, s: Services): void {
  routeByProfile(app, s, [ep.orderPlace, async ({ body, principal }) => {
    const r = await s.trading.place(principal.user.id, placeInput(body));
    return r.ok ? ep.orderPlace.ok({ orderId: r.value.order.id }) : mapError(codes.placeOrder, r.error as codes.SpecPlaceError);
  }], [live.orderPlace, async ({ body, principal }) => {
    // The web console trades with the whole order model but sends unsigned brackets and shows its
    // legs once they work, as before; a bot under the live profile gets the gateway's rules.
    const bot = principal.console !== true;
    const r = await s.trading.place(principal.user.id, {
      ...placeInput(body),
      trailPrice: body.trailPrice,
      customTag: body.customTag,
      linkedOrderId: body.linkedOrderId,
      allowExtendedTypes: true,
      gatewayBracketSigns: bot,
      suspendLegs: bot,
      recordRejections: bot,
    });
    return r.ok ? live.orderPlace.ok({ orderId: r.value.order.id }) : mapError(liveCodes.placeOrder, livePlaceError(r.error));
  }], { console: 'live' });
}

function registerSearch<P extends string>(app: Elysia<P>, s: Services): void {
  const list = (accountId: number, l: Listing<Order>, open: boolean) => {
    const inst = l.instrument;
    if (!inst) return ep.orderSearch.ok({ orders: [] });
    const contract = s.contracts.contractFor(inst);
    // A session over several instruments: each order names its own contract.
    const contractOf = (i: number) => (l.rowInstruments ? s.contracts.contractFor(l.rowInstruments[i]) : contract);
    return ep.orderSearch.ok({ orders: l.rows.map((o, i) => presentOrder(accountId, contractOf(i), o, open)) });
  };
  // Under the live profile each order names the contract that traded when it was placed (the front
  // month on its simulated date, as Contract/search names it on the replay clock).
  const liveList = (accountId: number, l: Listing<Order>) => {
    const inst = l.instrument;
    if (!inst) return live.orderSearch.ok({ orders: [] });
    const style = symbolIdStyleOf(s.config, 'live');
    const instOf = (i: number) => l.rowInstruments?.[i] ?? inst;
    return live.orderSearch.ok({ orders: l.rows.map((o, i) => presentLiveOrder(accountId, s.contracts.contractFor(instOf(i), { style, atMs: o.createdS * 1000 }), o)) });
  };

  routeByProfile(app, s, [ep.orderSearch, async ({ body, principal }) => {
    const r = await s.trading.search(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    return r.ok ? list(body.accountId, r.value, false) : mapError(codes.searchOrders, r.error);
  }], [live.orderSearch, async ({ body, principal }) => {
    // "Orders of the last 24 hours" means the 24 hours before the session's time (replay-window.ts).
    const bounds = await accountBounds(s, principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    const r = await s.trading.search(principal.user.id, body.accountId, bounds.start, bounds.end, 'gateway');
    return r.ok ? liveList(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  }]);

  routeByProfile(app, s, [ep.orderSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.searchOpen(principal.user.id, body.accountId);
    return r.ok ? list(body.accountId, r.value, true) : mapError(codes.searchOrders, r.error);
  }], [live.orderSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.searchOpen(principal.user.id, body.accountId, 'gateway');
    return r.ok ? liveList(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  }]);
}

type BracketBody = { ticks: number; type?: unknown } | null | undefined | Invalid;

/** The fields both profiles' Order/place send as they are, and their brackets. */
type PlaceBody = Pick<PlaceInput, 'accountId' | 'contractId' | 'type' | 'side' | 'size'> &
  Partial<Pick<PlaceInput, 'limitPrice' | 'stopPrice'>> & { stopLossBracket?: BracketBody; takeProfitBracket?: BracketBody };

/** Order/place as both profiles read it; the live profile adds the gateway's fields. */
function placeInput({ accountId, contractId, type, side, size, limitPrice, stopPrice, stopLossBracket, takeProfitBracket }: PlaceBody) {
  return {
    accountId, contractId, type, side, size, limitPrice, stopPrice,
    stopLossTicks: bracketTicks(stopLossBracket),
    takeProfitTicks: bracketTicks(takeProfitBracket),
    // The spec's brackets are a stop and a limit: another type sent is refused, never changed.
    stopLossType: bracketType(stopLossBracket),
    takeProfitType: bracketType(takeProfitBracket),
  };
}

/** The distance of a bracket `{ticks: N}` (or the gateway's `{ticks, type}`); null for none. */
function bracketTicks(bracket: BracketBody): number | null | Invalid {
  if (bracket === undefined || bracket === null) return null;
  return isInvalid(bracket) ? INVALID : bracket.ticks;
}

/** A bracket's `type` as sent (a number, else INVALID); null when absent. */
function bracketType(bracket: BracketBody): number | null | Invalid {
  if (bracket === undefined || bracket === null || isInvalid(bracket)) return null;
  const type = bracket.type;
  if (type === undefined || type === null) return null;
  return typeof type === 'number' && Number.isInteger(type) ? type : INVALID;
}
