// The earlier family: (errorCode, errorMessage) per endpoint for Order, Position, Trade, Replay and
// History. Spec "Earlier family differences": errors are told apart by message, so every business
// refusal here carries errorCode 1 (as the family's Auth rows do) and the spec's message where it
// gives one; transport rows (HTTP 429, 503) are the current family's. docs/decisions.md, "Earlier
// family".

import { advanceTransportRows, barsTransportRows, engineRefusal, PRICE_FIELDS, priceRows, replaySessionRows } from '../shared/code-rows.ts';
import { type CodeTable, TOO_MANY_REQUESTS } from '../shared/code-table.ts';
import type { HistoryError } from '../../service/history.ts';
import type { AdvanceError, PlayError, SessionError } from '../../service/replay/service.ts';
import type { StartError } from '../../service/replay/setup.ts';
import type { CancelError, CloseError, ModifyError, OrderStateError, PartialCloseError, PlaceError, SearchError } from '../../service/trading.ts';
import { findInstrument } from '../../domain/instrument.ts';
import { legacyInstrumentOfBase } from '../../domain/legacy-instruments.ts';
import { LEGACY_POLICY } from './policy.ts';

/** The one errorCode of this family's trading and replay refusals. */
export const REFUSED = 1;

/** A base symbol in this family's words (LIGHTCMDUSD → CL). */
function symbolOf(baseSymbol: string): string {
  const base = findInstrument(baseSymbol);
  return (base && legacyInstrumentOfBase(base)?.symbol) ?? baseSymbol;
}

// ---- errors this adapter finds while parsing (no service is called) ----

/** Size refusals of the parse step: `invalid_size` is "not a number > 0" (the spec's message). */
export type SizeError = { kind: 'invalid_size' } | { kind: 'size_not_whole' } | { kind: 'size_too_large' };
export type ContractError = { kind: 'contract_not_found' };
export type OrderIdError = { kind: 'order_not_found' };
export type BracketError = { kind: 'brackets_unsupported' };
export type LegacyPlaceError = PlaceError | SizeError | BracketError;

const sizeRows = {
  invalid_size: [REFUSED, 'Size must be greater than 0'],
  size_not_whole: [REFUSED, 'Size must be a whole number'],
  size_too_large: [REFUSED, 'Size must be at most 1000'],
} as const;

export const placeOrder: CodeTable<LegacyPlaceError> = {
  ...sizeRows,
  brackets_unsupported: [REFUSED, 'Brackets are not supported in this API; place protective orders separately'],
  invalid_type_or_side: [REFUSED, 'Invalid order type or side'],
  account_not_found: [REFUSED, 'Account not found'],
  session_ended: [REFUSED, 'No active replay session for this account'],
  challenge_inactive: [REFUSED, 'Account violation'],
  contract_not_found: [REFUSED, 'Contract not found'],
  contract_mismatch: [
    REFUSED,
    (e) => `This session trades ${symbolOf(e.sessionSymbol)}; ${symbolOf(e.requestedSymbol)} cannot be traded in it`,
    'This session trades {symbol}; {symbol} cannot be traded in it',
  ],
  // The spec's two messages; a StopLimit missing either price gets the one naming that price.
  price_required: [
    REFUSED,
    (e) => (e.field === 'limit' ? 'limitPrice is required for Limit orders' : 'stopPrice is required for Stop orders'),
    'limitPrice is required for Limit orders | stopPrice is required for Stop orders',
  ],
  ...priceRows(REFUSED),
  invalid_bracket: [REFUSED, 'Brackets are not supported in this API; place protective orders separately'],
  rejected: engineRefusal(REFUSED),
};

/** Cancel and modify: an ID that names no order of the caller's is `Order not found`, whoever owns it. */
export type LegacyCancelError = CancelError | OrderIdError;

/** An order that is not working, in Order/cancel and Order/modify. */
const orderStateRows: CodeTable<OrderStateError> = {
  order_not_found: [REFUSED, 'Order not found'],
  order_filled: [REFUSED, 'Order is already filled'],
  order_canceled: [REFUSED, 'Order is already canceled'],
};

export const cancelOrder: CodeTable<LegacyCancelError> = {
  account_not_found: [REFUSED, 'Order not found'],
  session_ended: [REFUSED, 'Order not found'],
  ...orderStateRows,
};

const ORDER_TYPE_NAMES: Readonly<Record<number, string>> = { 1: 'Limit', 2: 'Market', 3: 'StopLimit', 4: 'Stop' };

export type LegacyModifyError = ModifyError | SizeError;

export const modifyOrder: CodeTable<LegacyModifyError> = {
  ...sizeRows,
  account_not_found: [REFUSED, 'Order not found'],
  session_ended: [REFUSED, 'Order not found'],
  challenge_inactive: [REFUSED, 'Account violation'],
  ...orderStateRows,
  invalid_price: [REFUSED, (e) => `${PRICE_FIELDS[e.field]} must be a number or null`, '{limitPrice|stopPrice} must be a number or null'],
  price_not_applicable: [
    REFUSED,
    (e) => `${PRICE_FIELDS[e.field]} does not apply to ${ORDER_TYPE_NAMES[e.orderType]} orders`,
    '{limitPrice|stopPrice} does not apply to {Limit|Market|StopLimit|Stop} orders',
  ],
  ...priceRows(REFUSED),
  rejected: engineRefusal(REFUSED),
};

export const searchOrders: CodeTable<SearchError> = {
  account_not_found: [REFUSED, 'Account not found'],
  invalid_timestamp: [REFUSED, 'Invalid time range'],
};

export type LegacyCloseError = CloseError | ContractError;
export type LegacyPartialCloseError = PartialCloseError | ContractError | SizeError;

export const closePosition: CodeTable<LegacyCloseError> = {
  account_not_found: [REFUSED, 'Account not found'],
  contract_not_found: [REFUSED, 'Contract not found'],
  session_ended: [REFUSED, 'No position found for contract'],
  position_not_found: [REFUSED, 'No position found for contract'],
  challenge_inactive: [REFUSED, 'Account violation'],
  rejected: engineRefusal(REFUSED),
};

export const partialClosePosition: CodeTable<LegacyPartialCloseError> = {
  ...closePosition,
  ...sizeRows,
  invalid_close_size: [REFUSED, 'Size exceeds current position'],
};

// ---- replay ----

/** A timeframe outside the family's eight (or none) is the service's `invalid_timeframe`. */
export type LegacyStartError = StartError;

export const replayStart: CodeTable<LegacyStartError> = {
  instrument_required: [REFUSED, 'instrumentSymbol is required'],
  instrument_not_found: [REFUSED, 'Instrument not found'],
  // The family sends no instrumentSymbols (its spec has one live session, of one instrument): these never arise.
  instruments_invalid: [REFUSED, 'Instrument not found'],
  instrument_unknown: [REFUSED, 'Instrument not found'],
  instrument_twice: [REFUSED, 'Instrument not found'],
  instrument_not_first: [REFUSED, 'Instrument not found'],
  start_date_required: [REFUSED, 'startDate is required'],
  custom_disabled: [REFUSED, 'Invalid timeframe'],
  invalid_timeframe: [REFUSED, 'Invalid timeframe'],
  timeframe_out_of_range: [REFUSED, 'Invalid timeframe'],
  incompatible_resolution: [REFUSED, 'Invalid timeframe for this instrument'],
  date_invalid: [REFUSED, (e) => `${e.field === 'start' ? 'startDate' : 'endDate'} must be a date in YYYY-MM-DD format`, '{startDate|endDate} must be a date in YYYY-MM-DD format'],
  end_not_after_start: [REFUSED, 'endDate must not be before startDate'],
  span_too_long: [REFUSED, 'endDate must be at most 2 years after startDate'],
  no_data: [REFUSED, 'No data available for the specified date'],
  too_many_sessions: [REFUSED, 'An active session already exists'],
  challenge_not_found: [REFUSED, 'Account not found'],
  challenge_busy: [REFUSED, 'An active session already exists'],
  challenge_inactive: [REFUSED, 'Account violation'],
  challenge_time: [REFUSED, 'This challenge account has already traded past startDate'],
  rate_limited: TOO_MANY_REQUESTS,
};

export const replayAdvance: CodeTable<AdvanceError> = {
  ...replaySessionRows,
  invalid_steps: [REFUSED, `steps must be a whole number from 1 to ${LEGACY_POLICY.stepsMax}`],
  invalid_target_time: [REFUSED, 'Invalid timestamp'],
  ...advanceTransportRows,
};

export const replayPlay: CodeTable<PlayError> = {
  ...replaySessionRows,
  invalid_speed: [REFUSED, 'speed must be a number from 1 to 50'],
};

export const replaySession: CodeTable<SessionError> = replaySessionRows;

// ---- history ----

export type BarsBackError = { kind: 'bars_back_invalid' } | { kind: 'bars_back_with_start' };

export type LegacyHistoryError = HistoryError | BarsBackError;

export const retrieveBars: CodeTable<LegacyHistoryError> = {
  contract_not_found: [REFUSED, 'Contract not found'],
  unit_invalid: [REFUSED, 'Unit invalid'],
  invalid_time_range: [REFUSED, 'Invalid time range'],
  incompatible_resolution: [REFUSED, 'Invalid timeframe for this instrument'],
  custom_disabled: [REFUSED, 'Custom timeframes are currently disabled'],
  unit_number_invalid: [REFUSED, 'Unit number invalid'],
  limit_invalid: [REFUSED, 'Limit invalid'],
  bars_back_invalid: [REFUSED, 'barsBack must be a whole number of at least 1'],
  bars_back_with_start: [REFUSED, 'barsBack cannot be combined with startTime'],
  ...barsTransportRows,
};
