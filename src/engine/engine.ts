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
//
// The parts: engine-core.ts (state, ids, journal, cancel), engine-place.ts, engine-modify.ts,
// engine-fills.ts, engine-legs.ts (brackets, OCO, links), engine-state.ts (serialize, restore).

import type { BarColumns } from '../data/bar-columns.ts';
import { type Instrument, ticksToCents } from '../domain/instrument.ts';
import { type AccountSnapshot, marginUsedCents } from './account.ts';
import type { EngineChange } from './changes.ts';
import { type EngineConfig, EngineCore } from './engine-core.ts';
import { fill } from './engine-fills.ts';
import { type ModifyOrderPatch, type ModifyOrderResult, modifyOrder } from './engine-modify.ts';
import { type PlaceOrderRequest, type PlaceOrderResult, placeOrder, type Rejected } from './engine-place.ts';
import { coreStateOf, type EngineState, type EngineStateV1, type EngineStateV2, restoreInto } from './engine-state.ts';
import { BarWalker, type MatchingHost, type ProcessResult, processBars } from './matching.ts';
import { marketFields, trailStopTicks } from './order-rules.ts';
import { averagePriceTicks, type Lot } from './positions.ts';
import type { RuleThresholds, StopRule } from './stop-rule.ts';
import {
  type Fill, NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, type Order, OrderSide, OrderStatus, OrderType,
} from './types.ts';

export type { EngineConfig } from './engine-core.ts';
export type { ModifyOrderError, ModifyOrderPatch, ModifyOrderResult } from './engine-modify.ts';
export type { PlaceOrderRequest, PlaceOrderResult, Rejected } from './engine-place.ts';
export type { EngineState, EngineStateV1, EngineStateV2 } from './engine-state.ts';

export type CancelOrderResult = { ok: true; order: Order } | { ok: false; error: { kind: 'order_not_found' } };
export type ClosePositionError = { kind: 'position_not_found' } | { kind: 'invalid_close_size' } | Rejected;
export type ClosePositionResult = { ok: true; order: Order } | { ok: false; error: ClosePositionError };

export class SessionEngine extends EngineCore implements MatchingHost {
  private readonly walker = new BarWalker(this);
  private readonly scratch: RuleThresholds = {
    upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S,
  };

  // ---- reads ----
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

  /** The open position's opening: when, and the fill that opened it (null when flat, or unknown in an older state). */
  get positionOpening(): { openedS: number; fillId: number } | null {
    return this.openedS === null || this.openFillId === null ? null : { openedS: this.openedS, fillId: this.openFillId };
  }

  /**
   * The account's snapshot. Under a ledger shared by several contracts (ledger.ts) the money, the
   * open positions and the working orders are the account's, across its contracts; the position
   * fields (`positionQty`, `avgPriceTicks`) stay this contract's.
   */
  snapshot(): AccountSnapshot {
    const qty = this.position.qty;
    const unrealizedTicks = qty === 0 ? 0 : this.lastPriceTicks * qty - this.position.costTicks;
    const unrealizedPnlCents = ticksToCents(unrealizedTicks, this.tickValueCents);
    if (this.ledger.shared) return this.accountSnapshot(qty);
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

  private accountSnapshot(qty: number): AccountSnapshot {
    let unrealizedPnlCents = 0;
    let marginCents = 0;
    let open = 0;
    let pending = 0;
    for (const m of this.ledger.members) {
      unrealizedPnlCents += m.unrealizedCents;
      marginCents += marginUsedCents(m.position.qty, m.inst.dayMarginCents);
      if (m.position.qty !== 0) open++;
      pending += m.book.size;
    }
    return {
      balanceCents: this.balanceCents,
      equityCents: this.balanceCents + unrealizedPnlCents,
      unrealizedPnlCents,
      marginUsedCents: marginCents,
      positionQty: qty,
      avgPriceTicks: averagePriceTicks(this.position),
      openPositions: open,
      pendingOrders: pending,
    };
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

  /** Sets the last price before the first bar (from the last history bar) or after a data reload. */
  setLastPrice(priceTicks: number, timeS: number): void {
    if (!Number.isInteger(priceTicks)) throw new Error(`last price must be integer ticks, got ${priceTicks}`);
    this.mark(priceTicks, timeS);
  }

  // ---- commands ----

  placeOrder(req: PlaceOrderRequest, nowS: number): PlaceOrderResult {
    return placeOrder(this, this.walker, req, nowS);
  }

  /**
   * Changes a working order's or a suspended leg's size and prices (null or absent keeps a value)
   * under the rules in the header ("Modify"); the modified order fills at once when it is marketable
   * at the last price.
   */
  modifyOrder(id: number, patch: ModifyOrderPatch, nowS: number): ModifyOrderResult {
    return modifyOrder(this, this.walker, id, patch, nowS);
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
    fill(this, order, price, nowS);
    return this.fillLog[this.fillLog.length - 1];
  }

  /** Ends every working order and suspended leg as Expired: the session or the challenge phase is over. */
  expireWorking(nowS: number): void {
    for (const order of this.book.working.slice()) this.cancel(order, nowS, OrderStatus.Expired);
    for (const leg of this.suspendedLegs.slice()) this.cancel(leg, nowS, OrderStatus.Expired);
  }

  // ---- the bar loop (matching.ts): this engine is its MatchingHost ----

  /** Runs the matching loop over stored bars [from, to) (see matching.ts and stop-rule.ts). */
  processBars(bars: BarColumns, from: number, to: number, rule: StopRule | null = null): ProcessResult {
    return processBars(this, this.walker, bars, from, to, rule, this.scratch);
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
    fill(this, order, priceTicks, timeS);
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

  // ---- state (engine-state.ts) ----

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
    return coreStateOf(this);
  }

  static restore(inst: Instrument, cfg: EngineConfig, state: EngineState | EngineStateV2 | EngineStateV1): SessionEngine {
    const version: number = state.version;
    if (version !== 1 && version !== 2 && version !== 3) throw new Error(`unknown engine state version ${version}`);
    const e = new SessionEngine(inst, { ...cfg, startingBalanceCents: state.balanceCents });
    restoreInto(e, state);
    return e;
  }
}
