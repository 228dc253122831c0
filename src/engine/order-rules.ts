// The engine's order rules as pure functions: the shape checks of a placement and of a modify, the
// anchor a bracket is measured from, bracket-leg and trailing-stop prices. engine.ts states the
// model; these are its leaves, kept apart so the engine file holds the state machine only.

import { coreLimits } from '../core-limits.ts';
import { isExtendedType, type Order, OrderSide, OrderType, sideSign } from './types.ts';

/** What a placement asks for (engine.ts `PlaceOrderRequest`), as far as the shape checks read it. */
export interface RequestShape {
  readonly type: OrderType;
  readonly side: OrderSide;
  readonly size: number;
  readonly limitTicks?: number | null;
  readonly stopTicks?: number | null;
  readonly trailTicks?: number | null;
  readonly slTicks?: number | null;
  readonly tpTicks?: number | null;
  readonly slType?: OrderType | null;
  readonly tpType?: OrderType | null;
  readonly customTag?: string | null;
  readonly linkedOrderId?: number | null;
  readonly extendedTypes?: boolean;
}

/**
 * A playground strategy's order (docs/playground.md): the child's bridge and the server's ledger both
 * build it with this function, so their engines get the same request. The strategy API offers
 * trailing stops and trailing stop-losses, so it opts in to the gateway's types.
 */
export function strategyOrderRequest(
  type: number, side: number, size: number, limit: number | null, stop: number | null, sl: number | null, tp: number | null,
  trail: number | null, slType: number | null,
): RequestShape {
  return {
    type: type as OrderType, side: side as OrderSide, size, limitTicks: limit, stopTicks: stop, slTicks: sl, tpTicks: tp,
    trailTicks: trail, slType: slType as OrderType | null, extendedTypes: true,
  };
}

/** A modify's new values as the shape checks read them (engine.ts `ModifyOrderPatch`). */
export interface PatchShape {
  readonly size?: number | null;
  readonly limitTicks?: number | null;
  readonly stopTicks?: number | null;
  readonly trailTicks?: number | null;
}

export const ORDER_TYPE_NAMES: Record<OrderType, string> = {
  1: 'Limit', 2: 'Market', 3: 'StopLimit', 4: 'Stop', 5: 'TrailingStop', 6: 'JoinBid', 7: 'JoinAsk',
};

// Every traded price is positive (futures and spot forex here); a price at or below 0 is a client's
// mistake, and an order resting there would never be reached, or reached by a wrong bar.
export const NOT_POSITIVE = {
  limit: 'limitPrice must be greater than 0',
  stop: 'stopPrice must be greater than 0',
  trail: 'trailPrice would place the stop at or below 0',
} as const;

const TRAIL_RANGE = `trailPrice must be a whole number of ticks from 1 to ${coreLimits.trailTicksMax}`;

export const hasLimitPrice = (t: OrderType) => t === OrderType.Limit || t === OrderType.StopLimit || t === OrderType.JoinBid || t === OrderType.JoinAsk;
export const hasStopPrice = (t: OrderType) => t === OrderType.Stop || t === OrderType.StopLimit || t === OrderType.TrailingStop;

/**
 * Shape checks the adapters normally make first; the engine repeats them so it never holds a bad
 * order. A request failing them is never recorded as a Rejected order: it has no fields to record.
 */
export function invalidRequest(req: RequestShape): string | null {
  if (!Number.isSafeInteger(req.size) || req.size <= 0) return 'Invalid order size';
  const known = Object.values(OrderType).includes(req.type) && (req.extendedTypes === true || !isExtendedType(req.type));
  if (!known || !Object.values(OrderSide).includes(req.side)) return 'Invalid order type or side';
  const needsLimit = req.type === OrderType.Limit || req.type === OrderType.StopLimit;
  const needsStop = req.type === OrderType.Stop || req.type === OrderType.StopLimit;
  if (needsLimit && !isPriceTicks(req.limitTicks)) return 'limitPrice is required for Limit and StopLimit orders';
  if (needsStop && !isPriceTicks(req.stopTicks)) return 'stopPrice is required for Stop and StopLimit orders';
  if (req.type === OrderType.TrailingStop && !isTrailTicks(req.trailTicks)) return TRAIL_RANGE;
  if (!isBracketTicks(req.slTicks) || !isBracketTicks(req.tpTicks)) {
    return `Bracket ticks must be whole numbers from 1 to ${coreLimits.bracketTicksMax}`;
  }
  return legTypeReason(req) ?? tagReason(req.customTag) ?? linkReason(req.linkedOrderId);
}

/** The stop-loss leg is a Stop or (opted in) a TrailingStop; the take-profit leg a Limit. */
function legTypeReason(req: RequestShape): string | null {
  const sl = req.slType;
  if (sl !== null && sl !== undefined && sl !== OrderType.Stop && !(sl === OrderType.TrailingStop && req.extendedTypes === true)) {
    return `Invalid stop loss type (${ORDER_TYPE_NAMES[sl] ?? sl})`;
  }
  const tp = req.tpType;
  if (tp !== null && tp !== undefined && tp !== OrderType.Limit) return `Invalid take profit type (${ORDER_TYPE_NAMES[tp] ?? tp})`;
  return null;
}

function tagReason(tag: string | null | undefined): string | null {
  if (tag === null || tag === undefined) return null;
  return typeof tag === 'string' && tag.length <= coreLimits.customTagCharsMax ? null : `customTag must be a text of at most ${coreLimits.customTagCharsMax} characters`;
}

function linkReason(id: number | null | undefined): string | null {
  return id === null || id === undefined || Number.isSafeInteger(id) ? null : 'linkedOrderId must be an order id';
}

/** Shape checks of a modify, as invalidRequest makes them for a placement; null when it may proceed. */
export function invalidModify(order: Order, patch: PatchShape): string | null {
  const size = patch.size;
  if (size !== null && size !== undefined && (!Number.isSafeInteger(size) || size <= 0)) return 'Invalid order size';
  const limit = patch.limitTicks;
  const stop = patch.stopTicks;
  const trail = patch.trailTicks;
  const name = ORDER_TYPE_NAMES[order.type];
  if (limit !== null && limit !== undefined) {
    if (!hasLimitPrice(order.type)) return `A ${name} order has no limitPrice`;
    if (!isPriceTicks(limit)) return 'limitPrice is out of range';
    if (limit < 1) return NOT_POSITIVE.limit;
  }
  if (stop !== null && stop !== undefined) {
    if (order.type === OrderType.TrailingStop) return 'A TrailingStop order\'s stopPrice follows the price: change its trailPrice';
    if (!hasStopPrice(order.type)) return `A ${name} order has no stopPrice`;
    if (!isPriceTicks(stop)) return 'stopPrice is out of range';
    if (stop < 1) return NOT_POSITIVE.stop;
    if (order.triggered && stop !== order.stopTicks) return 'stopPrice cannot change: the stop-limit order has already triggered';
  }
  if (trail !== null && trail !== undefined) {
    if (order.type !== OrderType.TrailingStop) return `A ${name} order has no trailPrice`;
    if (!isTrailTicks(trail)) return TRAIL_RANGE;
  }
  return null;
}

/** The stop of a trailing stop of `side` whose extreme is `extremeTicks`: below it for a sell, above for a buy. */
export function trailStopTicks(side: OrderSide, extremeTicks: number, trailTicks: number): number {
  return side === OrderSide.Sell ? extremeTicks - trailTicks : extremeTicks + trailTicks;
}

/**
 * The price a pending entry's bracket legs are measured from (engine.ts, "Brackets"): the stop for
 * stops and trailing stops (where it stands when they fire), the limit for the others.
 */
export function anchorTicks(type: OrderType, limitTicks: number | null | undefined, stopTicks: number | null | undefined): number {
  return (type === OrderType.Stop || type === OrderType.TrailingStop ? stopTicks : limitTicks) as number;
}

/** A bracket leg must rest at a positive price: an entry whose leg would land at or below 0 is refused. */
export function bracketPriceReason(side: OrderSide, anchor: number, slTicks: number | null, tpTicks: number | null): string | null {
  const dir = sideSign(side);
  if (slTicks !== null && anchor - dir * slTicks < 1) return 'stopLossBracket would place the stop-loss at or below 0';
  if (tpTicks !== null && anchor + dir * tpTicks < 1) return 'takeProfitBracket would place the take-profit at or below 0';
  return null;
}

/** Everything of a new order but what the engine assigns (id, status, times, its parent and priority). */
export type OrderFields = Pick<
  Order,
  'type' | 'side' | 'size' | 'limitTicks' | 'stopTicks' | 'trailTicks' | 'trailExtremeTicks' | 'slTicks' | 'tpTicks' | 'slType'
  | 'customTag' | 'linkId' | 'passive' | 'legsAnchorTicks'
>;

/** A bracket leg or a closing order: no brackets, tag, link or passivity of its own. */
function plainFields(type: OrderType, side: OrderSide, size: number, limitTicks: number | null, stopTicks: number | null, trailTicks: number | null): OrderFields {
  const trailExtremeTicks = trailTicks === null ? null : (stopTicks as number) + (side === OrderSide.Sell ? trailTicks : -trailTicks);
  return {
    type, side, size, limitTicks, stopTicks, trailTicks, trailExtremeTicks, slTicks: null, tpTicks: null, slType: null,
    customTag: null, linkId: null, passive: false, legsAnchorTicks: null,
  };
}

/** A market order of `side` for `size` contracts (a close, a flatten). */
export function marketFields(side: OrderSide, size: number): OrderFields {
  return plainFields(OrderType.Market, side, size, null, null, null);
}

/**
 * The legs of `entry` anchored at `anchor` for `size` contracts: what engine-legs.ts turns into orders.
 * A trailing stop-loss starts with its extreme at the anchor (its stop slTicks away).
 */
export function legOrderFields(entry: Order, anchor: number, size: number): OrderFields[] {
  const dir = sideSign(entry.side);
  const side = entry.side === OrderSide.Buy ? OrderSide.Sell : OrderSide.Buy;
  const legs: OrderFields[] = [];
  if (entry.slTicks !== null) {
    const stopTicks = Math.max(1, anchor - dir * entry.slTicks);
    const trailing = entry.slType === OrderType.TrailingStop;
    legs.push(plainFields(trailing ? OrderType.TrailingStop : OrderType.Stop, side, size, null, stopTicks, trailing ? entry.slTicks : null));
  }
  if (entry.tpTicks !== null) {
    legs.push(plainFields(OrderType.Limit, side, size, Math.max(1, anchor + dir * entry.tpTicks), null, null));
  }
  return legs;
}

/** Moves a suspended leg's price by `deltaTicks` (its entry's anchor moved), never below 1. */
export function shiftLeg(leg: Order, deltaTicks: number): void {
  if (leg.limitTicks !== null) leg.limitTicks = Math.max(1, leg.limitTicks + deltaTicks);
  if (leg.stopTicks !== null) {
    const stop = Math.max(1, leg.stopTicks + deltaTicks);
    if (leg.trailExtremeTicks !== null) leg.trailExtremeTicks += stop - leg.stopTicks;
    leg.stopTicks = stop;
  }
}

/** The price of a suspended leg after a shift of `deltaTicks`, or null when it would be below 1. */
export function shiftedLegReason(leg: Order, deltaTicks: number): string | null {
  const price = (leg.limitTicks ?? leg.stopTicks) as number;
  if (price + deltaTicks >= 1) return null;
  return leg.type === OrderType.Limit ? 'takeProfitBracket would place the take-profit at or below 0' : 'stopLossBracket would place the stop-loss at or below 0';
}

export function isPriceTicks(v: number | null | undefined): boolean {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= coreLimits.priceTicksAbsMax;
}

export function isTrailTicks(v: number | null | undefined): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= coreLimits.trailTicksMax;
}

function isBracketTicks(v: number | null | undefined): boolean {
  return v === null || v === undefined || (Number.isInteger(v) && v >= 1 && v <= coreLimits.bracketTicksMax);
}
