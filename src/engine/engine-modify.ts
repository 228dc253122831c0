// Modify: a working order's or a suspended leg's size and prices, under the rules of engine.ts's
// header ("Modify", "Suspended legs"): the same checks as a placement, risk only for a size that
// grows, time priority lost on a price change or a size increase, an entry's suspended legs moved
// with it. A refused modify changes nothing.

import type { EngineCore } from './engine-core.ts';
import { rejected, type Rejected, riskReason } from './engine-place.ts';
import type { BarWalker } from './matching.ts';
import {
  anchorTicks, bracketPriceReason, invalidModify, NOT_POSITIVE, type PatchShape, shiftedLegReason, shiftLeg, trailStopTicks,
} from './order-rules.ts';
import { type Order, OrderType, sideSign } from './types.ts';

/** A modify's new values; null or absent keeps the order's value. */
export type ModifyOrderPatch = PatchShape;

export type ModifyOrderError = { readonly kind: 'order_not_found' } | Rejected;
export type ModifyOrderResult = { ok: true; order: Order } | { ok: false; error: ModifyOrderError };

/** Modifies order `id`; `walker` fills it at once when it is marketable at the last price. */
export function modifyOrder(e: EngineCore, walker: BarWalker, id: number, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
  const order = e.book.find(id);
  if (order === undefined) {
    const leg = e.suspendedLegs.find((o) => o.id === id);
    return leg === undefined ? { ok: false, error: { kind: 'order_not_found' } } : modifySuspended(e, leg, patch, nowS);
  }
  const size = patch.size ?? order.size;
  const limitTicks = patch.limitTicks ?? order.limitTicks;
  const trailTicks = patch.trailTicks ?? order.trailTicks;
  const stopTicks = order.type === OrderType.TrailingStop
    ? trailStopTicks(order.side, order.trailExtremeTicks as number, trailTicks as number)
    : (patch.stopTicks ?? order.stopTicks);
  const anchor = anchorTicks(order.type, limitTicks, stopTicks);
  const reason =
    invalidModify(order, patch) ??
    (order.type === OrderType.TrailingStop && (stopTicks as number) < 1 ? NOT_POSITIVE.trail : null) ??
    bracketPriceReason(order.side, anchor, order.slTicks, order.tpTicks) ??
    suspendedShiftReason(e, order, anchor) ??
    modifyRiskReason(e, order, size);
  if (reason !== null) return rejected(reason);
  const repriced = limitTicks !== order.limitTicks;
  const losesPriority = size > order.size || repriced || stopTicks !== order.stopTicks;
  modifySuspendedOf(e, order, anchor, size, nowS);
  order.size = size;
  order.limitTicks = limitTicks;
  order.stopTicks = stopTicks;
  order.trailTicks = trailTicks;
  if (repriced) order.passive = false;
  order.updatedS = nowS;
  if (losesPriority) e.book.requeue(order, e.ledger.nextPrioritySeq++);
  else e.book.recompute();
  e.recordOrder(order, false, nowS);
  if (e.priced) walker.settleAt(e.lastPriceTicks, nowS);
  return { ok: true, order };
}

/** A modify of a suspended leg: its size (up to its entry's), its price or trail; no risk, no book. */
function modifySuspended(e: EngineCore, leg: Order, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
  const entry = e.book.find(leg.parentId as number) as Order;
  const size = patch.size ?? leg.size;
  const trailTicks = patch.trailTicks ?? leg.trailTicks;
  const stopTicks = leg.type === OrderType.TrailingStop
    ? trailStopTicks(leg.side, leg.trailExtremeTicks as number, trailTicks as number)
    : (patch.stopTicks ?? leg.stopTicks);
  const reason =
    invalidModify(leg, patch) ??
    (leg.type === OrderType.TrailingStop && (stopTicks as number) < 1 ? NOT_POSITIVE.trail : null) ??
    (size > entry.size ? `A bracket order cannot exceed its entry order: ${size} contracts asked, ${entry.size} ordered` : null);
  if (reason !== null) return rejected(reason);
  leg.size = size;
  leg.limitTicks = patch.limitTicks ?? leg.limitTicks;
  leg.stopTicks = stopTicks;
  leg.trailTicks = trailTicks;
  leg.updatedS = nowS;
  e.recordOrder(leg, false, nowS);
  return { ok: true, order: leg };
}

/**
 * Why a modify to `size` is refused for risk, or null. A leg must fit in the position it protects;
 * an entry whose size does not grow cannot raise the worst case; a growing one is checked as a
 * placement of the new size with the order itself left out.
 */
function modifyRiskReason(e: EngineCore, order: Order, size: number): string | null {
  if (order.parentId !== null) {
    const held = Math.abs(e.position.qty);
    if (size <= held) return null;
    return `A bracket order cannot exceed the position it protects: ${size} contracts asked, ${held} held`;
  }
  return size <= order.size ? null : riskReason(e, sideSign(order.side) * size, order);
}

/** Why moving `entry`'s anchor to `anchor` would put a suspended leg at or below 0, or null. */
function suspendedShiftReason(e: EngineCore, entry: Order, anchor: number): string | null {
  if (entry.legsAnchorTicks === null) return null;
  const delta = anchor - entry.legsAnchorTicks;
  for (const leg of e.suspendedLegs) {
    if (leg.parentId !== entry.id) continue;
    const reason = shiftedLegReason(leg, delta);
    if (reason !== null) return reason;
  }
  return null;
}

/** An entry's modify moves its suspended legs with its anchor and takes along those of its full size. */
function modifySuspendedOf(e: EngineCore, entry: Order, anchor: number, size: number, nowS: number): void {
  if (entry.legsAnchorTicks === null) return;
  const delta = anchor - entry.legsAnchorTicks;
  entry.legsAnchorTicks = anchor;
  for (const leg of e.suspendedLegs) {
    if (leg.parentId !== entry.id) continue;
    const newSize = leg.size === entry.size || leg.size > size ? size : leg.size;
    if (delta === 0 && newSize === leg.size) continue;
    shiftLeg(leg, delta);
    leg.size = newSize;
    e.recordOrder(leg, false, nowS);
  }
}
