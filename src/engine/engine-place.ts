// Placement: a request's order as the engine holds it, the refusals in their order (shape, a missing
// last price, prices, legs, link, pre-trade risk), a refusal recorded when asked, then the order in
// the book or filled. The rules are in engine.ts's header; the shape checks in order-rules.ts, the
// money rules in account.ts.

import { ticksToCents } from '../domain/instrument.ts';
import { rejectionReason } from './account.ts';
import { type EngineCore, workingEntries } from './engine-core.ts';
import { fill } from './engine-fills.ts';
import { createSuspendedLegs } from './engine-legs.ts';
import type { BarWalker } from './matching.ts';
import {
  anchorTicks, bracketPriceReason, invalidRequest, NOT_POSITIVE, type OrderFields, type RequestShape, trailStopTicks,
} from './order-rules.ts';
import { type Order, OrderSide, OrderStatus, OrderType, sideSign } from './types.ts';

export interface PlaceOrderRequest extends RequestShape {
  /** Bracket distances in absolute ticks (≥ 1); with slType TrailingStop slTicks is the leg's trail. */
  readonly slTicks?: number | null;
  readonly tpTicks?: number | null;
  /** Opt-in: types 5–7 and a TrailingStop stop-loss leg (without it they are unknown, as in the spec). */
  readonly extendedTypes?: boolean;
  /** Opt-in: a pending entry's legs are created now, Suspended (engine.ts's header). */
  readonly suspendLegs?: boolean;
  /** Opt-in: a refusal is recorded as a Rejected order (engine.ts's header). */
  readonly recordRejection?: boolean;
}

export type Rejected = { readonly kind: 'rejected'; readonly reason: string; readonly order?: Order };
export type PlaceOrderResult = { ok: true; order: Order } | { ok: false; error: Rejected };

export function rejected(reason: string): { ok: false; error: Rejected } {
  return { ok: false, error: { kind: 'rejected', reason } };
}

/** Places an order; `walker` fills at once what is marketable at the last price (matching rule 3). */
export function placeOrder(e: EngineCore, walker: BarWalker, req: PlaceOrderRequest, nowS: number): PlaceOrderResult {
  const invalid = invalidRequest(req);
  if (invalid !== null) return rejected(invalid);
  const fields = orderFields(e, req);
  const market = req.type === OrderType.Market;
  const reason = placementRefusal(e, req, fields);
  if (reason !== null) return refuse(e, fields, reason, req.recordRejection === true, nowS);
  const target = req.linkedOrderId === null || req.linkedOrderId === undefined ? null : (e.findOpen(req.linkedOrderId) as Order);
  const suspend = req.suspendLegs === true && !market && (fields.slTicks !== null || fields.tpTicks !== null);
  const order = e.newOrder({
    ...fields,
    linkId: target === null ? null : (target.linkId ?? target.id),
    legsAnchorTicks: suspend ? anchorTicks(req.type, fields.limitTicks, fields.stopTicks) : null,
  }, nowS, null, OrderStatus.Pending);
  if (target !== null && target.linkId === null) {
    target.linkId = target.id;
    e.recordOrder(target, false, nowS);
  }
  if (suspend) createSuspendedLegs(e, order, nowS);
  if (market) fill(e, order, e.marketPriceTicks(req.side), nowS);
  else e.book.add(order);
  if (e.priced) walker.settleAt(e.lastPriceTicks, nowS);
  return { ok: true, order };
}

/** A request's order as the engine will hold it: prices resolved for joins and trailing stops. */
function orderFields(e: EngineCore, req: PlaceOrderRequest): OrderFields {
  const last = e.priced ? e.lastPriceTicks : null;
  let limitTicks = req.limitTicks ?? null;
  let stopTicks = req.stopTicks ?? null;
  let trailTicks: number | null = null;
  let trailExtremeTicks: number | null = null;
  const type = req.type;
  if (type === OrderType.Market) limitTicks = stopTicks = null;
  else if (type === OrderType.JoinBid || type === OrderType.JoinAsk) {
    limitTicks = last === null ? null : type === OrderType.JoinBid ? last : last + 1;
    stopTicks = null;
  } else if (type === OrderType.TrailingStop) {
    trailTicks = req.trailTicks as number;
    trailExtremeTicks = last;
    limitTicks = null;
    stopTicks = last === null ? null : trailStopTicks(req.side, last, trailTicks);
  }
  const slTicks = req.slTicks ?? null;
  return {
    type, side: req.side, size: req.size, limitTicks, stopTicks, trailTicks, trailExtremeTicks,
    slTicks, tpTicks: req.tpTicks ?? null, slType: slTicks === null ? null : (req.slType ?? OrderType.Stop),
    customTag: req.customTag ?? null, linkId: null, passive: type === OrderType.JoinBid || type === OrderType.JoinAsk,
    legsAnchorTicks: null,
  };
}

/** Why a well-formed placement is refused, in this order: price, prices, legs, link, risk; null to place it. */
function placementRefusal(e: EngineCore, req: PlaceOrderRequest, f: OrderFields): string | null {
  const needsLast = f.type === OrderType.Market || f.type === OrderType.TrailingStop || f.type === OrderType.JoinBid || f.type === OrderType.JoinAsk;
  if (needsLast && !e.priced) return 'No market price is available yet';
  if (f.type === OrderType.TrailingStop && (f.stopTicks as number) < 1) return NOT_POSITIVE.trail;
  if (f.limitTicks !== null && f.limitTicks < 1) return NOT_POSITIVE.limit;
  if (f.stopTicks !== null && f.stopTicks < 1) return NOT_POSITIVE.stop;
  const anchor = f.type === OrderType.Market ? e.marketPriceTicks(f.side) : anchorTicks(f.type, f.limitTicks, f.stopTicks);
  const legs = bracketPriceReason(f.side, anchor, f.slTicks, f.tpTicks);
  if (legs !== null) return legs;
  if (req.linkedOrderId !== null && req.linkedOrderId !== undefined && e.findOpen(req.linkedOrderId) === undefined) {
    return `linkedOrderId ${req.linkedOrderId} names no working order`;
  }
  return riskReason(e, sideSign(f.side) * f.size);
}

/** A refusal; recorded as a Rejected order when asked (engine.ts's header, "Refusals"). */
function refuse(e: EngineCore, f: OrderFields, reason: string, record: boolean, nowS: number): PlaceOrderResult {
  if (!record) return rejected(reason);
  const order = e.newOrder(f, nowS, null, OrderStatus.Rejected);
  return { ok: false, error: { kind: 'rejected', reason, order } };
}

/** Pre-trade risk of a new order of `signedSize` (account.ts), with `excluded` not counted as working. */
export function riskReason(e: EngineCore, signedSize: number, excluded: Order | null = null): string | null {
  const { workingBuyQty, workingSellQty } = workingEntries(e, excluded);
  const qty = e.position.qty;
  const unrealizedTicks = qty === 0 ? 0 : e.lastPriceTicks * qty - e.position.costTicks;
  let equityCents = e.balanceCents + ticksToCents(unrealizedTicks, e.tickValueCents);
  let maxPositionQty = e.maxPositionQty;
  let limitNote: string | undefined;
  const ledger = e.ledger;
  if (ledger.shared) {
    // One account over several contracts (ledger.ts): the others' open P&L counts, their margin is taken.
    equityCents += ledger.othersUnrealizedCents(e) - ledger.othersMarginCents(e);
    if (maxPositionQty !== null) {
      const unitsLeft = maxPositionQty * (e.inst.isMicro ? 1 : 10) - ledger.othersLimitUnits(e);
      maxPositionQty = Math.max(0, e.inst.isMicro ? unitsLeft : Math.floor(unitsLeft / 10));
      if (maxPositionQty < (e.maxPositionQty as number)) limitNote = ` (the account's other contracts hold the rest of its ${e.maxPositionQty})`;
    }
  }
  return rejectionReason({
    symbol: e.inst.symbol,
    dayMarginCents: e.inst.dayMarginCents,
    maxPositionQty,
    positionQty: qty,
    equityCents,
    workingBuyQty,
    workingSellQty,
    signedSize,
    limitNote,
  });
}
