// The earlier family: Order/place, search, searchOpen, cancel, modify. Order IDs are strings
// "<replay account id>-<order id>" (present-trading.ts); cancel and modify take only that ID and
// reach the order through the caller's own accounts. Prices must sit on this family's grid (EURUSD
// 0.00005) and go to the service as base prices.

import type { Elysia } from 'elysia';
import { legacyInstrumentForId } from '../../domain/contract-id.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { type LegacyInstrument, legacyPriceToBaseTicks } from '../../domain/legacy-instruments.ts';
import { type Order, OrderType } from '../../engine/types.ts';
import type { Listing, PlaceInput } from '../../service/trading.ts';
import type { Services } from '../../service/services.ts';
import { limits } from '../../config.ts';
import { mapError } from '../shared/code-table.ts';
import { type BodyOf, route } from '../shared/endpoint.ts';
import * as codes from './trading-codes.ts';
import { legacyContractId, legacyId, legacyOf, parseLegacyId, presentOrder } from './present-trading.ts';
import * as ep from './schemas.ts';

type PlaceBody = BodyOf<typeof ep.orderPlace.request, typeof ep.orderPlace.fields>;

export function registerOrder<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.orderPlace, async ({ body, principal }) => {
    const parsed = parsePlace(s, body);
    if (!parsed.ok) return mapError(codes.placeOrder, parsed.error);
    const r = await s.trading.place(principal.user.id, parsed.input);
    if (!r.ok) return mapError(codes.placeOrder, r.error);
    // The service found the account, so accountId is the number sent.
    const owner = await s.replay.tradingAccountOf(body.accountId as number);
    return ep.orderPlace.ok({ orderId: legacyId(owner, r.value.order.id), orderStatus: r.value.order.status });
  });

  const list = async (accountId: number, l: Listing<Order>) => {
    if (!l.instrument) return ep.orderSearch.ok({ orders: [] });
    const owner = await s.replay.tradingAccountOf(accountId);
    const contractId = legacyContractId(l.instrument, s.clock.nowMs());
    return ep.orderSearch.ok({ orders: l.rows.map((o) => presentOrder(owner, accountId, l.instrument as Instrument, contractId, o)) });
  };

  route(app, s, ep.orderSearch, async ({ body, principal }) => {
    const r = await s.trading.search(principal.user.id, body.accountId, null, null);
    return r.ok ? list(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  });

  route(app, s, ep.orderSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.searchOpen(principal.user.id, body.accountId);
    return r.ok ? list(body.accountId, r.value) : mapError(codes.searchOrders, r.error);
  });

  route(app, s, ep.orderCancel, async ({ body, principal }) => {
    const id = parseLegacyId(body.orderId);
    if (!id) return mapError(codes.cancelOrder, { kind: 'order_not_found' });
    const r = await s.trading.cancel(principal.user.id, id.accountId, id.id);
    return r.ok ? ep.orderCancel.ok({}) : mapError(codes.cancelOrder, r.error);
  });

  // Supported here (spec): size, limitPrice, stopPrice, each null or absent to keep it. The ID's
  // account must be one of the caller's live sessions before any field is read, so another user's
  // ID answers `Order not found` and nothing else.
  route(app, s, ep.orderModify, async ({ body, principal }) => {
    const id = parseLegacyId(body.orderId);
    const live = id ? await s.replay.live(principal.user.id, id.accountId) : null;
    if (!id || !live?.ok) return mapError(codes.modifyOrder, { kind: 'order_not_found' });
    const size = body.size === undefined || body.size === null ? null : sizeError(body.size);
    if (size) return mapError(codes.modifyOrder, size);
    const l = legacyOf(live.value.inst);
    const limit = basePrice(l, 'limit', body.limitPrice, true);
    if (!limit.ok) return mapError(codes.modifyOrder, limit.error);
    const stop = basePrice(l, 'stop', body.stopPrice, true);
    if (!stop.ok) return mapError(codes.modifyOrder, stop.error);
    const r = await s.trading.modify(principal.user.id, {
      accountId: id.accountId,
      orderId: id.id,
      size: body.size,
      limitPrice: limit.price,
      stopPrice: stop.price,
    });
    return r.ok ? ep.orderModify.ok({}) : mapError(codes.modifyOrder, r.error);
  });
}

type Parsed = { ok: true; input: PlaceInput } | { ok: false; error: codes.LegacyPlaceError };

/**
 * The parse step of Order/place, in this order: brackets (refused: this family has none; the
 * route's) and size (> 0, the route's; whole, at most 1000), contract (this family's IDs), prices on
 * this family's grid. Type, side, account and missing prices are the service's checks.
 */
function parsePlace(s: Services, body: PlaceBody): Parsed {
  const size = sizeError(body.size);
  if (size) return { ok: false, error: size };
  const l = legacyInstrumentForId(body.contractId);
  if (!l) return { ok: false, error: { kind: 'contract_not_found' } };
  const type = body.type;
  const limit = basePrice(l, 'limit', body.limitPrice, type === OrderType.Limit || type === OrderType.StopLimit);
  if (!limit.ok) return limit;
  const stop = basePrice(l, 'stop', body.stopPrice, type === OrderType.Stop || type === OrderType.StopLimit);
  if (!stop.ok) return stop;
  const input: PlaceInput = {
    accountId: body.accountId,
    contractId: s.contracts.contractFor(l.base).id,
    type,
    side: body.side,
    size: body.size,
    limitPrice: limit.price,
    stopPrice: stop.price,
    stopLossTicks: null,
    takeProfitTicks: null,
  };
  return { ok: true, input };
}

/** A size refusal, or null: a number > 0 (spec), whole, at most the service's 1000. */
export function sizeError(size: unknown): codes.SizeError | null {
  if (typeof size !== 'number' || !Number.isFinite(size) || size <= 0) return { kind: 'invalid_size' };
  if (!Number.isInteger(size)) return { kind: 'size_not_whole' };
  if (size > limits.orderSizeMax) return { kind: 'size_too_large' };
  return null;
}

type OffGrid = Extract<codes.LegacyPlaceError, { kind: 'price_off_grid' }>;

/** A needed price on this family's grid, as the base price the service reads; others pass as sent. */
function basePrice<V>(l: LegacyInstrument, field: 'limit' | 'stop', v: V, needed: boolean): { ok: true; price: V | number } | { ok: false; error: OffGrid } {
  if (!needed || typeof v !== 'number') return { ok: true, price: v };
  const ticks = legacyPriceToBaseTicks(l, v);
  if (ticks === undefined) return { ok: false, error: { kind: 'price_off_grid', field, price: v, tickSize: l.tickSize } };
  return { ok: true, price: ticks / l.base.ticksPerPoint };
}
