// Orders, positions and fills of replay sessions (the gateway's Order/*, Position/*, Trade/*).
// Every change is committed with the session before the call returns. Orders and fills carry the
// session's simulated time.

import { limits } from '../config.ts';
import { instrumentForContractId } from '../domain/contract-id.ts';
import type { Instrument } from '../domain/instrument.ts';
import { specOrderView } from '../engine/spec-view.ts';
import { type Fill, type Order, OrderSide, OrderStatus, OrderType } from '../engine/types.ts';
import { assert } from '../lib/assert.ts';
import { type Invalid, isInvalid } from '../lib/invalid.ts';
import { parseIsoMs } from '../lib/iso-time.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { ReplayStore } from '../store/replay.ts';
import type { LiveSession, SessionLeg } from './replay/session.ts';
import { legForContract, legOfOpenOrder, marketClosedReason, rowInstrument } from './replay/leg-lookup.ts';
import { challengeTradeDate, orderRefusal } from '../challenge/state.ts';
import type { ReplayService, SessionError, TradeSessionError } from './replay/service.ts';
import {
  type GatewayPlaceFields, type GatewayRequestError, orderRequest, type PlaceErrorFor, type PriceError, type PriceField,
  priceTicks, type RequestError, type TrailError, trailTicks, typeAllowed,
} from './order-request.ts';

export type { BracketLeg, GatewayPlaceFields, TrailProblem } from './order-request.ts';

export type PlaceError =
  | { kind: 'invalid_size' }
  | { kind: 'invalid_type_or_side' }
  | TradeSessionError
  | RequestError
  /** `order`: the Rejected record, when the request asked for one (recordRejections). */
  | { kind: 'rejected'; reason: string; order?: Order };

/** Every refusal of a placement that uses the gateway's fields or flags (GatewayPlaceFields). */
export type GatewayPlaceError = PlaceError | GatewayRequestError;

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
/** Every refusal of a modify that sends a trail (the gateway's trailPrice). */
export type GatewayModifyError = ModifyError | TrailError;
export type CloseError = TradeSessionError | { kind: 'position_not_found' } | { kind: 'rejected'; reason: string };
export type PartialCloseError = CloseError | { kind: 'invalid_close_size' };
export type SearchError = { kind: 'account_not_found' } | { kind: 'invalid_timestamp' };

/**
 * Order/place as the family's route parsed it: each field as its schema types it, or `INVALID` where
 * the schema failed and the family leaves the refusal to this service's order of checks (a `defer`
 * field rule), so a field is checked once. The gateway's fields and flags (GatewayPlaceFields) may
 * come along; without them the behaviour is the spec's.
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

/**
 * Order/modify: the order and its new values as the route parsed them (`INVALID` where the schema
 * failed: refused at the field's place in the order of checks); undefined or null keeps a value.
 */
export interface ModifyInput {
  accountId: number | Invalid;
  orderId: number | Invalid;
  size: number | null | undefined | Invalid;
  limitPrice: number | null | undefined | Invalid;
  stopPrice: number | null | undefined | Invalid;
  /** The gateway's trailPrice: a trailing stop's new distance in price units. */
  trailPrice?: number | null | undefined | Invalid;
}

/** An optional ISO 8601 bound of a search as sent: absent or null is unbounded, `INVALID` or an unparseable text is refused. */
export type TimeBound = string | null | undefined | Invalid;

/**
 * How orders are shown: 'spec' (the default) as the spec's model has them (engine/spec-view.ts:
 * types 1–4, statuses 1, 2, 3, 6; searchOpen lists working orders), 'gateway' as the engine holds
 * them (the gateway's types and statuses; searchOpen also lists suspended legs).
 */
export type OrderView = 'spec' | 'gateway';

/**
 * Rows of one replay account, with the instrument it trades (null: no replay account, no rows) and,
 * for a session over several instruments, each row's (`rowInstruments`, parallel to `rows`).
 */
export interface Listing<T> {
  instrument: Instrument | null;
  rows: T[];
  rowInstruments?: Instrument[];
}

export interface OpenPosition {
  session: LiveSession;
  /** The position's instrument (the session's, or one of a session over several). */
  inst: Instrument;
  qty: number;
  avgPriceTicks: number;
  /** When it opened and the fill that opened it (engine.ts `positionOpening`); null if unknown (an older session state). */
  opening: { openedS: number; fillId: number } | null;
}


/** A whole number (an id or a size as sent may be a fraction, or `INVALID`). */
const isInt = (v: number | Invalid | null | undefined): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * The instrument a contract ID of an order names: the session's own by any of its names, whichever
 * profile lists it (a live-profile session's ZN is `CON.F.US.TYA.…`), else the spec's list as before
 * (another instrument is refused as the spec refuses it).
 */
function sessionContracts(leg: SessionLeg): (contractId: string) => ReturnType<typeof instrumentForContractId> {
  return (contractId) => {
    const inst = instrumentForContractId(contractId, 'all');
    return inst === leg.inst ? inst : instrumentForContractId(contractId);
  };
}

export class TradingService {
  constructor(
    private readonly replay: ReplayService,
    private readonly store: ReplayStore,
    private readonly accounts: AccountStore,
  ) {}

  /**
   * Places an order. Checks in this order: type and side (the gateway's types only with
   * allowExtendedTypes), the account and session, the challenge's refusal, the request's fields
   * (order-request.ts: contract, prices, trail, brackets, tag, link), the tag's uniqueness among the
   * account's orders, then the engine's own checks (risk, legs). A refusal changes nothing, unless
   * recordRejections asks for a Rejected record: then it is committed and returned with the refusal.
   */
  async place<I extends PlaceInput & GatewayPlaceFields>(userId: number, input: I): Promise<Result<{ order: Order }, PlaceErrorFor<I, PlaceError, GatewayPlaceError>>> {
    return (await this.placeChecked(userId, input)) as Result<{ order: Order }, PlaceErrorFor<I, PlaceError, GatewayPlaceError>>;
  }

  private async placeChecked(userId: number, input: PlaceInput & GatewayPlaceFields): Promise<Result<{ order: Order }, GatewayPlaceError>> {
    assert(isInt(input.size) && input.size >= 1 && input.size <= limits.orderSizeMax, 'an order size the route should have refused');
    const type = input.type;
    const side = input.side;
    if (isInvalid(type) || isInvalid(side) || !typeAllowed(type, input)) return err({ kind: 'invalid_type_or_side' });
    const found = await this.replay.resolve(userId, input.accountId);
    if (!found.ok) return found;
    const r = await this.replay.command(found.value, async (s): Promise<Result<{ order: Order; refusal?: GatewayPlaceError }, GatewayPlaceError>> => {
      const refusal = s.challenge ? orderRefusal(s.challenge.rule.state, challengeTradeDate(s.nowS)) : null;
      if (refusal) return err(refusal);
      const leg = legForContract(s, input.contractId);
      const tradedSymbols = s.multi ? s.legs.map((l) => l.inst.symbol).join(', ') : undefined;
      const req = orderRequest({ inst: leg.inst, engine: leg.engine, instrumentFor: sessionContracts(leg), tradedSymbols }, input, type, side, input.size);
      if (!req.ok) return req;
      const tag = req.value.customTag;
      if (tag && (await this.store.hasOrderTagged(s.accountId, tag))) return err({ kind: 'custom_tag_taken', customTag: tag });
      const closed = req.value.type === OrderType.Market ? marketClosedReason(s, leg) : null;
      if (closed) return err({ kind: 'rejected', reason: closed });
      const placed = leg.engine.placeOrder(req.value, s.nowS);
      if (placed.ok) return ok({ order: placed.order });
      // A recorded refusal is a change like any other: committed, then answered as the refusal.
      return placed.error.order ? ok({ order: placed.error.order, refusal: placed.error }) : placed;
    });
    return r.ok && r.value.refusal ? err(r.value.refusal) : r;
  }

  async cancel(userId: number, accountId: number | Invalid, orderId: number | Invalid): Promise<Result<{ order: Order }, CancelError>> {
    const found = await this.replay.live(userId, accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, async (s): Promise<Result<{ order: Order }, CancelError>> => {
      const working = await this.workingOrder(s, orderId);
      if (!working.ok) return working;
      const r = working.value.leg.engine.cancelOrder(working.value.order.id, s.nowS);
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
  async modify<I extends ModifyInput>(userId: number, input: I): Promise<Result<{ order: Order }, 'trailPrice' extends keyof I ? GatewayModifyError : ModifyError>> {
    const found = await this.replay.resolve(userId, input.accountId);
    if (!found.ok) return found;
    const r = await this.replay.command(found.value, (s) => this.modifyLocked(s, input));
    return r as Result<{ order: Order }, 'trailPrice' extends keyof I ? GatewayModifyError : ModifyError>;
  }

  /** The checks of modify in their order (see modify); a suspended leg is reached like a working order. */
  private async modifyLocked(s: LiveSession, input: ModifyInput): Promise<Result<{ order: Order }, GatewayModifyError>> {
    const refusal = s.challenge ? orderRefusal(s.challenge.rule.state, challengeTradeDate(s.nowS)) : null;
    if (refusal) return err(refusal);
    const working = await this.workingOrder(s, input.orderId);
    if (!working.ok) return working;
    const { order, leg } = working.value;
    const size = input.size;
    if (size !== undefined && size !== null && (!isInt(size) || size < 1 || size > limits.orderSizeMax)) {
      return err({ kind: 'invalid_size' });
    }
    const t = order.type;
    const hasLimit = t === OrderType.Limit || t === OrderType.StopLimit || t === OrderType.JoinBid || t === OrderType.JoinAsk;
    const limit = this.modifiedPrice(leg.inst, order, 'limit', input.limitPrice, hasLimit);
    if (!limit.ok) return limit;
    // A trailing stop's stop follows the price: its trail is what changes.
    const hasStop = t === OrderType.Stop || t === OrderType.StopLimit;
    const stop = this.modifiedPrice(leg.inst, order, 'stop', input.stopPrice, hasStop);
    if (!stop.ok) return stop;
    const trail = modifiedTrail(leg.inst, order, input.trailPrice);
    if (!trail.ok) return trail;
    const patch = { size: size as number | null | undefined, limitTicks: limit.value, stopTicks: stop.value, trailTicks: trail.value };
    const r = leg.engine.modifyOrder(order.id, patch, s.nowS);
    return r.ok ? ok({ order: r.order }) : r; // a refusal changes nothing
  }

  /** A modify's new price in ticks; null keeps the order's price. */
  private modifiedPrice(inst: Instrument, order: Order, field: PriceField, v: ModifyInput['limitPrice'], applicable: boolean): Result<number | null, ModifyError> {
    if (v === undefined || v === null) return ok(null);
    if (typeof v !== 'number') return err({ kind: 'invalid_price', field });
    if (!applicable) return err({ kind: 'price_not_applicable', field, orderType: order.type });
    return priceTicks(inst, field, v);
  }

  /**
   * The working order `orderId` of a live session, or what became of it. Finished orders are read from
   * the store: a restored engine holds only its working orders.
   */
  private async workingOrder(s: LiveSession, orderId: number | Invalid): Promise<Result<{ order: Order; leg: SessionLeg }, OrderStateError>> {
    if (!isInt(orderId)) return err({ kind: 'order_not_found' });
    // A suspended leg is reachable too (only a request that asked for suspended legs makes one).
    const working = legOfOpenOrder(s, orderId);
    if (working) return ok(working);
    const stored = await this.store.order(s.accountId, orderId);
    if (stored?.status === OrderStatus.Filled) return err({ kind: 'order_filled' });
    // An expired order ended without a fill, as a canceled one; a rejected record never worked.
    if (stored?.status === OrderStatus.Canceled || stored?.status === OrderStatus.Expired) return err({ kind: 'order_canceled' });
    return err({ kind: 'order_not_found' });
  }

  /**
   * Orders of an account the user owns, newest first, bounded by submission time (inclusive), with
   * the instrument they trade (null for accounts that never traded: then there are none).
   */
  async search(userId: number, accountId: number | Invalid, start: TimeBound, end: TimeBound, view: OrderView = 'spec'): Promise<Result<Listing<Order>, SearchError>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const range = timeBounds(start, end);
    if (!range) return err({ kind: 'invalid_timestamp' });
    const rows = () => this.store.searchOrders(owned, range.fromS, range.toS, limits.orderSearchMax);
    const l = await this.listing(owned, rows);
    return ok({ ...l, rows: viewOf(l.rows, view) });
  }

  /**
   * Working orders of the live session, newest first (with suspended legs in the gateway's view);
   * empty when the account has no live session.
   */
  async searchOpen(userId: number, accountId: number | Invalid, view: OrderView = 'spec'): Promise<Result<Listing<Order>, { kind: 'account_not_found' }>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const found = await this.replay.live(userId, owned);
    if (!found.ok) return ok({ instrument: null, rows: [] });
    await this.replay.touch(found.value);
    const open: { order: Order; inst: Instrument }[] = [];
    for (const { engine, inst } of found.value.legs) {
      for (const order of view === 'gateway' ? [...engine.book.working, ...engine.suspended] : engine.book.working) open.push({ order, inst });
    }
    // Newest placement first: the book's own order is time priority, which a modify can change.
    open.sort((a, b) => b.order.id - a.order.id);
    const rows = viewOf(open.map((o) => o.order), view);
    return ok({ instrument: found.value.inst, rows, ...(found.value.multi ? { rowInstruments: open.map((o) => o.inst) } : {}) });
  }

  async positions(userId: number, accountId: number | Invalid): Promise<Result<OpenPosition[], { kind: 'account_not_found' }>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (!owned) return err({ kind: 'account_not_found' });
    const found = await this.replay.live(userId, owned);
    if (!found.ok) return ok([]);
    await this.replay.touch(found.value);
    // One row per instrument holding a position, in the session's order.
    const out: OpenPosition[] = [];
    for (const { engine, inst } of found.value.legs) {
      if (engine.positionQty === 0) continue;
      const snap = engine.snapshot();
      out.push({ session: found.value, inst, qty: snap.positionQty, avgPriceTicks: snap.avgPriceTicks, opening: engine.positionOpening });
    }
    return ok(out);
  }

  async close(userId: number, accountId: number | Invalid, contractId: string | Invalid): Promise<Result<{ order: Order }, CloseError>> {
    const r = await this.closeSized(userId, accountId, contractId, null);
    // A full close has no size to get wrong.
    assert(r.ok || r.error.kind !== 'invalid_close_size', 'full close reported an invalid size');
    return r as Result<{ order: Order }, CloseError>;
  }

  async partialClose(userId: number, accountId: number | Invalid, contractId: string | Invalid, size: number | Invalid): Promise<Result<{ order: Order }, PartialCloseError>> {
    return this.closeSized(userId, accountId, contractId, size);
  }

  /** A full close (`size` null) or a partial one, checked under the session's lock. */
  private async closeSized(userId: number, accountId: number | Invalid, contractId: string | Invalid, size: number | Invalid | null): Promise<Result<{ order: Order }, PartialCloseError>> {
    const found = await this.replay.resolve(userId, accountId);
    if (!found.ok) return found;
    return this.replay.command(found.value, (s): Result<{ order: Order }, PartialCloseError> => {
      const leg = legForContract(s, contractId);
      if (!hasPosition(leg, contractId)) return err({ kind: 'position_not_found' });
      if (size !== null && (!isInt(size) || size < 1 || size > Math.abs(leg.engine.positionQty))) return err({ kind: 'invalid_close_size' });
      const closed = marketClosedReason(s, leg);
      if (closed) return err({ kind: 'rejected', reason: closed });
      const r = leg.engine.closePosition(size as number | null, s.nowS);
      return r.ok ? ok({ order: r.order }) : r;
    });
  }

  /** Fills of an account the user owns, newest first, bounded by fill time (inclusive). */
  async trades(userId: number, accountId: number | Invalid, start: TimeBound, end: TimeBound): Promise<Result<Listing<Fill>, SearchError>> {
    const owned = await this.ownedAccount(userId, accountId);
    if (owned === null) return err({ kind: 'account_not_found' });
    const range = timeBounds(start, end);
    if (!range) return err({ kind: 'invalid_timestamp' });
    return ok(await this.listing(owned, () => this.store.searchFills(owned, range.fromS, range.toS, limits.tradeSearchMax)));
  }

  /** Stored rows with the account's instrument, and each row's when a session over several stored its symbol. */
  private async listing<T extends { readonly symbol?: string }>(replayAccountId: number, rows: () => Promise<T[]>): Promise<Listing<T>> {
    const instrument = (await this.replay.instrumentOf(replayAccountId)) ?? null;
    if (!instrument) return { instrument: null, rows: [] };
    const found = await rows();
    if (!found.some((r) => r.symbol !== undefined)) return { instrument, rows: found };
    return { instrument, rows: found, rowInstruments: found.map((r) => rowInstrument(r, instrument)) };
  }

  /** The replay account behind an account id the user owns (see ReplayService.tradingAccountOf). */
  private async ownedAccount(userId: number, accountId: number | Invalid): Promise<number | null> {
    if (!isInt(accountId)) return null;
    const a = await this.accounts.byId(accountId);
    return a && a.userId === userId ? this.replay.tradingAccountOf(a.id) : null;
  }
}

function hasPosition(leg: SessionLeg, contractId: string | Invalid): boolean {
  return !isInvalid(contractId) && sessionContracts(leg)(contractId) === leg.inst && leg.engine.positionQty !== 0;
}

/** Orders as `view` shows them (engine/spec-view.ts for the spec's). */
function viewOf(rows: Order[], view: OrderView): Order[] {
  return view === 'gateway' ? rows : rows.map(specOrderView);
}

/** A modify's new trail in ticks (only a trailing stop has one); null keeps it. */
function modifiedTrail(inst: Instrument, order: Order, v: ModifyInput['trailPrice']): Result<number | null, TrailError> {
  if (v === undefined || v === null) return ok(null);
  if (order.type !== OrderType.TrailingStop) return err({ kind: 'invalid_trail', problem: 'not_applicable', trailPrice: isInvalid(v) ? null : v, tickSize: inst.tickSize });
  return trailTicks(inst, v);
}

/** Inclusive [fromS, toS] from optional ISO bounds; null when one is unparseable. */
function timeBounds(start: TimeBound, end: TimeBound): { fromS: number; toS: number } | null {
  const fromMs = start === undefined || start === null ? 0 : isInvalid(start) ? undefined : parseIsoMs(start);
  const toMs = end === undefined || end === null ? 8.64e15 : isInvalid(end) ? undefined : parseIsoMs(end);
  if (fromMs === undefined || toMs === undefined) return null;
  return { fromS: Math.ceil(fromMs / 1000), toS: Math.floor(toMs / 1000) };
}
