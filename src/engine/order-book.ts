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
//
// Trailing stops add a second kind of trigger, a "ratchet": a sell trailing stop must be told when the
// price rises past its extreme (extreme + 1 is an up-trigger), a buy trailing stop when it falls past
// its (extreme − 1, a down-trigger). Ratchets change the order, never the position, so the book keeps
// them apart from the fire triggers (`upRatchetTicks`, `upFireTicks`, …) and folds both into the two
// reduced triggers the scan reads; the walker moves a ratchet straight to the end of a price segment
// or to the next fire trigger, whichever comes first (matching.ts), never tick by tick.
//
// JoinBid / JoinAsk orders placed at the touch are `passive` until the walker starts the next bar:
// they count in the reduced triggers (so the scans stop at a bar that reaches them) but are never
// marketable while passive (matching.ts, rule 9).

import { NO_DOWN_TRIGGER_TICKS, NO_UP_TRIGGER_TICKS, OrderSide, OrderType, type Order } from './types.ts';

/** The price at or above which `o` fires on a rise; NO_UP_TRIGGER_TICKS if it never does. */
export function upTriggerOf(o: Order): number {
  const buy = o.side === OrderSide.Buy;
  switch (o.type) {
    case OrderType.Limit:
    case OrderType.JoinBid:
    case OrderType.JoinAsk:
      return buy ? NO_UP_TRIGGER_TICKS : (o.limitTicks as number);
    case OrderType.Stop:
    case OrderType.TrailingStop:
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
    case OrderType.JoinBid:
    case OrderType.JoinAsk:
      return buy ? (o.limitTicks as number) : NO_DOWN_TRIGGER_TICKS;
    case OrderType.Stop:
    case OrderType.TrailingStop:
      return buy ? NO_DOWN_TRIGGER_TICKS : (o.stopTicks as number);
    case OrderType.StopLimit:
      if (o.triggered) return buy ? (o.limitTicks as number) : NO_DOWN_TRIGGER_TICKS;
      return buy ? NO_DOWN_TRIGGER_TICKS : (o.stopTicks as number);
    default:
      return NO_DOWN_TRIGGER_TICKS;
  }
}

/** A sell trailing stop's ratchet: the price past its extreme at which it must follow; NO_UP_TRIGGER_TICKS otherwise. */
export function upRatchetOf(o: Order): number {
  return o.type === OrderType.TrailingStop && o.side === OrderSide.Sell ? (o.trailExtremeTicks as number) + 1 : NO_UP_TRIGGER_TICKS;
}

/** A buy trailing stop's ratchet (falling past its extreme); NO_DOWN_TRIGGER_TICKS otherwise. */
export function downRatchetOf(o: Order): number {
  return o.type === OrderType.TrailingStop && o.side === OrderSide.Buy ? (o.trailExtremeTicks as number) - 1 : NO_DOWN_TRIGGER_TICKS;
}

/** True when `o` would fire (fill, or arm a stop-limit) with the price standing at `priceTicks`; ratchets are not fires. */
export function isMarketableAt(o: Order, priceTicks: number): boolean {
  return !o.passive && (upTriggerOf(o) <= priceTicks || downTriggerOf(o) >= priceTicks);
}

export class OrderBook {
  private readonly list: Order[] = [];
  /** The lowest up-trigger of any kind and the highest down-trigger: what the bar scan compares against. */
  upTriggerTicks = NO_UP_TRIGGER_TICKS;
  downTriggerTicks = NO_DOWN_TRIGGER_TICKS;
  /** The lowest up and highest down trigger at which an order fires (fills or arms). */
  upFireTicks = NO_UP_TRIGGER_TICKS;
  downFireTicks = NO_DOWN_TRIGGER_TICKS;
  /** The lowest sell trailing-stop ratchet and the highest buy trailing-stop ratchet. */
  upRatchetTicks = NO_UP_TRIGGER_TICKS;
  downRatchetTicks = NO_DOWN_TRIGGER_TICKS;
  /** Working orders still passive (JoinBid / JoinAsk before their first walked bar). */
  passiveCount = 0;

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
    if (this.upFireTicks > priceTicks && this.downFireTicks < priceTicks) return null;
    for (const o of this.list) if (isMarketableAt(o, priceTicks)) return o;
    return null;
  }

  /** Passive orders become ordinary working orders (their triggers are already counted). */
  activatePassive(): void {
    for (const o of this.list) o.passive = false;
    this.passiveCount = 0;
  }

  /** Must be called after an order's triggers change in place (a stop-limit arming, a ratchet, a modify). */
  recompute(): void {
    let up = NO_UP_TRIGGER_TICKS;
    let down = NO_DOWN_TRIGGER_TICKS;
    let upRatchet = NO_UP_TRIGGER_TICKS;
    let downRatchet = NO_DOWN_TRIGGER_TICKS;
    let passive = 0;
    for (const o of this.list) {
      const u = upTriggerOf(o);
      const d = downTriggerOf(o);
      if (u < up) up = u;
      if (d > down) down = d;
      if (o.type === OrderType.TrailingStop) {
        const ur = upRatchetOf(o);
        const dr = downRatchetOf(o);
        if (ur < upRatchet) upRatchet = ur;
        if (dr > downRatchet) downRatchet = dr;
      }
      if (o.passive) passive++;
    }
    this.upFireTicks = up;
    this.downFireTicks = down;
    this.upRatchetTicks = upRatchet;
    this.downRatchetTicks = downRatchet;
    this.upTriggerTicks = up < upRatchet ? up : upRatchet;
    this.downTriggerTicks = down > downRatchet ? down : downRatchet;
    this.passiveCount = passive;
  }
}
