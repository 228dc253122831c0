// The engine's state as plain JSON (serialize, coreState) and back (restore), with its earlier
// versions and how their orders read today. A live session's row holds the state its engine last
// wrote, so every version ever written must restore (engine.ts `restore`).

import type { EngineCore } from './engine-core.ts';
import { positionFromLots } from './positions.ts';
import { type Fill, type Order, OrderStatus, OrderType } from './types.ts';

/**
 * Plain JSON-able state; `SessionEngine.restore(inst, cfg, serialize())` continues identically.
 * Version 2 added time priority (`prioritySeq` on orders, `nextPrioritySeq`); version 3 the gateway's
 * order model (trailing stops, leg types, tags, links, passive joins, suspended legs kept with the
 * working orders). Versions 1 and 2 still restore.
 */
export interface EngineState {
  readonly version: 3;
  readonly balanceCents: number;
  readonly lastPriceTicks: number | null;
  readonly lastTimeS: number;
  /** Open lots oldest first as [size, priceTicks], and the sign of the net position. */
  readonly positionLots: readonly (readonly [number, number])[];
  readonly positionSign: 1 | -1 | 0;
  readonly orders: readonly Order[];
  readonly fills: readonly Fill[];
  readonly nextOrderId: number;
  readonly nextFillId: number;
  readonly nextPrioritySeq: number;
  /**
   * When the open position opened (from flat, or by a flip) and the fill that opened it: the live
   * gateway's position `creationTimestamp` and stable `id`. Null when flat; absent in states written
   * before it was kept (the position then reads as opened at the session's time).
   */
  readonly positionOpenedS?: number | null;
  readonly positionOpenFillId?: number | null;
}

/** An order as version 2 wrote it: before the gateway's order model (trailing stops, tags, links, …). */
export type OrderV2 = Omit<Order, 'trailTicks' | 'trailExtremeTicks' | 'slType' | 'customTag' | 'linkId' | 'passive' | 'legsAnchorTicks'>;

/** What engines wrote before the gateway's order model: time priority, no trailing stops, tags, links or suspended legs. */
export interface EngineStateV2 extends Omit<EngineState, 'version' | 'orders'> {
  readonly version: 2;
  readonly orders: readonly OrderV2[];
}

/**
 * What engines wrote before order modify (rows of live sessions in users' databases): no priority
 * sequence, because id order was time priority.
 */
export interface EngineStateV1 extends Omit<EngineState, 'version' | 'orders' | 'nextPrioritySeq'> {
  readonly version: 1;
  readonly orders: readonly Omit<OrderV2, 'prioritySeq'>[];
}

/**
 * An order of any version as today's engine holds it (a copy). Version 1 kept no priority sequence
 * (its time priority was id order); versions 1 and 2 had none of the gateway's fields, and their
 * stop-loss legs were always plain stops.
 */
export function restoredOrder(o: Order | OrderV2 | Omit<OrderV2, 'prioritySeq'>): Order {
  const v = o as Partial<Order> & OrderV2;
  return {
    ...v,
    prioritySeq: v.prioritySeq ?? o.id,
    trailTicks: v.trailTicks ?? null,
    trailExtremeTicks: v.trailExtremeTicks ?? null,
    slType: v.slType ?? (o.slTicks === null ? null : OrderType.Stop),
    customTag: v.customTag ?? null,
    linkId: v.linkId ?? null,
    passive: v.passive ?? false,
    legsAnchorTicks: v.legsAnchorTicks ?? null,
  };
}

/**
 * The state without history: working orders and suspended legs only, no fills (engine.ts
 * `coreState`).
 */
export function coreStateOf(e: EngineCore): EngineState {
  return {
    version: 3,
    balanceCents: e.balanceCents,
    lastPriceTicks: e.priced ? e.lastPriceTicks : null,
    lastTimeS: e.lastTimeS,
    positionLots: e.position.lots.map((l) => [l.size, l.priceTicks] as const),
    positionSign: Math.sign(e.position.qty) as 1 | -1 | 0,
    orders: [...e.book.working, ...e.suspendedLegs].map((o) => ({ ...o })),
    fills: [],
    nextOrderId: e.ledger.nextOrderId,
    nextFillId: e.ledger.nextFillId,
    nextPrioritySeq: e.ledger.nextPrioritySeq,
    positionOpenedS: e.openedS,
    positionOpenFillId: e.openFillId,
  };
}

/** Loads `state` of any version into a new engine `e` made with the state's balance (engine.ts `restore`). */
export function restoreInto(e: EngineCore, state: EngineState | EngineStateV2 | EngineStateV1): void {
  if (state.lastPriceTicks !== null) e.mark(state.lastPriceTicks, state.lastTimeS);
  else e.lastTimeS = state.lastTimeS;
  const lots = state.positionLots.map(([size, priceTicks]) => ({ size, priceTicks }));
  e.position = positionFromLots(lots, state.positionSign);
  if (e.position.qty !== 0 && 'positionOpenedS' in state) {
    e.openedS = state.positionOpenedS ?? null;
    e.openFillId = state.positionOpenFillId ?? null;
  }
  const working: Order[] = [];
  for (const o of state.orders) {
    const order = restoredOrder(o);
    e.orderLog.push(order);
    if (order.status === OrderStatus.Pending) working.push(order);
    else if (order.status === OrderStatus.Suspended) e.suspendedLegs.push(order);
  }
  // serialize() lists orders in id order, coreState() in priority order: the book wants the latter.
  working.sort((a, b) => a.prioritySeq - b.prioritySeq);
  for (const order of working) e.book.add(order);
  e.suspendedLegs.sort((a, b) => a.id - b.id);
  for (const f of state.fills) e.fillLog.push({ ...f });
  e.ledger.nextOrderId = state.nextOrderId;
  e.ledger.nextFillId = state.nextFillId;
  // Every version 1 sequence number is an id, below nextOrderId.
  e.ledger.nextPrioritySeq = state.version === 1 ? state.nextOrderId : state.nextPrioritySeq;
}
