// Bracket legs and order groups after a fill: legs spawned or made working, legs fitted to the
// position they protect, one-cancels-other between legs and within a linkedOrderId group. The rules
// are in engine.ts's header ("Brackets", "Suspended legs", "Links"); the legs' prices in order-rules.ts.

import type { EngineCore } from './engine-core.ts';
import { anchorTicks, legOrderFields, shiftLeg } from './order-rules.ts';
import { type Order, OrderSide, OrderStatus, OrderType } from './types.ts';

/** The other leg of a filled leg's bracket is canceled. */
export function cancelOcoSiblings(e: EngineCore, order: Order, timeS: number): void {
  for (const o of e.book.working.slice()) if (o.ocoId === order.ocoId) e.cancel(o, timeS, OrderStatus.Canceled);
}

/** The other members of a filled order's linkedOrderId group are canceled. */
export function cancelLinked(e: EngineCore, order: Order, timeS: number): void {
  for (const o of e.book.working.slice()) if (o.linkId === order.linkId) e.cancel(o, timeS, OrderStatus.Canceled);
  for (const o of e.suspendedLegs.slice()) if (o.linkId === order.linkId) e.cancel(o, timeS, OrderStatus.Canceled);
}

/** Legs protect the current position: cancel them when it is flat or flipped, shrink them to it. */
export function fitLegsToPosition(e: EngineCore, timeS: number): void {
  const qty = e.position.qty;
  for (const leg of e.book.working.slice()) {
    if (leg.parentId === null) continue;
    const protectsLong = leg.side === OrderSide.Sell;
    if (qty === 0 || (protectsLong ? qty < 0 : qty > 0)) e.cancel(leg, timeS, OrderStatus.Canceled);
    else if (leg.size > Math.abs(qty)) {
      leg.size = Math.abs(qty);
      e.recordOrder(leg, false, timeS);
    }
  }
}

/** The legs of an entry that filled, spawned now (engine.ts, "Brackets"). */
export function spawnLegs(e: EngineCore, entry: Order, fillPriceTicks: number, size: number, timeS: number): void {
  const anchor = entry.type === OrderType.Market ? fillPriceTicks : anchorTicks(entry.type, entry.limitTicks, entry.stopTicks);
  for (const leg of legOrderFields(entry, anchor, size)) {
    e.book.add(e.newOrder(leg, timeS, entry.id, OrderStatus.Pending));
  }
}

/** The legs of a pending entry, created with it as Suspended (engine.ts, "Suspended legs"). */
export function createSuspendedLegs(e: EngineCore, entry: Order, nowS: number): void {
  for (const leg of legOrderFields(entry, entry.legsAnchorTicks as number, entry.size)) {
    e.suspendedLegs.push(e.newOrder(leg, nowS, entry.id, OrderStatus.Suspended));
  }
}

/** The suspended legs of an entry that filled become working for the contracts it opened, or end. */
export function activateLegs(e: EngineCore, entry: Order, openedQty: number, timeS: number): void {
  const delta = anchorTicks(entry.type, entry.limitTicks, entry.stopTicks) - (entry.legsAnchorTicks as number);
  for (const leg of e.suspendedLegs.slice()) {
    if (leg.parentId !== entry.id) continue;
    if (openedQty === 0) {
      e.cancel(leg, timeS, OrderStatus.Canceled);
      continue;
    }
    e.suspendedLegs.splice(e.suspendedLegs.indexOf(leg), 1);
    shiftLeg(leg, delta);
    leg.size = Math.min(leg.size, openedQty);
    leg.status = OrderStatus.Pending;
    leg.updatedS = timeS;
    leg.prioritySeq = e.ledger.nextPrioritySeq++;
    e.book.add(leg);
    e.recordOrder(leg, false, timeS);
  }
}
