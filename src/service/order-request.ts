// Order/place and Order/modify inputs turned into the engine's requests: prices on the instrument's
// grid in ticks, brackets with their types and (when asked) the gateway's signs, a trailing stop's
// distance, a custom tag, a link. Each check answers a closed kind (trading.ts lists the order).
//
// The gateway's fields and flags (GatewayPlaceFields) are opt-in per request: a family that passes
// none of them gets the spec's behaviour, and its error type (PlaceErrorFor) has none of their kinds.

import { limits } from '../config.ts';
import { coreLimits } from '../core-limits.ts';
import { type Instrument, priceToTicks } from '../domain/instrument.ts';
import type { PlaceOrderRequest } from '../engine/engine.ts';
import type { SessionEngine } from '../engine/engine.ts';
import { isExtendedType, OrderSide, OrderType } from '../engine/types.ts';
import { assert } from '../lib/assert.ts';
import { type Invalid, isInvalid } from '../lib/invalid.ts';
import { err, ok, type Result } from '../lib/result.ts';

export type PriceField = 'limit' | 'stop';
export type BracketLeg = 'stop_loss' | 'take_profit';

export type PriceError =
  | { kind: 'price_off_grid'; field: PriceField; price: number; tickSize: number }
  | { kind: 'price_out_of_range'; field: PriceField; price: number };

/** The spec's refusals of a placement's fields. */
export type RequestError =
  | { kind: 'contract_not_found' }
  | { kind: 'contract_mismatch'; sessionSymbol: string; requestedSymbol: string }
  | { kind: 'price_required'; field: PriceField }
  | PriceError
  | { kind: 'invalid_bracket'; leg: BracketLeg };

/** Why a trail distance is refused: absent on a trailing stop, not a number, ≤ 0, off the grid, too large, or on another type. */
export type TrailProblem = 'missing' | 'not_a_number' | 'not_positive' | 'off_grid' | 'out_of_range' | 'not_applicable';

/** `trailPrice`: the number sent, or null when none was or it was no number. */
export type TrailError = { kind: 'invalid_trail'; problem: TrailProblem; trailPrice: number | null; tickSize: number };

/** The gateway's refusals: only a request passing one of its fields or flags can meet them. */
export type GatewayRequestError =
  | TrailError
  | { kind: 'invalid_custom_tag'; maxChars: number }
  | { kind: 'custom_tag_taken'; customTag: string }
  /** `linkedOrderId`: the id sent, or null when it was no whole number. */
  | { kind: 'linked_order_not_found'; linkedOrderId: number | null }
  /** `type`: the number sent, or null when it was not one (the family's schema failed). */
  | { kind: 'invalid_bracket_type'; leg: BracketLeg; type: number | null }
  /** The gateway's signs: a long's stop-loss is below (ticks < 0), its take-profit above; a short's the reverse. */
  | { kind: 'invalid_bracket_sign'; leg: BracketLeg; ticks: number; position: 'long' | 'short' };

/**
 * The gateway's order model on Order/place (the live gateway's fields; engine.ts states the model).
 * None given, or all absent / false: today's spec behaviour.
 */
export interface GatewayPlaceFields {
  /** TrailingStop: the trail distance in price units on the tick grid (the gateway's trailPrice). */
  trailPrice?: number | null | Invalid;
  /** Echoed on the order; unique among the account's orders; an empty text is no tag. */
  customTag?: string | null | Invalid;
  /** A working (or suspended) order of the session to link with as one-cancels-other. */
  linkedOrderId?: number | null | Invalid;
  /** The brackets' types as sent: stop-loss 4 Stop (default) or 5 TrailingStop (extended); take-profit 1 Limit (default). */
  stopLossType?: number | null | Invalid;
  takeProfitType?: number | null | Invalid;
  /** Types 5 TrailingStop, 6 JoinBid, 7 JoinAsk and a trailing stop-loss are accepted (else refused as unknown, as the spec wants). */
  allowExtendedTypes?: boolean;
  /** Bracket ticks carry the gateway's signs (GatewayRequestError), else their sign is ignored. */
  gatewayBracketSigns?: boolean;
  /** A pending entry's legs are created at once, Suspended (engine.ts). */
  suspendLegs?: boolean;
  /** An engine refusal is recorded as a Rejected order (engine.ts) and still answered as a refusal. */
  recordRejections?: boolean;
}

type GatewayPlaceKey = keyof GatewayPlaceFields;

/** The errors of a placement whose input is `I`: the gateway's kinds only when `I` names one of its fields. */
export type PlaceErrorFor<I, Spec, Gateway> = [Extract<keyof I, GatewayPlaceKey>] extends [never] ? Spec : Gateway;

/** What orderRequest reads of Order/place. */
export interface RequestInput extends GatewayPlaceFields {
  contractId: string | Invalid;
  limitPrice: number | null | undefined | Invalid;
  stopPrice: number | null | undefined | Invalid;
  stopLossTicks: number | null | undefined | Invalid;
  takeProfitTicks: number | null | undefined | Invalid;
}

/** The instrument, the engine and the resolver of contract ids: what a request is checked against. */
export interface RequestContext {
  readonly inst: Instrument;
  readonly engine: SessionEngine;
  instrumentFor(contractId: string): Instrument | undefined;
  /** What the session trades, as a refusal names it (a session over several: `NQ, ES`); `inst`'s symbol when absent. */
  readonly tradedSymbols?: string;
}

/**
 * The engine request of a placement, checked in this order: contract; limit, stop and trail prices
 * (each only where the type needs it); the stop-loss bracket (ticks, type, sign), the take-profit's;
 * the tag's form; the link. The tag's uniqueness is the caller's (it reads the store).
 */
export function orderRequest(
  c: RequestContext, input: RequestInput, type: OrderType, side: OrderSide, size: number,
): Result<PlaceOrderRequest, RequestError | GatewayRequestError> {
  const inst = isInvalid(input.contractId) ? undefined : c.instrumentFor(input.contractId);
  if (!inst) return err({ kind: 'contract_not_found' });
  if (inst !== c.inst) return err({ kind: 'contract_mismatch', sessionSymbol: c.tradedSymbols ?? c.inst.symbol, requestedSymbol: inst.symbol });
  const limit = neededPrice(inst, 'limit', input.limitPrice, type === OrderType.Limit || type === OrderType.StopLimit);
  if (!limit.ok) return limit;
  const stop = neededPrice(inst, 'stop', input.stopPrice, type === OrderType.Stop || type === OrderType.StopLimit);
  if (!stop.ok) return stop;
  const trail = type === OrderType.TrailingStop ? trailTicks(inst, input.trailPrice ?? null) : ok(null);
  if (!trail.ok) return trail;
  const extended = input.allowExtendedTypes === true;
  const signs = input.gatewayBracketSigns === true ? side : null;
  const sl = bracket(input.stopLossTicks, input.stopLossType, 'stop_loss', extended, signs);
  if (!sl.ok) return sl;
  const tp = bracket(input.takeProfitTicks, input.takeProfitType, 'take_profit', extended, signs);
  if (!tp.ok) return tp;
  const tag = customTag(input.customTag);
  if (!tag.ok) return tag;
  const link = input.linkedOrderId;
  if (link !== undefined && link !== null && (isInvalid(link) || c.engine.findOpen(link) === undefined)) {
    return err({ kind: 'linked_order_not_found', linkedOrderId: isInvalid(link) ? null : link });
  }
  return ok({
    type, side, size, limitTicks: limit.value, stopTicks: stop.value, trailTicks: trail.value,
    slTicks: sl.value.ticks, tpTicks: tp.value.ticks, slType: sl.value.type, tpType: tp.value.type,
    customTag: tag.value, linkedOrderId: (link ?? null) as number | null,
    extendedTypes: extended, suspendLegs: input.suspendLegs === true, recordRejection: input.recordRejections === true,
  });
}

/** Whether `type` may be placed by a request with these flags (the gateway's types need the opt-in). */
export function typeAllowed(type: OrderType, fields: GatewayPlaceFields): boolean {
  return fields.allowExtendedTypes === true || !isExtendedType(type);
}

function neededPrice(inst: Instrument, field: PriceField, v: RequestInput['limitPrice'], needed: boolean): Result<number | null, RequestError> {
  if (!needed) return ok(null);
  if (typeof v !== 'number') return err({ kind: 'price_required', field }); // absent, null or INVALID
  return priceTicks(inst, field, v);
}

/** A client price in ticks on the instrument's grid, within the engine's range. */
export function priceTicks(inst: Instrument, field: PriceField, price: number): Result<number, PriceError> {
  const ticks = priceToTicks(inst, price);
  if (ticks === undefined) return err({ kind: 'price_off_grid', field, price, tickSize: inst.tickSize });
  // The engine refuses such prices too, but would call the price missing.
  if (Math.abs(ticks) > coreLimits.priceTicksAbsMax) return err({ kind: 'price_out_of_range', field, price });
  return ok(ticks);
}

/** A trail distance in price units as whole ticks (1 to trailTicksMax); `v` as the route parsed it (`INVALID`: not a number). */
export function trailTicks(inst: Instrument, v: number | null | undefined | Invalid): Result<number, TrailError> {
  const refuse = (problem: TrailProblem) => err({ kind: 'invalid_trail' as const, problem, trailPrice: typeof v === 'number' ? v : null, tickSize: inst.tickSize });
  if (v === undefined || v === null) return refuse('missing');
  if (typeof v !== 'number' || !Number.isFinite(v)) return refuse('not_a_number');
  if (v <= 0) return refuse('not_positive');
  const ticks = priceToTicks(inst, v);
  if (ticks === undefined) return refuse('off_grid');
  if (ticks > coreLimits.trailTicksMax) return refuse('out_of_range');
  return ok(ticks);
}

type Bracket = { ticks: number | null; type: OrderType | null };

/**
 * A bracket: its distance (a non-zero whole number of ticks; the sign is the gateway's when `signs`
 * is the entry's side, else ignored), then its type. Absent ticks: no bracket, whatever its type.
 */
function bracket(
  ticks: number | null | undefined | Invalid, type: number | null | undefined | Invalid, leg: BracketLeg, extended: boolean, signs: OrderSide | null,
): Result<Bracket, RequestError | GatewayRequestError> {
  if (ticks === undefined || ticks === null) return ok({ ticks: null, type: null });
  if (isInvalid(ticks)) return err({ kind: 'invalid_bracket', leg });
  assert(Number.isInteger(ticks) && ticks !== 0, 'a bracket distance the route should have refused');
  const stopLoss = leg === 'stop_loss';
  let legType: OrderType = stopLoss ? OrderType.Stop : OrderType.Limit;
  if (type !== undefined && type !== null) {
    const fits = stopLoss ? type === OrderType.Stop || (extended && type === OrderType.TrailingStop) : type === OrderType.Limit;
    if (isInvalid(type) || !fits) return err({ kind: 'invalid_bracket_type', leg, type: isInvalid(type) ? null : type });
    legType = type as OrderType;
  }
  if (signs !== null) {
    const long = signs === OrderSide.Buy;
    // A long's stop-loss lies below the entry and its take-profit above; a short's the reverse.
    const below = stopLoss === long;
    if (below ? ticks > 0 : ticks < 0) return err({ kind: 'invalid_bracket_sign', leg, ticks, position: long ? 'long' : 'short' });
  }
  return ok({ ticks: Math.abs(ticks), type: legType });
}

/** The tag as kept: a text of at most customTagCharsMax characters; absent or empty is none. */
function customTag(v: string | null | undefined | Invalid): Result<string | null, GatewayRequestError> {
  if (v === undefined || v === null || v === '') return ok(null);
  if (isInvalid(v) || typeof v !== 'string' || v.length > limits.customTagCharsMax) return err({ kind: 'invalid_custom_tag', maxChars: limits.customTagCharsMax });
  return ok(v);
}
