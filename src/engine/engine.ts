// SessionEngine: the deterministic trading core of one replay session (one account, one instrument).
// It owns the working orders, the net position, the balance and the fill log, places and cancels
// orders, and runs the matching loop (matching.ts) over stored bars. Same bars and commands give the
// same fills; no clock is read (times are bar times or passed in as `nowS`).
//
// Model (beyond matching.ts and account.ts):
// - Market orders (and closes, and flatten) fill on placement, all at once, at the last price moved
//   `slippageTicks` against the trader. The last price is the close of the last processed stored bar;
//   before the first bar the caller sets it from the last history bar (setLastPrice). Without a last
//   price, market orders are rejected.
// - Limit, stop and stop-limit orders are Pending (6) until Filled (2) or Canceled (3). One that is
//   already marketable at the last price when placed fills at once at the last price (matching rule 3).
// - Brackets: an entry with slTicks / tpTicks spawns, when it fills, a stop-loss (Stop) and a
//   take-profit (Limit) on the other side, N ticks from the entry price: the fill price for market
//   entries; the order's own price for pending ones (limit → limitTicks, stop → stopTicks,
//   stop-limit → limitTicks, the price it rests at once armed). Legs cover only the contracts the entry
//   opened in its own direction (none if it only reduced a position). Legs are one-cancels-other; they
//   shrink to the position when it is reduced by other means, and are canceled when it goes flat or
//   flips. Directions come from the entry's side; distances are absolute ticks (the adapter strips the
//   gateway's signs). An entry whose leg would rest at or below 0 is refused at placement (a market
//   entry's legs are measured from its fill price, known then) and at modify.
// - Prices are positive: a limit or stop price at or below 0 is refused.
// - Modify (modifyOrder): a working order's size, limit price and stop price may change; its type,
//   side, brackets and OCO link may not. The new values are checked as a placement checks them (size,
//   prices present, positive and in range; risk with the old size replaced by the new), and a modified order
//   marketable at the last price fills at once at that price, as a placement would. Specifically:
//   - Time priority (CME Globex's rule): a price change or a size increase takes a new priority
//     sequence number, so the order goes behind every order already working; a size decrease or a
//     resend of the same values keeps its place. Ids never change.
//   - Risk: a modify that does not raise the size cannot raise the worst-case position, so it is never
//     refused for margin or position limit (like a cancel); an increase is checked as a placement of
//     the new size with the old one removed.
//   - Bracket legs may be modified (size and their one price) and keep their OCO link; a leg's size may
//     not exceed the position it protects, so a leg can never open a position.
//   - An armed stop-limit's stop price has done its work and can no longer change (resending the same
//     value is accepted); its limit price can.
//   - A refused modify leaves the order exactly as it was.
// - Ids come from two counters (orders, fills) starting at cfg.firstOrderId / firstFillId (default 1),
//   and time priority from a third (prioritySeq), all persisted by serialize(), so a restored engine
//   continues the same sequences.

import { coreLimits } from '../core-limits.ts';
import type { BarColumns } from '../data/bar-columns.ts';
import type { Instrument } from '../domain/instrument.ts';
import { type AccountSnapshot, marginUsedCents, rejectionReason } from './account.ts';
import type { EngineChange } from './changes.ts';
import { BarWalker, type MatchingHost, type ProcessResult, processBars } from './matching.ts';
import { OrderBook } from './order-book.ts';
import { applyFill, averagePriceTicks, FLAT, type Lot, type Position, positionFromLots } from './positions.ts';
import type { RuleThresholds, StopRule } from './stop-rule.ts';
import {
  type Fill, NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, oppositeSide, type Order, OrderSide,
  OrderStatus, OrderType, sideSign,
} from './types.ts';

export interface EngineConfig {
  readonly startingBalanceCents: number;
  /** Ticks a market order fills beyond the last price, against the trader. Default 0. */
  readonly slippageTicks?: number;
  /** Largest allowed worst-case |net position| in this instrument's contracts; null or absent = none. */
  readonly maxPositionQty?: number | null;
  readonly firstOrderId?: number;
  readonly firstFillId?: number;
}

export interface PlaceOrderRequest {
  readonly type: OrderType;
  readonly side: OrderSide;
  readonly size: number;
  readonly limitTicks?: number | null;
  readonly stopTicks?: number | null;
  /** Bracket distances in absolute ticks (≥ 1). */
  readonly slTicks?: number | null;
  readonly tpTicks?: number | null;
}

/** A modify's new values; null or absent keeps the order's value. */
export interface ModifyOrderPatch {
  readonly size?: number | null;
  readonly limitTicks?: number | null;
  readonly stopTicks?: number | null;
}

export type Rejected = { readonly kind: 'rejected'; readonly reason: string };
export type PlaceOrderResult = { ok: true; order: Order } | { ok: false; error: Rejected };
export type CancelOrderResult = { ok: true; order: Order } | { ok: false; error: { kind: 'order_not_found' } };
export type ModifyOrderError = { readonly kind: 'order_not_found' } | Rejected;
export type ModifyOrderResult = { ok: true; order: Order } | { ok: false; error: ModifyOrderError };
export type ClosePositionError = { kind: 'position_not_found' } | { kind: 'invalid_close_size' } | Rejected;
export type ClosePositionResult = { ok: true; order: Order } | { ok: false; error: ClosePositionError };

/**
 * Plain JSON-able state; `restore(inst, cfg, serialize())` continues identically. Version 2 added
 * time priority (`prioritySeq` on orders, `nextPrioritySeq`); version 1 states still restore.
 */
export interface EngineState {
  readonly version: 2;
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
}

/**
 * What engines wrote before order modify (rows of live sessions in users' databases): no priority
 * sequence, because id order was time priority.
 */
export interface EngineStateV1 extends Omit<EngineState, 'version' | 'orders' | 'nextPrioritySeq'> {
  readonly version: 1;
  readonly orders: readonly Omit<Order, 'prioritySeq'>[];
}

export class SessionEngine implements MatchingHost {
  readonly book = new OrderBook();
  readonly tickValueCents: number;
  balanceCents: number;
  lastPriceTicks = 0;
  lastTimeS = 0;
  private priced = false;
  private position: Position = FLAT;
  private readonly orderLog: Order[] = [];
  private readonly fillLog: Fill[] = [];
  private nextOrderId: number;
  private nextFillId: number;
  private nextPrioritySeq = 1;
  private readonly slippageTicks: number;
  private readonly maxPositionQty: number | null;
  private readonly walker: BarWalker;
  /** The change journal (changes.ts): null unless a caller asked for it with beginChanges. */
  private changes: EngineChange[] | null = null;
  private readonly scratch: RuleThresholds = {
    upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S,
  };

  constructor(readonly inst: Instrument, cfg: EngineConfig) {
    if (!Number.isSafeInteger(cfg.startingBalanceCents)) throw new Error('startingBalanceCents must be integer cents');
    this.tickValueCents = inst.tickValueCents;
    this.balanceCents = cfg.startingBalanceCents;
    this.slippageTicks = cfg.slippageTicks ?? 0;
    this.maxPositionQty = cfg.maxPositionQty ?? null;
    this.nextOrderId = cfg.firstOrderId ?? 1;
    this.nextFillId = cfg.firstFillId ?? 1;
    if (!Number.isInteger(this.slippageTicks) || this.slippageTicks < 0) throw new Error('slippageTicks must be ≥ 0');
    this.walker = new BarWalker(this);
  }

  // ---- EngineStateView ----
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
  get hasLastPrice(): boolean {
    return this.priced;
  }
  /** Open lots, oldest first (FIFO). */
  get lots(): readonly Lot[] {
    return this.position.lots;
  }
  /** Every order of the session in id order. Read-only: the engine mutates them as they fill. */
  get orders(): readonly Order[] {
    return this.orderLog;
  }
  get fills(): readonly Fill[] {
    return this.fillLog;
  }

  /** Starts recording changes (changes.ts); an earlier, untaken journal is dropped. */
  beginChanges(): void {
    this.changes = [];
  }

  /** The changes recorded since beginChanges, and stops recording. */
  takeChanges(): EngineChange[] {
    const out = this.changes ?? [];
    this.changes = null;
    return out;
  }

  private recordOrder(order: Order, created: boolean, timeS: number): void {
    if (this.changes !== null) this.changes.push({ kind: 'order', order: { ...order }, created, timeS });
  }

  private recordArmed(order: Order, timeS: number): void {
    if (this.changes !== null) this.changes.push({ kind: 'order', order: { ...order }, created: false, timeS, armed: true });
  }

  /** Sets the last price before the first bar (from the last history bar) or after a data reload. */
  setLastPrice(priceTicks: number, timeS: number): void {
    if (!Number.isInteger(priceTicks)) throw new Error(`last price must be integer ticks, got ${priceTicks}`);
    this.mark(priceTicks, timeS);
  }

  mark(priceTicks: number, timeS: number): void {
    this.lastPriceTicks = priceTicks;
    this.lastTimeS = timeS;
    this.priced = true;
  }

  placeOrder(req: PlaceOrderRequest, nowS: number): PlaceOrderResult {
    const invalid = invalidRequest(req);
    if (invalid !== null) return rejected(invalid);
    const market = req.type === OrderType.Market;
    if (market && !this.priced) return rejected('No market price is available yet');
    const anchor = market ? this.marketPriceTicks(req.side) : anchorTicks(req.type, req.limitTicks, req.stopTicks);
    const legs = bracketPriceReason(req.side, anchor, req.slTicks ?? null, req.tpTicks ?? null);
    if (legs !== null) return rejected(legs);
    const reason = this.riskReason(sideSign(req.side) * req.size);
    if (reason !== null) return rejected(reason);
    const order = this.newOrder(req, nowS, null);
    if (market) this.fill(order, this.marketPriceTicks(req.side), nowS);
    else this.book.add(order);
    if (this.priced) this.walker.settleAt(this.lastPriceTicks, nowS);
    return { ok: true, order };
  }

  /**
   * Changes a working order's size and prices (null or absent keeps a value) under the rules in the
   * header ("Modify"); the modified order fills at once when it is marketable at the last price.
   */
  modifyOrder(id: number, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
    const order = this.book.find(id);
    if (order === undefined) return { ok: false, error: { kind: 'order_not_found' } };
    const size = patch.size ?? order.size;
    const limitTicks = patch.limitTicks ?? order.limitTicks;
    const stopTicks = patch.stopTicks ?? order.stopTicks;
    const reason =
      invalidModify(order, patch) ??
      bracketPriceReason(order.side, anchorTicks(order.type, limitTicks, stopTicks), order.slTicks, order.tpTicks) ??
      this.modifyRiskReason(order, size);
    if (reason !== null) return rejected(reason);
    const losesPriority = size > order.size || limitTicks !== order.limitTicks || stopTicks !== order.stopTicks;
    order.size = size;
    order.limitTicks = limitTicks;
    order.stopTicks = stopTicks;
    if (losesPriority) this.book.requeue(order, this.nextPrioritySeq++);
    else this.book.recompute();
    this.recordOrder(order, false, nowS);
    if (this.priced) this.walker.settleAt(this.lastPriceTicks, nowS);
    return { ok: true, order };
  }

  cancelOrder(id: number, nowS: number): CancelOrderResult {
    const order = this.book.find(id);
    if (order === undefined) return { ok: false, error: { kind: 'order_not_found' } };
    this.cancel(order, nowS);
    return { ok: true, order };
  }

  /** Closes `size` contracts (null = all) with a market order in the opposite direction. */
  closePosition(size: number | null, nowS: number): ClosePositionResult {
    const qty = this.position.qty;
    if (qty === 0) return { ok: false, error: { kind: 'position_not_found' } };
    const n = size ?? Math.abs(qty);
    if (!Number.isInteger(n) || n <= 0 || n > Math.abs(qty)) {
      return { ok: false, error: { kind: 'invalid_close_size' } };
    }
    const side = qty > 0 ? OrderSide.Sell : OrderSide.Buy;
    const placed = this.placeOrder({ type: OrderType.Market, side, size: n }, nowS);
    return placed.ok ? placed : { ok: false, error: placed.error };
  }

  /**
   * Cancels every working order, then closes the whole position with a market order at `priceTicks`
   * when given (a liquidation price chosen by the caller, no slippage) or else at the last price with
   * slippage. Used by Replay/end and challenge liquidation. Returns the closing fill, if any.
   */
  flatten(nowS: number, priceTicks?: number): Fill | null {
    for (const order of this.book.working.slice()) this.cancel(order, nowS);
    const qty = this.position.qty;
    if (qty === 0) return null;
    const side = qty > 0 ? OrderSide.Sell : OrderSide.Buy;
    if (priceTicks === undefined && !this.priced) throw new Error('flatten needs a price: the position has none');
    const price = priceTicks ?? this.marketPriceTicks(side);
    const order = this.newOrder({ type: OrderType.Market, side, size: Math.abs(qty) }, nowS, null);
    this.fill(order, price, nowS);
    return this.fillLog[this.fillLog.length - 1];
  }

  /** Runs the matching loop over stored bars [from, to) (see matching.ts and stop-rule.ts). */
  processBars(bars: BarColumns, from: number, to: number, rule: StopRule | null = null): ProcessResult {
    return processBars(this, this.walker, bars, from, to, rule, this.scratch);
  }

  snapshot(): AccountSnapshot {
    const qty = this.position.qty;
    const unrealizedTicks = qty === 0 ? 0 : this.lastPriceTicks * qty - this.position.costTicks;
    const unrealizedPnlCents = unrealizedTicks * this.tickValueCents;
    return {
      balanceCents: this.balanceCents,
      equityCents: this.balanceCents + unrealizedPnlCents,
      unrealizedPnlCents,
      marginUsedCents: marginUsedCents(qty, this.inst.dayMarginCents),
      positionQty: qty,
      avgPriceTicks: averagePriceTicks(this.position),
      openPositions: qty === 0 ? 0 : 1,
      pendingOrders: this.book.size,
    };
  }

  /** MatchingHost: arms an unarmed stop-limit, fills anything else, at `priceTicks`. */
  fire(order: Order, priceTicks: number, timeS: number): void {
    if (order.type === OrderType.StopLimit && !order.triggered) {
      order.triggered = true;
      this.book.recompute();
      this.recordArmed(order, timeS);
      return;
    }
    this.book.remove(order);
    this.fill(order, priceTicks, timeS);
  }

  /** The whole state, history included. */
  serialize(): EngineState {
    return { ...this.coreState(), orders: this.orderLog.map((o) => ({ ...o })), fills: this.fillLog.map((f) => ({ ...f })) };
  }

  /**
   * The state without history: working orders only, no fills. The replay service keeps order and
   * fill history in its store and persists only this after each call, so a call's cost does not
   * grow with the session's history; `restore` accepts it as is.
   */
  coreState(): EngineState {
    return {
      version: 2,
      balanceCents: this.balanceCents,
      lastPriceTicks: this.priced ? this.lastPriceTicks : null,
      lastTimeS: this.lastTimeS,
      positionLots: this.position.lots.map((l) => [l.size, l.priceTicks] as const),
      positionSign: Math.sign(this.position.qty) as 1 | -1 | 0,
      orders: this.book.working.map((o) => ({ ...o })),
      fills: [],
      nextOrderId: this.nextOrderId,
      nextFillId: this.nextFillId,
      nextPrioritySeq: this.nextPrioritySeq,
    };
  }

  static restore(inst: Instrument, cfg: EngineConfig, state: EngineState | EngineStateV1): SessionEngine {
    const version: number = state.version;
    if (version !== 1 && version !== 2) throw new Error(`unknown engine state version ${version}`);
    const e = new SessionEngine(inst, { ...cfg, startingBalanceCents: state.balanceCents });
    if (state.lastPriceTicks !== null) e.mark(state.lastPriceTicks, state.lastTimeS);
    else e.lastTimeS = state.lastTimeS;
    const lots = state.positionLots.map(([size, priceTicks]) => ({ size, priceTicks }));
    e.position = positionFromLots(lots, state.positionSign);
    const working: Order[] = [];
    for (const o of state.orders) {
      // Version 1 kept no priority sequence: its time priority was id order.
      const order: Order = { ...o, prioritySeq: (o as Partial<Order>).prioritySeq ?? o.id };
      e.orderLog.push(order);
      if (order.status === OrderStatus.Pending) working.push(order);
    }
    // serialize() lists orders in id order, coreState() in priority order: the book wants the latter.
    working.sort((a, b) => a.prioritySeq - b.prioritySeq);
    for (const order of working) e.book.add(order);
    for (const f of state.fills) e.fillLog.push({ ...f });
    e.nextOrderId = state.nextOrderId;
    e.nextFillId = state.nextFillId;
    // Every version 1 sequence number is an id, below nextOrderId.
    e.nextPrioritySeq = state.version === 1 ? state.nextOrderId : state.nextPrioritySeq;
    return e;
  }

  // ---- internals ----

  private marketPriceTicks(side: OrderSide): number {
    return this.lastPriceTicks + sideSign(side) * this.slippageTicks;
  }

  /**
   * Why a modify to `size` is refused for risk, or null. A leg must fit in the position it protects;
   * an entry whose size does not grow cannot raise the worst case; a growing one is checked as a
   * placement of the new size with the order itself left out.
   */
  private modifyRiskReason(order: Order, size: number): string | null {
    if (order.parentId !== null) {
      const held = Math.abs(this.position.qty);
      if (size <= held) return null;
      return `A bracket order cannot exceed the position it protects: ${size} contracts asked, ${held} held`;
    }
    return size <= order.size ? null : this.riskReason(sideSign(order.side) * size, order);
  }

  /** Pre-trade risk of a new order of `signedSize` (account.ts), with `excluded` not counted as working. */
  private riskReason(signedSize: number, excluded: Order | null = null): string | null {
    let workingBuyQty = 0;
    let workingSellQty = 0;
    for (const o of this.book.working) {
      if (o.parentId !== null || o === excluded) continue;
      if (o.side === OrderSide.Buy) workingBuyQty += o.size;
      else workingSellQty += o.size;
    }
    const qty = this.position.qty;
    const unrealizedTicks = qty === 0 ? 0 : this.lastPriceTicks * qty - this.position.costTicks;
    return rejectionReason({
      symbol: this.inst.symbol,
      dayMarginCents: this.inst.dayMarginCents,
      maxPositionQty: this.maxPositionQty,
      positionQty: qty,
      equityCents: this.balanceCents + unrealizedTicks * this.tickValueCents,
      workingBuyQty,
      workingSellQty,
      signedSize,
    });
  }

  private newOrder(req: PlaceOrderRequest, nowS: number, parentId: number | null): Order {
    const market = req.type === OrderType.Market;
    const order: Order = {
      id: this.nextOrderId++,
      type: req.type,
      side: req.side,
      size: req.size,
      limitTicks: market ? null : (req.limitTicks ?? null),
      stopTicks: market ? null : (req.stopTicks ?? null),
      status: OrderStatus.Pending,
      fillVolume: 0,
      filledPriceTicks: null,
      createdS: nowS,
      updatedS: null,
      slTicks: req.slTicks ?? null,
      tpTicks: req.tpTicks ?? null,
      parentId,
      ocoId: parentId,
      triggered: false,
      prioritySeq: this.nextPrioritySeq++,
    };
    this.orderLog.push(order);
    this.recordOrder(order, true, nowS);
    return order;
  }

  private cancel(order: Order, nowS: number): void {
    this.book.remove(order);
    order.status = OrderStatus.Canceled;
    order.updatedS = nowS;
    this.recordOrder(order, false, nowS);
  }

  /** Books a fill of a whole order: position, balance, fill log, then OCO, legs and new brackets. */
  private fill(order: Order, priceTicks: number, timeS: number): void {
    const previousQty = this.position.qty;
    const previousAvgTicks = this.changes !== null && previousQty !== 0 ? averagePriceTicks(this.position) : 0;
    const effect = applyFill(this.position, sideSign(order.side), order.size, priceTicks);
    this.position = effect.position;
    const realizedPnlCents = effect.realizedTicks * this.tickValueCents;
    const feeCents = this.inst.feePerSideCents * order.size;
    this.balanceCents += realizedPnlCents - feeCents;
    order.status = OrderStatus.Filled;
    order.fillVolume = order.size;
    order.filledPriceTicks = priceTicks;
    order.updatedS = timeS;
    const fill: Fill = {
      id: this.nextFillId++, orderId: order.id, side: order.side, size: order.size, priceTicks, timeS,
      feeCents, realizedPnlCents,
    };
    this.fillLog.push(fill);
    if (this.changes !== null) {
      this.recordOrder(order, false, timeS);
      const qty = this.position.qty;
      this.changes.push({
        kind: 'fill', fill, balanceCents: this.balanceCents, positionQty: qty,
        avgPriceTicks: qty === 0 ? previousAvgTicks : averagePriceTicks(this.position), previousQty,
      });
    }
    if (order.ocoId !== null) this.cancelOcoSiblings(order, timeS);
    this.fitLegsToPosition(timeS);
    if (effect.openedQty > 0 && (order.slTicks !== null || order.tpTicks !== null)) {
      this.spawnLegs(order, priceTicks, effect.openedQty, timeS);
    }
  }

  private cancelOcoSiblings(order: Order, timeS: number): void {
    for (const o of this.book.working.slice()) if (o.ocoId === order.ocoId) this.cancel(o, timeS);
  }

  /** Legs protect the current position: cancel them when it is flat or flipped, shrink them to it. */
  private fitLegsToPosition(timeS: number): void {
    const qty = this.position.qty;
    for (const leg of this.book.working.slice()) {
      if (leg.parentId === null) continue;
      const protectsLong = leg.side === OrderSide.Sell;
      if (qty === 0 || (protectsLong ? qty < 0 : qty > 0)) this.cancel(leg, timeS);
      else if (leg.size > Math.abs(qty)) {
        leg.size = Math.abs(qty);
        this.recordOrder(leg, false, timeS);
      }
    }
  }

  private spawnLegs(entry: Order, fillPriceTicks: number, size: number, timeS: number): void {
    const anchor =
      entry.type === OrderType.Market ? fillPriceTicks
      : entry.type === OrderType.Stop ? (entry.stopTicks as number)
      : (entry.limitTicks as number);
    const dir = sideSign(entry.side);
    const side = oppositeSide(entry.side);
    if (entry.slTicks !== null) {
      const stopTicks = anchor - dir * entry.slTicks;
      this.book.add(this.newOrder({ type: OrderType.Stop, side, size, stopTicks }, timeS, entry.id));
    }
    if (entry.tpTicks !== null) {
      const limitTicks = anchor + dir * entry.tpTicks;
      this.book.add(this.newOrder({ type: OrderType.Limit, side, size, limitTicks }, timeS, entry.id));
    }
  }
}

function rejected(reason: string): { ok: false; error: Rejected } {
  return { ok: false, error: { kind: 'rejected', reason } };
}

/** Shape checks the adapters normally make first; the engine repeats them so it never holds a bad order. */
function invalidRequest(req: PlaceOrderRequest): string | null {
  if (!Number.isSafeInteger(req.size) || req.size <= 0) return 'Invalid order size';
  if (!Object.values(OrderType).includes(req.type) || !Object.values(OrderSide).includes(req.side)) {
    return 'Invalid order type or side';
  }
  const needsLimit = req.type === OrderType.Limit || req.type === OrderType.StopLimit;
  const needsStop = req.type === OrderType.Stop || req.type === OrderType.StopLimit;
  if (needsLimit && !isPriceTicks(req.limitTicks)) return 'limitPrice is required for Limit and StopLimit orders';
  if (needsStop && !isPriceTicks(req.stopTicks)) return 'stopPrice is required for Stop and StopLimit orders';
  if (needsLimit && (req.limitTicks as number) < 1) return NOT_POSITIVE.limit;
  if (needsStop && (req.stopTicks as number) < 1) return NOT_POSITIVE.stop;
  if (!isBracketTicks(req.slTicks) || !isBracketTicks(req.tpTicks)) {
    return `Bracket ticks must be whole numbers from 1 to ${coreLimits.bracketTicksMax}`;
  }
  return null;
}

const ORDER_TYPE_NAMES: Record<OrderType, string> = { 1: 'Limit', 2: 'Market', 3: 'StopLimit', 4: 'Stop' };

/** Shape checks of a modify, as invalidRequest makes them for a placement; null when it may proceed. */
function invalidModify(order: Order, patch: ModifyOrderPatch): string | null {
  const size = patch.size;
  if (size !== null && size !== undefined && (!Number.isSafeInteger(size) || size <= 0)) return 'Invalid order size';
  const hasLimit = order.type === OrderType.Limit || order.type === OrderType.StopLimit;
  const hasStop = order.type === OrderType.Stop || order.type === OrderType.StopLimit;
  const limit = patch.limitTicks;
  const stop = patch.stopTicks;
  if (limit !== null && limit !== undefined) {
    if (!hasLimit) return `A ${ORDER_TYPE_NAMES[order.type]} order has no limitPrice`;
    if (!isPriceTicks(limit)) return 'limitPrice is out of range';
    if (limit < 1) return NOT_POSITIVE.limit;
  }
  if (stop !== null && stop !== undefined) {
    if (!hasStop) return `A ${ORDER_TYPE_NAMES[order.type]} order has no stopPrice`;
    if (!isPriceTicks(stop)) return 'stopPrice is out of range';
    if (stop < 1) return NOT_POSITIVE.stop;
    if (order.triggered && stop !== order.stopTicks) return 'stopPrice cannot change: the stop-limit order has already triggered';
  }
  return null;
}

// Every traded price is positive (futures and spot forex here); a price at or below 0 is a client's
// mistake, and an order resting there would never be reached, or reached by a wrong bar.
const NOT_POSITIVE = { limit: 'limitPrice must be greater than 0', stop: 'stopPrice must be greater than 0' } as const;

/** The price a pending entry's bracket legs are measured from (see the header, "Brackets"). */
function anchorTicks(type: OrderType, limitTicks: number | null | undefined, stopTicks: number | null | undefined): number {
  return (type === OrderType.Stop ? stopTicks : limitTicks) as number;
}

/** A bracket leg must rest at a positive price: an entry whose leg would land at or below 0 is refused. */
function bracketPriceReason(side: OrderSide, anchor: number, slTicks: number | null, tpTicks: number | null): string | null {
  const dir = sideSign(side);
  if (slTicks !== null && anchor - dir * slTicks < 1) return 'stopLossBracket would place the stop-loss at or below 0';
  if (tpTicks !== null && anchor + dir * tpTicks < 1) return 'takeProfitBracket would place the take-profit at or below 0';
  return null;
}

function isPriceTicks(v: number | null | undefined): boolean {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= coreLimits.priceTicksAbsMax;
}

function isBracketTicks(v: number | null | undefined): boolean {
  return v === null || v === undefined || (Number.isInteger(v) && v >= 1 && v <= coreLimits.bracketTicksMax);
}
