// Working orders of one session and the two reduced trigger prices the bar scan compares against.
//
// Every working order fires either when the price rises to a level (an "up-trigger": sell limits,
// buy stops, unarmed buy stop-limits, armed sell stop-limits) or when it falls to one (a
// "down-trigger": buy limits, sell stops, unarmed sell stop-limits, armed buy stop-limits).
// `upTriggerTicks` is the lowest up-trigger and `downTriggerTicks` the highest down-trigger, so a
// bar with high < upTriggerTicks and low > downTriggerTicks cannot fire anything and the scan skips
// it with two comparisons, however many orders are working. Both are recomputed only when the set
// of working orders changes (add, remove, arm), never per bar.
//
// Orders are kept in time-priority order, `prioritySeq` ascending: when several orders can fire at
// one price, the one first in the queue fires first. A new order takes the next sequence number, so
// without modifies this is id order; a modify that changes a price or raises the size takes a new
// number and goes behind every other working order (`requeue`; the rule is in engine.ts, "Modify").

import { NO_DOWN_TRIGGER_TICKS, NO_UP_TRIGGER_TICKS, OrderSide, OrderType, type Order } from './types.ts';

/** The price at or above which `o` fires on a rise; NO_UP_TRIGGER_TICKS if it never does. */
export function upTriggerOf(o: Order): number {
  const buy = o.side === OrderSide.Buy;
  switch (o.type) {
    case OrderType.Limit:
      return buy ? NO_UP_TRIGGER_TICKS : (o.limitTicks as number);
    case OrderType.Stop:
      return buy ? (o.stopTicks as number) : NO_UP_TRIGGER_TICKS;
    case OrderType.StopLimit:
      if (o.triggered) return buy ? NO_UP_TRIGGER_TICKS : (o.limitTicks as number);
      return buy ? (o.stopTicks as number) : NO_UP_TRIGGER_TICKS;
    default:
      return NO_UP_TRIGGER_TICKS;
  }
}

/** The price at or below which `o` fires on a fall; NO_DOWN_TRIGGER_TICKS if it never does. */
export function downTriggerOf(o: Order): number {
  const buy = o.side === OrderSide.Buy;
  switch (o.type) {
    case OrderType.Limit:
      return buy ? (o.limitTicks as number) : NO_DOWN_TRIGGER_TICKS;
    case OrderType.Stop:
      return buy ? NO_DOWN_TRIGGER_TICKS : (o.stopTicks as number);
    case OrderType.StopLimit:
      if (o.triggered) return buy ? (o.limitTicks as number) : NO_DOWN_TRIGGER_TICKS;
      return buy ? NO_DOWN_TRIGGER_TICKS : (o.stopTicks as number);
    default:
      return NO_DOWN_TRIGGER_TICKS;
  }
}

/** True when `o` would fire with the price standing at `priceTicks`. */
export function isMarketableAt(o: Order, priceTicks: number): boolean {
  return upTriggerOf(o) <= priceTicks || downTriggerOf(o) >= priceTicks;
}

export class OrderBook {
  private readonly list: Order[] = [];
  upTriggerTicks = NO_UP_TRIGGER_TICKS;
  downTriggerTicks = NO_DOWN_TRIGGER_TICKS;

  get size(): number {
    return this.list.length;
  }

  /** Working orders in time-priority (`prioritySeq`) order. */
  get working(): readonly Order[] {
    return this.list;
  }

  /** Appends an order: its sequence number must be above every working order's. */
  add(o: Order): void {
    const last = this.list[this.list.length - 1];
    if (last !== undefined && last.prioritySeq >= o.prioritySeq) {
      throw new Error(`order ${o.id} (priority ${o.prioritySeq}) added after ${last.id} (priority ${last.prioritySeq})`);
    }
    this.list.push(o);
    this.recompute();
  }

  /** A working order loses its time priority: it goes behind every other with `prioritySeq`. */
  requeue(o: Order, prioritySeq: number): void {
    const at = this.list.indexOf(o);
    if (at < 0) throw new Error(`order ${o.id} is not working`);
    this.list.splice(at, 1);
    o.prioritySeq = prioritySeq;
    this.add(o);
  }

  remove(o: Order): void {
    const at = this.list.indexOf(o);
    if (at < 0) throw new Error(`order ${o.id} is not working`);
    this.list.splice(at, 1);
    this.recompute();
  }

  find(id: number): Order | undefined {
    for (const o of this.list) if (o.id === id) return o;
    return undefined;
  }

  /** The first working order (time priority) that fires at `priceTicks`, or null. Reduced triggers first. */
  firstMarketableAt(priceTicks: number): Order | null {
    if (this.upTriggerTicks > priceTicks && this.downTriggerTicks < priceTicks) return null;
    for (const o of this.list) if (isMarketableAt(o, priceTicks)) return o;
    return null;
  }

  /** Must be called after an order's triggers change in place (a stop-limit arming, a modify). */
  recompute(): void {
    let up = NO_UP_TRIGGER_TICKS;
    let down = NO_DOWN_TRIGGER_TICKS;
    for (const o of this.list) {
      const u = upTriggerOf(o);
      const d = downTriggerOf(o);
      if (u < up) up = u;
      if (d > down) down = d;
    }
    this.upTriggerTicks = up;
    this.downTriggerTicks = down;
  }
}
