// The engine's earlier state versions, and how their orders read today. A live session's row holds
// the state its engine last wrote, so every version ever written must restore (engine.ts `restore`).

import { type Fill, type Order, OrderType } from './types.ts';

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
