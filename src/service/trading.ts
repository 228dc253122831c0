// Orders, positions and fills of replay sessions (the gateway's Order/*, Position/*, Trade/*).
// Every change is committed with the session before the call returns. Orders and fills carry the
// session's simulated time.

import { limits } from '../config.ts';
import { coreLimits } from '../core-limits.ts';
import { instrumentForContractId } from '../domain/contract-id.ts';
import { type Instrument, priceToTicks } from '../domain/instrument.ts';
import type { PlaceOrderRequest } from '../engine/engine.ts';
import { type Fill, type Order, OrderSide, OrderStatus, OrderType } from '../engine/types.ts';
import { assert } from '../lib/assert.ts';
import { type Invalid, isInvalid } from '../lib/invalid.ts';
import { parseIsoMs } from '../lib/iso-time.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { ReplayStore } from '../store/replay.ts';
import type { LiveSession } from './replay/session.ts';
import { challengeTradeDate, orderRefusal } from '../challenge/state.ts';
import type { ReplayService, SessionError, TradeSessionError } from './replay/service.ts';

type PriceField = 'limit' | 'stop';
type BracketLeg = 'stop_loss' | 'take_profit';

export type PlaceError =
  | { kind: 'invalid_size' }
  | { kind: 'invalid_type_or_side' }
  | TradeSessionError
  | { kind: 'contract_not_found' }
  | { kind: 'contract_mismatch'; sessionSymbol: string; requestedSymbol: string }
  | { kind: 'price_required'; field: PriceField }
  | PriceError
  | { kind: 'invalid_bracket'; leg: BracketLeg }
  | { kind: 'rejected'; reason: string };

type PriceError =
  | { kind: 'price_off_grid'; field: PriceField; price: number; tickSize: number }
  | { kind: 'price_out_of_range'; field: PriceField; price: number };

/** Why an order id names no working order: it filled, it was canceled, or the account has no such order. */
export type OrderStateError = { kind: 'order_not_found' } | { kind: 'order_filled' } | { kind: 'order_canceled' };

export type CancelError = SessionError | OrderStateError;

export type ModifyError =
  | TradeSessionError
  | OrderStateError
  | { kind: 'invalid_size' }
  | { kind: 'invalid_price'; field: PriceField }
  | { kind: 'price_not_applicable'; field: PriceField; orderType: OrderType }
  | PriceError
  | { kind: 'rejected'; reason: string };
export type CloseError = TradeSessionError | { kind: 'position_not_found' } | { kind: 'rejected'; reason: string };
export type PartialCloseError = CloseError | { kind: 'invalid_close_size' };
export type SearchError = { kind: 'account_not_found' } | { kind: 'invalid_timestamp' };

/**
 * Order/place as the family's route parsed it: each field as its schema types it, or `INVALID` where
 * the schema failed and the family leaves the refusal to this service's order of checks (a `defer`
 * field rule), so a field is checked once.
 */
export interface PlaceInput {
  accountId: number | Invalid;
  contractId: string | Invalid;
  type: OrderType | Invalid;
  side: OrderSide | Invalid;
  /** 1 to `limits.orderSizeMax`: every family refuses another size before the service runs. */
  size: number;
  limitPrice: number | null | undefined | Invalid;
  stopPrice: number | null | undefined | Invalid;
  /** Bracket distances (the adapter unwraps its wire shape), non-zero whole ticks; undefined or null = none. */
  stopLossTicks: number | null | undefined | Invalid;
  takeProfitTicks: number | null | undefined | Invalid;
}

/** Order/modify: the order and its new values as sent; undefined or null keeps a value. */
export interface ModifyInput {
  accountId: unknown;
  orderId: unknown;
  size: unknown;
  limitPrice: unknown;
  stopPrice: unknown;
}

/** Rows of one replay account, with the instrument it trades (null: no replay account, no rows). */
export interface Listing<T> {
  instrument: Instrument | null;
  rows: T[];
}

export interface OpenPosition {
  session: LiveSession;
  qty: number;
  avgPriceTicks: number;
}


const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export class TradingService {
  constructor(
    private readonly replay: ReplayService,
    private readonly store: ReplayStore,
    private readonly accounts: AccountStore,
  ) {}

  async place(userId: number, input: PlaceInput): Promise<Result<{ order: Order }, PlaceError>> {
    assert(isInt(input.size) && input.size >= 1 && input.size <= limits.orderSizeMax, 'an order size the route should have refused');
    const type = input.type;
    const side = input.side;
    if (isInvalid(type) || isInvalid(side)) return err({ kind: 'invalid_type_or_side' });
    const found = await this.replay.resolve(userId, input.accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, (s): Result<{ order: Order }, PlaceError> => {
      const refusal = s.challenge ? orderRefusal(s.challenge.rule.state, challengeTradeDate(s.nowS)) : null;
      if (refusal) return err(refusal);
      const req = this.orderRequest(s, input, type, side, input.size);
      if (!req.ok) return req;
      const placed = s.engine.placeOrder(req.value, s.nowS);
      return placed.ok ? ok({ order: placed.order }) : placed; // a rejection changes nothing
    });
  }

  /** Contract, prices and brackets of a new order, in ticks. */
  private orderRequest(s: LiveSession, input: PlaceInput, type: OrderType, side: OrderSide, size: number): Result<PlaceOrderRequest, PlaceError> {
    const inst = isInvalid(input.contractId) ? undefined : instrumentForContractId(input.contractId);
    if (!inst) return err({ kind: 'contract_not_found' });
    if (inst !== s.inst) return err({ kind: 'contract_mismatch', sessionSymbol: s.inst.symbol, requestedSymbol: inst.symbol });
    const price = (field: PriceField, v: PlaceInput['limitPrice'], needed: boolean): Result<number | null, PlaceError> => {
      if (!needed) return ok(null);
      if (typeof v !== 'number') return err({ kind: 'price_required', field }); // absent, null or INVALID
      return priceTicks(inst, field, v);
    };
    const limit = price('limit', input.limitPrice, type === OrderType.Limit || type === OrderType.StopLimit);
    if (!limit.ok) return limit;
    const stop = price('stop', input.stopPrice, type === OrderType.Stop || type === OrderType.StopLimit);
    if (!stop.ok) return stop;
    const sl = bracketTicks(input.stopLossTicks, 'stop_loss');
    if (!sl.ok) return sl;
    const tp = bracketTicks(input.takeProfitTicks, 'take_profit');
    if (!tp.ok) return tp;
    return ok({ type, side, size, limitTicks: limit.value, stopTicks: stop.value, slTicks: sl.value, tpTicks: tp.value });
  }

  async cancel(userId: number, accountId: unknown, orderId: unknown): Promise<Result<{ order: Order }, CancelError>> {
    const found = await this.replay.live(userId, accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, async (s): Promise<Result<{ order: Order }, CancelError>> => {
      const working = await this.workingOrder(s, orderId);
      if (!working.ok) return working;
      const r = s.engine.cancelOrder(working.value.id, s.nowS);
      assert(r.ok, 'a working order could not be canceled');
      return ok({ order: r.order });
    });
  }

  /**
   * Changes a working order's size, limit price or stop price (engine.ts, "Modify"). Checks in this
   * order: account and session, the challenge's refusal (as for a placement), the order, size, limit
   * price, stop price, then the engine's own checks (risk, legs, an armed stop). A modified order that
   * is marketable fills at once; the change is committed before the answer, like every command.
   */
  async modify(userId: number, input: ModifyInput): Promise<Result<{ order: Order }, ModifyError>> {
    const found = await this.replay.resolve(userId, input.accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, (s) => this.modifyLocked(s, input));
  }

  private async modifyLocked(s: LiveSession, input: ModifyInput): Promise<Result<{ order: Order }, ModifyError>> {
    const refusal = s.challenge ? orderRefusal(s.challenge.rule.state, challengeTradeDate(s.nowS)) : null;
    if (refusal) return err(refusal);
    const working = await this.workingOrder(s, input.orderId);
    if (!working.ok) return working;
    const order = working.value;
    const size = input.size;
    if (size !== undefined && size !== null && (!isInt(size) || size < 1 || size > limits.orderSizeMax)) {
      return err({ kind: 'invalid_size' });
    }
    const hasLimit = order.type === OrderType.Limit || order.type === OrderType.StopLimit;
    const limit = this.modifiedPrice(s, order, 'limit', input.limitPrice, hasLimit);
    if (!limit.ok) return limit;
    const hasStop = order.type === OrderType.Stop || order.type === OrderType.StopLimit;
    const stop = this.modifiedPrice(s, order, 'stop', input.stopPrice, hasStop);
    if (!stop.ok) return stop;
    const patch = { size: size as number | null | undefined, limitTicks: limit.value, stopTicks: stop.value };
    const r = s.engine.modifyOrder(order.id, patch, s.nowS);
    return r.ok ? ok({ order: r.order }) : r; // a refusal changes nothing
  }

  /** A modify's new price in ticks; null keeps the order's price. */
  private modifiedPrice(s: LiveSession, order: Order, field: PriceField, v: unknown, applicable: boolean): Result<number | null, ModifyError> {
    if (v === undefined || v === null) return ok(null);
    if (typeof v !== 'number') return err({ kind: 'invalid_price', field });
    if (!applicable) return err({ kind: 'price_not_applicable', field, orderType: order.type });
    return priceTicks(s.inst, field, v);
  }

  /**
   * The working order `orderId` of a live session, or what became of it. Finished orders are read from
   * the store: a restored engine holds only its working orders.
   */
  private async workingOrder(s: LiveSession, orderId: unknown): Promise<Result<Order, OrderStateError>> {
    if (!isInt(orderId)) return err({ kind: 'order_not_found' });
    const working = s.engine.book.find(orderId);
    if (working) return ok(working);
    const stored = await this.store.order(s.accountId, orderId);
    if (stored?.status === OrderStatus.Filled) return err({ kind: 'order_filled' });
    if (stored?.status === OrderStatus.Canceled) return err({ kind: 'order_canceled' });
    return err({ kind: 'order_not_found' });
  }

  /**
   * Orders of an account the user owns, newest first, bounded by submission time (inclusive), with
   * the instrument they trade (null for accounts that never traded: then there are none).
   */
  async search(userId: number, accountId: unknown, start: unknown, end: unknown): Promise<Result<Listing<Order>, SearchError>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const range = timeBounds(start, end);
    if (!range) return err({ kind: 'invalid_timestamp' });
    return ok(await this.listing(owned, () => this.store.searchOrders(owned, range.fromS, range.toS, limits.orderSearchMax)));
  }

  /** Working orders of the live session, newest first; empty when the account has no live session. */
  async searchOpen(userId: number, accountId: unknown): Promise<Result<Listing<Order>, { kind: 'account_not_found' }>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const found = await this.replay.live(userId, owned);
    if (!found.ok) return ok({ instrument: null, rows: [] });
    await this.replay.touch(found.value);
    // Newest placement first: the book's own order is time priority, which a modify can change.
    const rows = [...found.value.engine.book.working].sort((a, b) => b.id - a.id);
    return ok({ instrument: found.value.inst, rows });
  }

  async positions(userId: number, accountId: unknown): Promise<Result<OpenPosition[], { kind: 'account_not_found' }>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (!owned) return err({ kind: 'account_not_found' });
    const found = await this.replay.live(userId, owned);
    if (!found.ok) return ok([]);
    await this.replay.touch(found.value);
    if (found.value.engine.positionQty === 0) return ok([]);
    const snap = found.value.engine.snapshot();
    return ok([{ session: found.value, qty: snap.positionQty, avgPriceTicks: snap.avgPriceTicks }]);
  }

  async close(userId: number, accountId: unknown, contractId: unknown): Promise<Result<{ order: Order }, CloseError>> {
    const r = await this.closeSized(userId, accountId, contractId, null);
    // A full close has no size to get wrong.
    assert(r.ok || r.error.kind !== 'invalid_close_size', 'full close reported an invalid size');
    return r as Result<{ order: Order }, CloseError>;
  }

  async partialClose(userId: number, accountId: unknown, contractId: unknown, size: unknown): Promise<Result<{ order: Order }, PartialCloseError>> {
    return this.closeSized(userId, accountId, contractId, size);
  }

  /** A full close (`size` null) or a partial one, checked under the session's lock. */
  private async closeSized(userId: number, accountId: unknown, contractId: unknown, size: unknown): Promise<Result<{ order: Order }, PartialCloseError>> {
    const found = await this.replay.resolve(userId, accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, (s): Result<{ order: Order }, PartialCloseError> => {
      if (!this.hasPosition(s, contractId)) return err({ kind: 'position_not_found' });
      if (size !== null && (!isInt(size) || size < 1 || size > Math.abs(s.engine.positionQty))) return err({ kind: 'invalid_close_size' });
      const r = s.engine.closePosition(size as number | null, s.nowS);
      return r.ok ? ok({ order: r.order }) : r;
    });
  }

  /** Fills of an account the user owns, newest first, bounded by fill time (inclusive). */
  async trades(userId: number, accountId: unknown, start: unknown, end: unknown): Promise<Result<Listing<Fill>, SearchError>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const range = timeBounds(start, end);
    if (!range) return err({ kind: 'invalid_timestamp' });
    return ok(await this.listing(owned, () => this.store.searchFills(owned, range.fromS, range.toS, limits.tradeSearchMax)));
  }

  private async listing<T>(replayAccountId: number, rows: () => Promise<T[]>): Promise<Listing<T>> {
    const instrument = (await this.replay.instrumentOf(replayAccountId)) ?? null;
    return instrument ? { instrument, rows: await rows() } : { instrument: null, rows: [] };
  }

  private hasPosition(s: LiveSession, contractId: unknown): boolean {
    return instrumentForContractId(contractId) === s.inst && s.engine.positionQty !== 0;
  }

  /** The replay account behind an account id the user owns (see ReplayService.tradingAccountOf). */
  private async ownedAccount(userId: number, accountId: unknown): Promise<number | null> {
    if (!isInt(accountId)) return null;
    const a = await this.accounts.byId(accountId);
    return a && a.userId === userId ? this.replay.tradingAccountOf(a.id) : null;
  }
}

/** A client price in ticks on the instrument's grid, within the engine's range. */
function priceTicks(inst: Instrument, field: PriceField, price: number): Result<number, PriceError> {
  const ticks = priceToTicks(inst, price);
  if (ticks === undefined) return err({ kind: 'price_off_grid', field, price, tickSize: inst.tickSize });
  // The engine refuses such prices too, but would call the price missing.
  if (Math.abs(ticks) > coreLimits.priceTicksAbsMax) return err({ kind: 'price_out_of_range', field, price });
  return ok(ticks);
}

/** A bracket distance: a non-zero whole number of ticks, whose sign is ignored (direction comes from the side). */
function bracketTicks(ticks: number | null | undefined | Invalid, leg: BracketLeg): Result<number | null, PlaceError> {
  if (ticks === undefined || ticks === null) return ok(null);
  if (isInvalid(ticks)) return err({ kind: 'invalid_bracket', leg });
  assert(isInt(ticks) && ticks !== 0, 'a bracket distance the route should have refused');
  return ok(Math.abs(ticks));
}

/** Inclusive [fromS, toS] from optional ISO bounds; null when one is unparseable. */
function timeBounds(start: unknown, end: unknown): { fromS: number; toS: number } | null {
  const fromMs = start === undefined || start === null ? 0 : parseIsoMs(start);
  const toMs = end === undefined || end === null ? 8.64e15 : parseIsoMs(end);
  if (fromMs === undefined || toMs === undefined) return null;
  return { fromS: Math.ceil(fromMs / 1000), toS: Math.floor(toMs / 1000) };
}
