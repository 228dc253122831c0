// The live profile's code tables, where the live gateway's numbers differ from the spec's
// (docs/gateway-profile.md). The gateway's enums: Order/place 1 AccountNotFound, 2 OrderRejected,
// 3 InsufficientFunds, 4 AccountViolation, 5 OutsideTradingHours, 6 OrderPending, 7 UnknownError,
// 8 ContractNotFound, 9 ContractNotActive, 10 AccountRejected; Order/modify and cancel 1
// AccountNotFound, 2 OrderNotFound, 3 Rejected, 4 Pending, 5 UnknownError, 6 AccountRejected;
// Position/closeContract and partialCloseContract 1 AccountNotFound, 2 PositionNotFound,
// 3 ContractNotFound, 4 ContractNotActive, 5 InvalidCloseSize, 6 OrderRejected, 7 OrderPending,
// 8 UnknownError, 9 AccountRejected. Messages are the spec's where it has one, the live gateway's
// where clients quote it (bracket signs and types).

import { ACCOUNT_NOT_FOUND_ROW, engineRefusal, PRICE_FIELDS, priceRows } from '../shared/code-rows.ts';
import type { CodeTable } from '../shared/code-table.ts';
import type { BracketLeg, GatewayModifyError, GatewayPlaceError, PartialCloseError, TrailProblem } from '../../service/trading.ts';
import * as codes from './codes.ts';

/** The gateway's InsufficientFunds (3): a refusal for margin, told from the engine's other refusals. */
export type LivePlaceError = GatewayPlaceError | { kind: 'insufficient_funds'; reason: string };

/** A refusal as the live table reads it: margin refusals are the gateway's InsufficientFunds. */
export function livePlaceError(e: GatewayPlaceError): LivePlaceError {
  return e.kind === 'rejected' && e.reason.startsWith('Insufficient margin') ? { kind: 'insufficient_funds', reason: e.reason } : e;
}

const TYPE_NAMES: Record<number, string> = { 1: 'Limit', 2: 'Market', 3: 'StopLimit', 4: 'Stop', 5: 'TrailingStop', 6: 'JoinBid', 7: 'JoinAsk' };
const LEG_NAMES: Record<BracketLeg, string> = { stop_loss: 'stop loss', take_profit: 'take profit' };

const TRAIL_TEXT: Record<TrailProblem, string> = {
  missing: 'trailPrice is required for TrailingStop orders',
  not_a_number: 'trailPrice must be a number',
  not_positive: 'trailPrice must be greater than 0',
  off_grid: 'trailPrice must be a multiple of the tick size',
  out_of_range: 'trailPrice is out of range',
  not_applicable: 'trailPrice applies to TrailingStop orders only',
};

/** "Ticks should be less than zero when longing" and its three siblings (the gateway's words). */
function signText(e: Extract<GatewayPlaceError, { kind: 'invalid_bracket_sign' }>): string {
  const below = (e.leg === 'stop_loss') === (e.position === 'long');
  const when = e.position === 'long' ? 'longing' : 'going short';
  return `Invalid ${LEG_NAMES[e.leg]} ticks (${e.ticks}). Ticks should be ${below ? 'less' : 'greater'} than zero when ${when}.`;
}

export const placeOrder: CodeTable<LivePlaceError> = {
  invalid_size: [2, 'Invalid order size'],
  invalid_type_or_side: [2, 'Invalid order type or side'],
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  session_ended: [10, 'The replay session of this account has ended'],
  challenge_inactive: [4, 'Account violation'],
  contract_not_found: [8, 'Contract not found'],
  contract_mismatch: [9, (e) => `This session trades ${e.sessionSymbol}; ${e.requestedSymbol} cannot be traded in it`, 'This session trades {symbol}; {symbol} cannot be traded in it'],
  price_required: [2, (e) => `${PRICE_FIELDS[e.field]} is required for this order type`, '{limitPrice|stopPrice} is required for this order type'],
  ...priceRows(2),
  invalid_bracket: codes.placeOrder.invalid_bracket,
  invalid_trail: [2, (e) => TRAIL_TEXT[e.problem], 'trailPrice: required for TrailingStop, a positive multiple of the tick size, for TrailingStop only'],
  invalid_custom_tag: [2, (e) => `customTag must be a text of at most ${e.maxChars} characters`, 'customTag must be a text of at most {n} characters'],
  custom_tag_taken: [2, (e) => `An order with customTag ${JSON.stringify(e.customTag)} already exists on this account`, 'An order with customTag {tag} already exists on this account'],
  linked_order_not_found: [2, 'linkedOrderId names no working order of this account'],
  invalid_bracket_type: [
    2,
    (e) => `Invalid ${LEG_NAMES[e.leg]} type (${e.type === null ? 'unknown' : (TYPE_NAMES[e.type] ?? e.type)})`,
    'Invalid {stop loss|take profit} type ({type name})',
  ],
  invalid_bracket_sign: [2, signText, 'Invalid {stop loss|take profit} ticks ({ticks}). Ticks should be {less|greater} than zero when {longing|going short}.'],
  insufficient_funds: [3, (e) => e.reason, 'the engine\'s margin refusal'],
  rejected: engineRefusal(2),
};

export const modifyOrder: CodeTable<GatewayModifyError> = {
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  session_ended: [2, 'Order not found'],
  challenge_inactive: [6, 'Account violation'],
  ...codes.orderNotWorking,
  invalid_size: [3, 'Invalid order size'],
  invalid_price: [3, (e) => `${PRICE_FIELDS[e.field]} must be a number`, '{limitPrice|stopPrice} must be a number'],
  price_not_applicable: [3, (e) => `A ${TYPE_NAMES[e.orderType] ?? e.orderType} order has no ${PRICE_FIELDS[e.field]}`, 'A {type} order has no {limitPrice|stopPrice}'],
  ...priceRows(3),
  invalid_trail: [3, (e) => TRAIL_TEXT[e.problem], 'trailPrice: a positive multiple of the tick size, for TrailingStop only'],
  rejected: engineRefusal(3),
};

/** The spec's partial close, but for the gateway's AccountViolation (9). */
export const closePosition: CodeTable<PartialCloseError> = { ...codes.partialClosePosition, challenge_inactive: [9, 'Account violation'] };
