// SessionEngine: the deterministic trading core of one replay session (one account, one instrument).
// It owns the working orders, the net position, the balance and the fill log, places and cancels
// orders, and runs the matching loop (matching.ts) over stored bars. Same bars and commands give the
// same fills; no clock is read (times are bar times or passed in as `nowS`).
//
// Model (beyond matching.ts and account.ts):
// - Market orders (and closes, and flatten) fill on placement, all at once, at the last price moved
//   `slippageTicks` against the trader. The last price is the close of the last processed stored bar;
//   before the first bar the caller sets it from the last history bar (setLastPrice). Without a last
//   price, market orders are rejected (so are trailing stops and JoinBid / JoinAsk, priced from it).
// - Limit, stop and stop-limit orders are Pending (6) until Filled (2) or Canceled (3). One that is
//   already marketable at the last price when placed fills at once at the last price (matching rule 3).
// - The gateway's types, only for a request that opts in (`extendedTypes`; without it they are refused
//   as an unknown type, as the spec wants): TrailingStop (5) with `trailTicks`, starting from the last
//   price; JoinBid (6) / JoinAsk (7), limits at the last price / one tick above it, passive at
//   placement (matching.ts rules 9 and 10). A request's limit or stop price is ignored for them.
// - Brackets: an entry with slTicks / tpTicks spawns, when it fills, a stop-loss (a Stop, or with
//   `slType` TrailingStop a trailing stop whose trail is slTicks) and a take-profit (Limit) on the
//   other side, N ticks from the entry price: the fill price for market entries; the order's own
//   price for pending ones (limit → limitTicks, stop → stopTicks, trailing stop → its stop when it
//   fires, stop-limit → limitTicks, the price it rests at once armed). Legs cover only the contracts
//   the entry opened in its own direction (none if it only reduced a position). Legs are
//   one-cancels-other; they shrink to the position when it is reduced by other means, and are
//   canceled when it goes flat or flips. Directions come from the entry's side; distances are absolute
//   ticks (the adapter strips the gateway's signs). An entry whose leg would rest at or below 0 is
//   refused at placement (a market entry's legs are measured from its fill price, known then) and at
//   modify; a leg a trailing entry's moving anchor would put below 1 rests at 1.
// - Suspended legs (`suspendLegs`): a pending entry's legs are created with it, ids right after its
//   own, with status Suspended (8): not in the book, not working, not counted by risk or snapshot.
//   When the entry fills they become working (a new time priority, size = the contracts it opened,
//   capped by a smaller size the trader gave them; both canceled if it opened none); canceling or
//   expiring the entry ends them the same way. While suspended they may be canceled or modified (a
//   size up to the entry's, their price, a trailing leg's trail). A modify of the entry's price moves
//   them by the same ticks (they keep their distance, as brackets do), a size change of the entry
//   takes along the legs that had its full size; a trailing entry's legs follow its stop at the fill.
//   A market entry's legs spawn on its fill as without the flag.
// - Links (`linkedOrderId`): a new order joins a working (or suspended) order of the session in a
//   one-cancels-other group; the fill of a member cancels the others. A cancel does not.
// - Refusals change nothing, unless the request asks for a record (`recordRejection`): then a refusal
//   past the shape checks (a missing last price, non-positive prices, legs, link, risk) also records
//   the order with status Rejected (5), an id and its update time, and the refusal carries it.
// - Expiry: expireWorking() ends every working and suspended order as Expired (4), for a session's
//   or a challenge phase's end; a cancel by the trader, one-cancels-other and leg fitting stay Canceled.
// - `customTag` is kept on the order (its uniqueness over the account is the service's check).
// - Prices are positive: a limit or stop price at or below 0 is refused.
// - Modify (modifyOrder): a working order's size, limit price, stop price and trail may change; its
//   type, side, brackets and OCO link may not. The new values are checked as a placement checks them
//   (size, prices present, positive and in range; risk with the old size replaced by the new), and a
//   modified order marketable at the last price fills at once at that price, as a placement would.
//   Specifically:
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
//   - A trailing stop's trail may change: the stop is recomputed from the extreme reached (a price
//     change). Its stop price cannot be set: it follows the price.
//   - A JoinBid / JoinAsk whose limit price changes is repriced by the trader: it stops being passive.
//   - A modify is the order's last change (`updatedS`, the live gateway's updateTimestamp); the
//     spec's view still shows only a fill's time there.
//   - A refused modify leaves the order exactly as it was.
// - Ids come from two counters (orders, fills) starting at cfg.firstOrderId / firstFillId (default 1),
//   and time priority from a third (prioritySeq), all persisted by serialize(), so a restored engine
//   continues the same sequences.

import type { BarColumns } from '../data/bar-columns.ts';
import type { Instrument } from '../domain/instrument.ts';
import { type AccountSnapshot, marginUsedCents, rejectionReason } from './account.ts';
import type { EngineChange } from './changes.ts';
import { type EngineState, type EngineStateV1, type EngineStateV2, restoredOrder } from './engine-state.ts';
import { BarWalker, type MatchingHost, type ProcessResult, processBars } from './matching.ts';
import { OrderBook } from './order-book.ts';
import {
  anchorTicks, bracketPriceReason, invalidModify, invalidRequest, legOrderFields, marketFields, NOT_POSITIVE, type OrderFields,
  type PatchShape, type RequestShape, shiftedLegReason, shiftLeg, trailStopTicks,
} from './order-rules.ts';
import { applyFill, averagePriceTicks, FLAT, type Lot, type Position, positionFromLots } from './positions.ts';
import type { RuleThresholds, StopRule } from './stop-rule.ts';
import {
  type Fill, NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, type Order, OrderSide, OrderStatus, OrderType,
  sideSign,
} from './types.ts';

export type { EngineState, EngineStateV1, EngineStateV2 } from './engine-state.ts';

export interface EngineConfig {
  readonly startingBalanceCents: number;
  /** Ticks a market order fills beyond the last price, against the trader. Default 0. */
  readonly slippageTicks?: number;
  /** Largest allowed worst-case |net position| in this instrument's contracts; null or absent = none. */
  readonly maxPositionQty?: number | null;
  readonly firstOrderId?: number;
  readonly firstFillId?: number;
}

export interface PlaceOrderRequest extends RequestShape {
  /** Bracket distances in absolute ticks (≥ 1); with slType TrailingStop slTicks is the leg's trail. */
  readonly slTicks?: number | null;
  readonly tpTicks?: number | null;
  /** Opt-in: types 5–7 and a TrailingStop stop-loss leg (without it they are unknown, as in the spec). */
  readonly extendedTypes?: boolean;
  /** Opt-in: a pending entry's legs are created now, Suspended (see the header). */
  readonly suspendLegs?: boolean;
  /** Opt-in: a refusal is recorded as a Rejected order (see the header). */
  readonly recordRejection?: boolean;
}

/** A modify's new values; null or absent keeps the order's value. */
export type ModifyOrderPatch = PatchShape;

export type Rejected = { readonly kind: 'rejected'; readonly reason: string; readonly order?: Order };
export type PlaceOrderResult = { ok: true; order: Order } | { ok: false; error: Rejected };
export type CancelOrderResult = { ok: true; order: Order } | { ok: false; error: { kind: 'order_not_found' } };
export type ModifyOrderError = { readonly kind: 'order_not_found' } | Rejected;
export type ModifyOrderResult = { ok: true; order: Order } | { ok: false; error: ModifyOrderError };
export type ClosePositionError = { kind: 'position_not_found' } | { kind: 'invalid_close_size' } | Rejected;
export type ClosePositionResult = { ok: true; order: Order } | { ok: false; error: ClosePositionError };

export class SessionEngine implements MatchingHost {
  readonly book = new OrderBook();
  readonly tickValueCents: number;
  balanceCents: number;
  lastPriceTicks = 0;
  lastTimeS = 0;
  private priced = false;
  private position: Position = FLAT;
  /** When the open position opened (from flat or by a flip), and the fill that opened it; null when flat. */
  private openedS: number | null = null;
  private openFillId: number | null = null;
  private readonly orderLog: Order[] = [];
  private readonly fillLog: Fill[] = [];
  /** Bracket legs waiting for their entry's fill (status Suspended), in id order. */
  private readonly suspendedLegs: Order[] = [];
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
  /** Bracket legs waiting for their entry's fill, in id order. */
  get suspended(): readonly Order[] {
    return this.suspendedLegs;
  }

  /** A working order or a suspended leg: an order a cancel or a modify can still reach. */
  findOpen(id: number): Order | undefined {
    return this.book.find(id) ?? this.suspendedLegs.find((o) => o.id === id);
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

  /**
   * A ratchet, journaled like any change of the order's stop; a run of ratchets of one order with no
   * other change between them is one entry (its last state), so a trend does not journal every bar.
   */
  private recordTrail(order: Order, timeS: number): void {
    const changes = this.changes;
    if (changes === null) return;
    const last = changes[changes.length - 1];
    if (last !== undefined && last.kind === 'order' && last.trailed === true && last.order.id === order.id) {
      changes[changes.length - 1] = { kind: 'order', order: { ...order }, created: false, timeS, trailed: true };
    } else {
      changes.push({ kind: 'order', order: { ...order }, created: false, timeS, trailed: true });
    }
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
    const fields = this.orderFields(req);
    const market = req.type === OrderType.Market;
    const reason = this.placementRefusal(req, fields);
    if (reason !== null) return this.refuse(fields, reason, req.recordRejection === true, nowS);
    const target = req.linkedOrderId === null || req.linkedOrderId === undefined ? null : (this.findOpen(req.linkedOrderId) as Order);
    const suspend = req.suspendLegs === true && !market && (fields.slTicks !== null || fields.tpTicks !== null);
    const order = this.newOrder({
      ...fields,
      linkId: target === null ? null : (target.linkId ?? target.id),
      legsAnchorTicks: suspend ? anchorTicks(req.type, fields.limitTicks, fields.stopTicks) : null,
    }, nowS, null, OrderStatus.Pending);
    if (target !== null && target.linkId === null) {
      target.linkId = target.id;
      this.recordOrder(target, false, nowS);
    }
    if (suspend) this.createSuspendedLegs(order, nowS);
    if (market) this.fill(order, this.marketPriceTicks(req.side), nowS);
    else this.book.add(order);
    if (this.priced) this.walker.settleAt(this.lastPriceTicks, nowS);
    return { ok: true, order };
  }

  /** A request's order as the engine will hold it: prices resolved for joins and trailing stops. */
  private orderFields(req: PlaceOrderRequest): OrderFields {
    const last = this.priced ? this.lastPriceTicks : null;
    let limitTicks = req.limitTicks ?? null;
    let stopTicks = req.stopTicks ?? null;
    let trailTicks: number | null = null;
    let trailExtremeTicks: number | null = null;
    const type = req.type;
    if (type === OrderType.Market) limitTicks = stopTicks = null;
    else if (type === OrderType.JoinBid || type === OrderType.JoinAsk) {
      limitTicks = last === null ? null : type === OrderType.JoinBid ? last : last + 1;
      stopTicks = null;
    } else if (type === OrderType.TrailingStop) {
      trailTicks = req.trailTicks as number;
      trailExtremeTicks = last;
      limitTicks = null;
      stopTicks = last === null ? null : trailStopTicks(req.side, last, trailTicks);
    }
    const slTicks = req.slTicks ?? null;
    return {
      type, side: req.side, size: req.size, limitTicks, stopTicks, trailTicks, trailExtremeTicks,
      slTicks, tpTicks: req.tpTicks ?? null, slType: slTicks === null ? null : (req.slType ?? OrderType.Stop),
      customTag: req.customTag ?? null, linkId: null, passive: type === OrderType.JoinBid || type === OrderType.JoinAsk,
      legsAnchorTicks: null,
    };
  }

  /** Why a well-formed placement is refused, in this order: price, prices, legs, link, risk; null to place it. */
  private placementRefusal(req: PlaceOrderRequest, f: OrderFields): string | null {
    const needsLast = f.type === OrderType.Market || f.type === OrderType.TrailingStop || f.type === OrderType.JoinBid || f.type === OrderType.JoinAsk;
    if (needsLast && !this.priced) return 'No market price is available yet';
    if (f.type === OrderType.TrailingStop && (f.stopTicks as number) < 1) return NOT_POSITIVE.trail;
    if (f.limitTicks !== null && f.limitTicks < 1) return NOT_POSITIVE.limit;
    if (f.stopTicks !== null && f.stopTicks < 1) return NOT_POSITIVE.stop;
    const anchor = f.type === OrderType.Market ? this.marketPriceTicks(f.side) : anchorTicks(f.type, f.limitTicks, f.stopTicks);
    const legs = bracketPriceReason(f.side, anchor, f.slTicks, f.tpTicks);
    if (legs !== null) return legs;
    if (req.linkedOrderId !== null && req.linkedOrderId !== undefined && this.findOpen(req.linkedOrderId) === undefined) {
      return `linkedOrderId ${req.linkedOrderId} names no working order`;
    }
    return this.riskReason(sideSign(f.side) * f.size);
  }

  /** A refusal; recorded as a Rejected order when asked (see the header). */
  private refuse(f: OrderFields, reason: string, record: boolean, nowS: number): PlaceOrderResult {
    if (!record) return rejected(reason);
    const order = this.newOrder(f, nowS, null, OrderStatus.Rejected);
    return { ok: false, error: { kind: 'rejected', reason, order } };
  }

  /**
   * Changes a working order's or a suspended leg's size and prices (null or absent keeps a value)
   * under the rules in the header ("Modify"); the modified order fills at once when it is marketable
   * at the last price.
   */
  modifyOrder(id: number, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
    const order = this.book.find(id);
    if (order === undefined) {
      const leg = this.suspendedLegs.find((o) => o.id === id);
      return leg === undefined ? { ok: false, error: { kind: 'order_not_found' } } : this.modifySuspended(leg, patch, nowS);
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
      this.suspendedShiftReason(order, anchor) ??
      this.modifyRiskReason(order, size);
    if (reason !== null) return rejected(reason);
    const repriced = limitTicks !== order.limitTicks;
    const losesPriority = size > order.size || repriced || stopTicks !== order.stopTicks;
    this.modifySuspendedOf(order, anchor, size, nowS);
    order.size = size;
    order.limitTicks = limitTicks;
    order.stopTicks = stopTicks;
    order.trailTicks = trailTicks;
    if (repriced) order.passive = false;
    order.updatedS = nowS;
    if (losesPriority) this.book.requeue(order, this.nextPrioritySeq++);
    else this.book.recompute();
    this.recordOrder(order, false, nowS);
    if (this.priced) this.walker.settleAt(this.lastPriceTicks, nowS);
    return { ok: true, order };
  }

  /** A modify of a suspended leg: its size (up to its entry's), its price or trail; no risk, no book. */
  private modifySuspended(leg: Order, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
    const entry = this.book.find(leg.parentId as number) as Order;
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
    this.recordOrder(leg, false, nowS);
    return { ok: true, order: leg };
  }

  /** Why moving `entry`'s anchor to `anchor` would put a suspended leg at or below 0, or null. */
  private suspendedShiftReason(entry: Order, anchor: number): string | null {
    if (entry.legsAnchorTicks === null) return null;
    const delta = anchor - entry.legsAnchorTicks;
    for (const leg of this.suspendedLegs) {
      if (leg.parentId !== entry.id) continue;
      const reason = shiftedLegReason(leg, delta);
      if (reason !== null) return reason;
    }
    return null;
  }

  /** An entry's modify moves its suspended legs with its anchor and takes along those of its full size. */
  private modifySuspendedOf(entry: Order, anchor: number, size: number, nowS: number): void {
    if (entry.legsAnchorTicks === null) return;
    const delta = anchor - entry.legsAnchorTicks;
    entry.legsAnchorTicks = anchor;
    for (const leg of this.suspendedLegs) {
      if (leg.parentId !== entry.id) continue;
      const newSize = leg.size === entry.size || leg.size > size ? size : leg.size;
      if (delta === 0 && newSize === leg.size) continue;
      shiftLeg(leg, delta);
      leg.size = newSize;
      this.recordOrder(leg, false, nowS);
    }
  }

  cancelOrder(id: number, nowS: number): CancelOrderResult {
    const order = this.findOpen(id);
    if (order === undefined) return { ok: false, error: { kind: 'order_not_found' } };
    this.cancel(order, nowS, OrderStatus.Canceled);
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
    for (const order of this.book.working.slice()) this.cancel(order, nowS, OrderStatus.Canceled);
    const qty = this.position.qty;
    if (qty === 0) return null;
    const side = qty > 0 ? OrderSide.Sell : OrderSide.Buy;
    if (priceTicks === undefined && !this.priced) throw new Error('flatten needs a price: the position has none');
    const price = priceTicks ?? this.marketPriceTicks(side);
    const order = this.newOrder(marketFields(side, Math.abs(qty)), nowS, null, OrderStatus.Pending);
    this.fill(order, price, nowS);
    return this.fillLog[this.fillLog.length - 1];
  }

  /** Ends every working order and suspended leg as Expired: the session or the challenge phase is over. */
  expireWorking(nowS: number): void {
    for (const order of this.book.working.slice()) this.cancel(order, nowS, OrderStatus.Expired);
    for (const leg of this.suspendedLegs.slice()) this.cancel(leg, nowS, OrderStatus.Expired);
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

  /** MatchingHost: trailing stops of `side` follow the price to `reachTicks` (matching.ts, rule 10). */
  ratchet(side: OrderSide, reachTicks: number, timeS: number): void {
    const sell = side === OrderSide.Sell;
    for (const o of this.book.working) {
      if (o.type !== OrderType.TrailingStop || o.side !== side) continue;
      const extreme = o.trailExtremeTicks as number;
      if (sell ? extreme >= reachTicks : extreme <= reachTicks) continue;
      o.trailExtremeTicks = reachTicks;
      o.stopTicks = trailStopTicks(side, reachTicks, o.trailTicks as number);
      this.recordTrail(o, timeS);
    }
    this.book.recompute();
  }

  /** The whole state, history included. */
  serialize(): EngineState {
    return { ...this.coreState(), orders: this.orderLog.map((o) => ({ ...o })), fills: this.fillLog.map((f) => ({ ...f })) };
  }

  /**
   * The state without history: working orders and suspended legs only, no fills. The replay service
   * keeps order and fill history in its store and persists only this after each call, so a call's
   * cost does not grow with the session's history; `restore` accepts it as is.
   */
  coreState(): EngineState {
    return {
      version: 3,
      balanceCents: this.balanceCents,
      lastPriceTicks: this.priced ? this.lastPriceTicks : null,
      lastTimeS: this.lastTimeS,
      positionLots: this.position.lots.map((l) => [l.size, l.priceTicks] as const),
      positionSign: Math.sign(this.position.qty) as 1 | -1 | 0,
      orders: [...this.book.working, ...this.suspendedLegs].map((o) => ({ ...o })),
      fills: [],
      nextOrderId: this.nextOrderId,
      nextFillId: this.nextFillId,
      nextPrioritySeq: this.nextPrioritySeq,
      positionOpenedS: this.openedS,
      positionOpenFillId: this.openFillId,
    };
  }

  static restore(inst: Instrument, cfg: EngineConfig, state: EngineState | EngineStateV2 | EngineStateV1): SessionEngine {
    const version: number = state.version;
    if (version !== 1 && version !== 2 && version !== 3) throw new Error(`unknown engine state version ${version}`);
    const e = new SessionEngine(inst, { ...cfg, startingBalanceCents: state.balanceCents });
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

  private newOrder(f: OrderFields, nowS: number, parentId: number | null, status: OrderStatus): Order {
    const order: Order = {
      id: this.nextOrderId++,
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
      prioritySeq: this.nextPrioritySeq++,
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
  private cancel(order: Order, nowS: number, status: OrderStatus): void {
    if (order.status === OrderStatus.Suspended) this.suspendedLegs.splice(this.suspendedLegs.indexOf(order), 1);
    else this.book.remove(order);
    order.status = status;
    order.updatedS = nowS;
    this.recordOrder(order, false, nowS);
    if (order.legsAnchorTicks !== null) {
      for (const leg of this.suspendedLegs.slice()) if (leg.parentId === order.id) this.cancel(leg, nowS, status);
    }
  }

  /** Books a fill of a whole order: position, balance, fill log, then OCO, links, legs and new brackets. */
  private fill(order: Order, priceTicks: number, timeS: number): void {
    const openedQty = this.bookFill(order, priceTicks, timeS);
    if (order.ocoId !== null) this.cancelOcoSiblings(order, timeS);
    if (order.linkId !== null) this.cancelLinked(order, timeS);
    this.fitLegsToPosition(timeS);
    if (order.legsAnchorTicks !== null) this.activateLegs(order, openedQty, timeS);
    else if (openedQty > 0 && (order.slTicks !== null || order.tpTicks !== null)) {
      this.spawnLegs(order, priceTicks, openedQty, timeS);
    }
  }

  /** The fill itself: position, balance, the order's state, the fill log and the journal. Returns the contracts opened. */
  private bookFill(order: Order, priceTicks: number, timeS: number): number {
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
      feeCents, realizedPnlCents, closedQty: order.size - effect.openedQty,
    };
    this.fillLog.push(fill);
    const before = { openedS: this.openedS, fillId: this.openFillId };
    this.trackOpening(previousQty, fill);
    if (this.changes !== null) {
      this.recordOrder(order, false, timeS);
      const qty = this.position.qty;
      // A fill that leaves the account flat tells the opening of the position it closed.
      const opening = qty === 0 ? before : { openedS: this.openedS, fillId: this.openFillId };
      this.changes.push({
        kind: 'fill', fill, balanceCents: this.balanceCents, positionQty: qty,
        avgPriceTicks: qty === 0 ? previousAvgTicks : averagePriceTicks(this.position), previousQty,
        positionOpenedS: opening.openedS, positionOpenFillId: opening.fillId,
      });
    }
    return effect.openedQty;
  }

  /** A position opens from flat or by a flip; it keeps its opening while it grows or shrinks. */
  private trackOpening(previousQty: number, fill: Fill): void {
    const qty = this.position.qty;
    if (qty === 0) {
      this.openedS = null;
      this.openFillId = null;
    } else if (previousQty === 0 || Math.sign(previousQty) !== Math.sign(qty)) {
      this.openedS = fill.timeS;
      this.openFillId = fill.id;
    }
  }

  /** The open position's opening: when, and the fill that opened it (null when flat, or unknown in an older state). */
  get positionOpening(): { openedS: number; fillId: number } | null {
    return this.openedS === null || this.openFillId === null ? null : { openedS: this.openedS, fillId: this.openFillId };
  }

  private cancelOcoSiblings(order: Order, timeS: number): void {
    for (const o of this.book.working.slice()) if (o.ocoId === order.ocoId) this.cancel(o, timeS, OrderStatus.Canceled);
  }

  /** The other members of a filled order's linkedOrderId group are canceled. */
  private cancelLinked(order: Order, timeS: number): void {
    for (const o of this.book.working.slice()) if (o.linkId === order.linkId) this.cancel(o, timeS, OrderStatus.Canceled);
    for (const o of this.suspendedLegs.slice()) if (o.linkId === order.linkId) this.cancel(o, timeS, OrderStatus.Canceled);
  }

  /** Legs protect the current position: cancel them when it is flat or flipped, shrink them to it. */
  private fitLegsToPosition(timeS: number): void {
    const qty = this.position.qty;
    for (const leg of this.book.working.slice()) {
      if (leg.parentId === null) continue;
      const protectsLong = leg.side === OrderSide.Sell;
      if (qty === 0 || (protectsLong ? qty < 0 : qty > 0)) this.cancel(leg, timeS, OrderStatus.Canceled);
      else if (leg.size > Math.abs(qty)) {
        leg.size = Math.abs(qty);
        this.recordOrder(leg, false, timeS);
      }
    }
  }

  /** The legs of an entry that filled, spawned now (see the header, "Brackets"). */
  private spawnLegs(entry: Order, fillPriceTicks: number, size: number, timeS: number): void {
    const anchor = entry.type === OrderType.Market ? fillPriceTicks : anchorTicks(entry.type, entry.limitTicks, entry.stopTicks);
    for (const leg of legOrderFields(entry, anchor, size)) {
      this.book.add(this.newOrder(leg, timeS, entry.id, OrderStatus.Pending));
    }
  }

  /** The legs of a pending entry, created with it as Suspended (see the header, "Suspended legs"). */
  private createSuspendedLegs(entry: Order, nowS: number): void {
    for (const leg of legOrderFields(entry, entry.legsAnchorTicks as number, entry.size)) {
      this.suspendedLegs.push(this.newOrder(leg, nowS, entry.id, OrderStatus.Suspended));
    }
  }

  /** The suspended legs of an entry that filled become working for the contracts it opened, or end. */
  private activateLegs(entry: Order, openedQty: number, timeS: number): void {
    const delta = anchorTicks(entry.type, entry.limitTicks, entry.stopTicks) - (entry.legsAnchorTicks as number);
    for (const leg of this.suspendedLegs.slice()) {
      if (leg.parentId !== entry.id) continue;
      if (openedQty === 0) {
        this.cancel(leg, timeS, OrderStatus.Canceled);
        continue;
      }
      this.suspendedLegs.splice(this.suspendedLegs.indexOf(leg), 1);
      shiftLeg(leg, delta);
      leg.size = Math.min(leg.size, openedQty);
      leg.status = OrderStatus.Pending;
      leg.updatedS = timeS;
      leg.prioritySeq = this.nextPrioritySeq++;
      this.book.add(leg);
      this.recordOrder(leg, false, timeS);
    }
  }
}

function rejected(reason: string): { ok: false; error: Rejected } {
  return { ok: false, error: { kind: 'rejected', reason } };
}
