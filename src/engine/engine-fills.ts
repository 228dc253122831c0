// A fill and its booking: the position (positions.ts), the balance (account.ts's rules), the order,
// the fill log, the position's opening and the journal; then what a fill sets off in the book
// (engine-legs.ts). A fill is never refused: the checks ran when the order was placed.

import { ticksToCents } from '../domain/instrument.ts';
import type { EngineCore } from './engine-core.ts';
import { activateLegs, cancelLinked, cancelOcoSiblings, fitLegsToPosition, spawnLegs } from './engine-legs.ts';
import { applyFill, averagePriceTicks } from './positions.ts';
import { type Fill, type Order, OrderStatus, sideSign } from './types.ts';

/** Books a fill of a whole order: position, balance, fill log, then OCO, links, legs and new brackets. */
export function fill(e: EngineCore, order: Order, priceTicks: number, timeS: number): void {
  const openedQty = bookFill(e, order, priceTicks, timeS);
  if (order.ocoId !== null) cancelOcoSiblings(e, order, timeS);
  if (order.linkId !== null) cancelLinked(e, order, timeS);
  fitLegsToPosition(e, timeS);
  if (order.legsAnchorTicks !== null) activateLegs(e, order, openedQty, timeS);
  else if (openedQty > 0 && (order.slTicks !== null || order.tpTicks !== null)) {
    spawnLegs(e, order, priceTicks, openedQty, timeS);
  }
}

/** The fill itself: position, balance, the order's state, the fill log and the journal. Returns the contracts opened. */
function bookFill(e: EngineCore, order: Order, priceTicks: number, timeS: number): number {
  const previousQty = e.position.qty;
  const previousAvgTicks = e.changes !== null && previousQty !== 0 ? averagePriceTicks(e.position) : 0;
  const effect = applyFill(e.position, sideSign(order.side), order.size, priceTicks);
  e.position = effect.position;
  const realizedPnlCents = ticksToCents(effect.realizedTicks, e.tickValueCents);
  const feeCents = e.inst.feePerSideCents * order.size;
  e.balanceCents += realizedPnlCents - feeCents;
  order.status = OrderStatus.Filled;
  order.fillVolume = order.size;
  order.filledPriceTicks = priceTicks;
  order.updatedS = timeS;
  const fill: Fill = {
    id: e.ledger.nextFillId++, orderId: order.id, side: order.side, size: order.size, priceTicks, timeS,
    feeCents, realizedPnlCents, closedQty: order.size - effect.openedQty,
  };
  e.fillLog.push(fill);
  if (e.ledger.keepsFills) e.ledger.fills.push(fill);
  const before = { openedS: e.openedS, fillId: e.openFillId };
  trackOpening(e, previousQty, fill);
  if (e.changes !== null) {
    e.recordOrder(order, false, timeS);
    const qty = e.position.qty;
    // A fill that leaves the account flat tells the opening of the position it closed.
    const opening = qty === 0 ? before : { openedS: e.openedS, fillId: e.openFillId };
    e.changes.push({
      kind: 'fill', fill, balanceCents: e.balanceCents, positionQty: qty,
      avgPriceTicks: qty === 0 ? previousAvgTicks : averagePriceTicks(e.position), previousQty,
      positionOpenedS: opening.openedS, positionOpenFillId: opening.fillId,
    });
  }
  return effect.openedQty;
}

/** A position opens from flat or by a flip; it keeps its opening while it grows or shrinks. */
function trackOpening(e: EngineCore, previousQty: number, fill: Fill): void {
  const qty = e.position.qty;
  if (qty === 0) {
    e.openedS = null;
    e.openFillId = null;
  } else if (previousQty === 0 || Math.sign(previousQty) !== Math.sign(qty)) {
    e.openedS = fill.timeS;
    e.openFillId = fill.id;
  }
}
