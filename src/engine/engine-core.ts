// The state of one session's engine and the few operations every part of it shares: the id and
// priority counters (newOrder), the change journal (changes.ts) and ending an order (cancel).
// SessionEngine (engine.ts) extends it with its public API, implemented by the files beside it:
// placement (engine-place.ts), modify (engine-modify.ts), fills (engine-fills.ts), bracket legs and
// links (engine-legs.ts), serialize and restore (engine-state.ts). The fields are public only for
// those files; callers outside src/engine use SessionEngine's API. Being one object, the engine the
// bar loop reads (matching.ts `MatchingHost`) holds its fields itself: no indirection on that path.

import { type Instrument, ticksToCents } from '../domain/instrument.ts';
import type { EngineChange } from './changes.ts';
import { OrderBook } from './order-book.ts';
import type { OrderFields } from './order-rules.ts';
import { FLAT, type Position } from './positions.ts';
import { type Fill, type Order, type OrderSide, OrderStatus, sideSign } from './types.ts';
import { AccountLedger } from './ledger.ts';

export interface EngineConfig {
  readonly startingBalanceCents: number;
  /** Ticks a market order fills beyond the last price, against the trader. Default 0. */
  readonly slippageTicks?: number;
  /** Largest allowed worst-case |net position| in this instrument's contracts; null or absent = none. */
  readonly maxPositionQty?: number | null;
  readonly firstOrderId?: number;
  readonly firstFillId?: number;
  /**
   * The account this engine books into, shared by the engines of one session's contracts (ledger.ts);
   * absent: an account of its own. startingBalanceCents and the first ids are then the ledger's.
   */
  readonly ledger?: AccountLedger;
}

export abstract class EngineCore {
  readonly book = new OrderBook();
  readonly tickValueCents: number;
  /** The account: balance and id counters, shared with the session's other contracts' engines. */
  readonly ledger: AccountLedger;
  lastPriceTicks = 0;
  lastTimeS = 0;
  /** Whether a last price is known (setLastPrice or a processed bar). */
  priced = false;
  position: Position = FLAT;
  /** When the open position opened (from flat or by a flip), and the fill that opened it; null when flat. */
  openedS: number | null = null;
  openFillId: number | null = null;
  readonly orderLog: Order[] = [];
  readonly fillLog: Fill[] = [];
  /** Bracket legs waiting for their entry's fill (status Suspended), in id order. */
  readonly suspendedLegs: Order[] = [];
  readonly slippageTicks: number;
  readonly maxPositionQty: number | null;
  /** The change journal (changes.ts): null unless a caller asked for it with beginChanges. */
  changes: EngineChange[] | null = null;

  constructor(readonly inst: Instrument, cfg: EngineConfig) {
    if (!Number.isSafeInteger(cfg.startingBalanceCents)) throw new Error('startingBalanceCents must be integer cents');
    this.tickValueCents = inst.tickValueCents;
    this.ledger = cfg.ledger ?? new AccountLedger(cfg.startingBalanceCents, cfg.firstOrderId ?? 1, cfg.firstFillId ?? 1);
    this.ledger.join(this);
    this.slippageTicks = cfg.slippageTicks ?? 0;
    this.maxPositionQty = cfg.maxPositionQty ?? null;
    if (!Number.isInteger(this.slippageTicks) || this.slippageTicks < 0) throw new Error('slippageTicks must be ≥ 0');
  }

  // ---- the account's (ledger.ts): one balance (and one id sequence) across the session's contracts ----
  get balanceCents(): number {
    return this.ledger.balanceCents;
  }
  set balanceCents(v: number) {
    this.ledger.balanceCents = v;
  }
  /** Unrealized P&L at the last price, in cents (0 when flat). */
  get unrealizedCents(): number {
    const qty = this.position.qty;
    return qty === 0 ? 0 : ticksToCents(this.lastPriceTicks * qty - this.position.costTicks, this.tickValueCents);
  }

  /** Closes the position at the last price (engine.ts). */
  abstract flatten(nowS: number, priceTicks?: number): unknown;
  /** Ends every working order and suspended leg as Expired (engine.ts). */
  abstract expireWorking(nowS: number): void;

  // ---- EngineStateView (stop-rule.ts) ----
  get othersUnrealizedCents(): number {
    return this.ledger.shared ? this.ledger.othersUnrealizedCents(this) : 0;
  }
  get othersOpen(): boolean {
    return this.ledger.shared && this.ledger.othersOpen(this);
  }
  get positionQty(): number {
    return this.position.qty;
  }
  get positionCostTicks(): number {
    return this.position.costTicks;
  }
  get workingOrderCount(): number {
    return this.book.size;
  }
  get fillCount(): number {
    return this.fillLog.length;
  }

  /** A working order or a suspended leg: an order a cancel or a modify can still reach. */
  findOpen(id: number): Order | undefined {
    return this.book.find(id) ?? this.suspendedLegs.find((o) => o.id === id);
  }

  mark(priceTicks: number, timeS: number): void {
    this.lastPriceTicks = priceTicks;
    this.lastTimeS = timeS;
    this.priced = true;
  }

  /** Where a market order of `side` fills: the last price moved `slippageTicks` against the trader. */
  marketPriceTicks(side: OrderSide): number {
    return this.lastPriceTicks + sideSign(side) * this.slippageTicks;
  }

  // ---- the change journal (changes.ts) ----

  recordOrder(order: Order, created: boolean, timeS: number): void {
    if (this.changes !== null) this.changes.push({ kind: 'order', order: { ...order }, created, timeS });
  }

  recordArmed(order: Order, timeS: number): void {
    if (this.changes !== null) this.changes.push({ kind: 'order', order: { ...order }, created: false, timeS, armed: true });
  }

  /**
   * A ratchet, journaled like any change of the order's stop; a run of ratchets of one order with no
   * other change between them is one entry (its last state), so a trend does not journal every bar.
   */
  recordTrail(order: Order, timeS: number): void {
    const changes = this.changes;
    if (changes === null) return;
    const last = changes[changes.length - 1];
    if (last !== undefined && last.kind === 'order' && last.trailed === true && last.order.id === order.id) {
      changes[changes.length - 1] = { kind: 'order', order: { ...order }, created: false, timeS, trailed: true };
    } else {
      changes.push({ kind: 'order', order: { ...order }, created: false, timeS, trailed: true });
    }
  }

  // ---- orders: created, ended ----

  /** A new order with the next id and priority, in the order log and the journal (not yet in the book). */
  newOrder(f: OrderFields, nowS: number, parentId: number | null, status: OrderStatus): Order {
    const order: Order = {
      id: this.ledger.nextOrderId++,
      type: f.type,
      side: f.side,
      size: f.size,
      limitTicks: f.limitTicks,
      stopTicks: f.stopTicks,
      status,
      fillVolume: 0,
      filledPriceTicks: null,
      createdS: nowS,
      // A rejected record is finished at once; anything else changes state later.
      updatedS: status === OrderStatus.Rejected ? nowS : null,
      slTicks: f.slTicks,
      tpTicks: f.tpTicks,
      parentId,
      ocoId: parentId,
      triggered: false,
      prioritySeq: this.ledger.nextPrioritySeq++,
      trailTicks: f.trailTicks,
      trailExtremeTicks: f.trailExtremeTicks,
      slType: f.slType,
      customTag: f.customTag,
      linkId: f.linkId,
      passive: f.passive,
      legsAnchorTicks: f.legsAnchorTicks,
    };
    this.orderLog.push(order);
    this.recordOrder(order, true, nowS);
    return order;
  }

  /**
   * Ends a working order or a suspended leg as Canceled or Expired; an entry's suspended legs end
   * with it.
   */
  cancel(order: Order, nowS: number, status: OrderStatus): void {
    if (order.status === OrderStatus.Suspended) this.suspendedLegs.splice(this.suspendedLegs.indexOf(order), 1);
    else this.book.remove(order);
    order.status = status;
    order.updatedS = nowS;
    this.recordOrder(order, false, nowS);
    if (order.legsAnchorTicks !== null) {
      for (const leg of this.suspendedLegs.slice()) if (leg.parentId === order.id) this.cancel(leg, nowS, status);
    }
  }
}
