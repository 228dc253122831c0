// Current family: (errorCode, errorMessage) per endpoint for every domain error kind.
// Spec: "Endpoints → Current family" and "Authentication" 4.

import { type CodeTable, TOO_MANY_REQUESTS } from '../shared/code-table.ts';
import type { LoginError, ValidateError } from '../../service/auth.ts';
import type { HistoryError } from '../../service/history.ts';
import type { AdvanceError, BranchError, InstrumentChangeError, PlayError, SessionError } from '../../service/replay/service.ts';
import type { StartError } from '../../service/replay/setup.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { limits } from '../../config.ts';
import type { CancelError, CloseError, GatewayPlaceError, OrderStateError, PartialCloseError, PlaceError, SearchError } from '../../service/trading.ts';
import {
  ACCOUNT_NOT_FOUND_ROW, advanceTransportRows, barsTransportRows, credentialRows, engineRefusal, PRICE_FIELDS, priceRows, replaySessionRows, validateRows,
} from '../shared/code-rows.ts';
import { SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import { payoutTables } from '../shared/payout-codes.ts';

export const loginKey: CodeTable<LoginError> = { ...credentialRows(3), pro_required: [9, SIM_PRO_REQUIRED], rate_limited: TOO_MANY_REQUESTS };

export const validate: CodeTable<ValidateError> = validateRows(9);

/** Endpoints that answer no error row of their own (only 400/401). */
export const none: CodeTable<never> = {};

// Shape checks without a spec row of their own use the endpoint's nearest code (docs/decisions.md).
export const accountSearch: CodeTable<{ kind: 'invalid_only_active' }> = {
  invalid_only_active: [1, 'onlyActiveAccounts must be a boolean'],
};

export const contractSearch: CodeTable<{ kind: 'invalid_search_text' }> = {
  invalid_search_text: [1, 'searchText must be a string or null'],
};

export const contractById: CodeTable<{ kind: 'contract_not_found' }> = {
  contract_not_found: [1, 'Contract not found'],
};

export const retrieveBars: CodeTable<HistoryError> = {
  contract_not_found: [1, 'Contract not found'],
  unit_invalid: [2, 'Unit invalid'],
  invalid_time_range: [2, 'Invalid time range'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  custom_disabled: [2, 'Custom timeframes are currently disabled'],
  unit_number_invalid: [3, 'Unit number invalid'],
  limit_invalid: [4, 'Limit invalid'],
  ...barsTransportRows,
};

export const replayStart: CodeTable<StartError> = {
  instrument_required: [1, 'instrumentSymbol or contractId required'],
  instrument_not_found: [1, 'Instrument not found'],
  instruments_invalid: [1, `instrumentSymbols must list 1 to ${limits.replayInstrumentsMax} instrument symbols`],
  instrument_unknown: [1, (e) => `Instrument not found: ${e.symbol}`, 'Instrument not found: {symbol}'],
  instrument_twice: [1, (e) => `instrumentSymbols lists ${e.symbol} twice`, 'instrumentSymbols lists {symbol} twice'],
  instrument_not_first: [1, (e) => `${e.field} must be the first of instrumentSymbols`, '{instrumentSymbol|contractId} must be the first of instrumentSymbols'],
  start_date_required: [2, 'startDate required'],
  custom_disabled: [2, 'Custom timeframes are currently disabled'],
  invalid_timeframe: [2, 'Invalid timeframe'],
  timeframe_out_of_range: [2, 'Timeframe out of range'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  date_invalid: [7, (e) => `${e.field === 'start' ? 'startDate' : 'endDate'} must be a date in YYYY-MM-DD format`, '{startDate|endDate} must be a date in YYYY-MM-DD format'],
  end_not_after_start: [7, 'endDate must be after startDate'],
  span_too_long: [7, 'endDate must be at most 2 years after startDate'],
  no_data: [
    7,
    (e) => `No data available for ${e.symbol} ${e.toDate ? `between ${e.fromDate} and ${e.toDate}` : `from ${e.fromDate}`}`,
    'No data available for {symbol} between {startDate} and {endDate} (from {startDate} without endDate)',
  ],
  too_many_sessions: [4, 'Maximum of 10 live replay sessions reached; end one with Replay/end'],
  challenge_not_found: [1, 'Account not found'],
  challenge_busy: [7, 'This challenge account already has a live replay session; end it with Replay/end first'],
  challenge_inactive: [7, (e) => `Challenge account ${e.challengeId} is no longer active (${e.status})`, 'Challenge account {accountId} is no longer active ({status})'],
  challenge_time: [
    7,
    (e) => `Challenge account ${e.challengeId} has already traded up to ${isoFromEpochS(e.lastSimTimeS)}; a session on it must start after that time`,
    'Challenge account {accountId} has already traded up to {time}; a session on it must start after that time',
  ],
  rate_limited: TOO_MANY_REQUESTS,
};

export const replayAdvance: CodeTable<AdvanceError> = {
  ...replaySessionRows,
  invalid_steps: [2, 'steps must be a whole number from 1 to 100'],
  invalid_target_time: [2, 'Invalid targetTime'],
  ...advanceTransportRows,
};

export const replayPlay: CodeTable<PlayError> = {
  ...replaySessionRows,
  invalid_speed: [2, 'speed must be a number from 1 to 50'],
};

export const replaySession: CodeTable<SessionError> = replaySessionRows;

/** Replay/addInstrument and removeInstrument (the extension's; docs/decisions.md, "Several instruments"). */
export const replayInstruments: CodeTable<InstrumentChangeError> = {
  ...replaySessionRows,
  challenge_inactive: [4, 'Account violation'],
  instrument_required: [1, 'instrumentSymbol required'],
  instrument_unknown: [1, (e) => `Instrument not found: ${e.symbol}`, 'Instrument not found: {symbol}'],
  single_instrument: [7, 'This session trades one instrument; start it with instrumentSymbols to add or remove instruments'],
  instruments_invalid: [1, `instrumentSymbols must list 1 to ${limits.replayInstrumentsMax} instrument symbols`],
  instrument_present: [1, (e) => `${e.symbol} is already in this session`, '{symbol} is already in this session'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  instrument_absent: [1, (e) => `${e.symbol} is not in this session`, '{symbol} is not in this session'],
  instrument_first: [7, "The session's first instrument cannot be removed"],
  instrument_busy: [7, (e) => `${e.symbol} has an open position or working orders; close them before removing it`, '{symbol} has an open position or working orders; close them before removing it'],
};

/** Replay/branch (the extension's; docs/decisions.md, "Branching"). */
export const replayBranch: CodeTable<BranchError> = {
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  invalid_time: [2, 'Invalid time'],
  time_not_played: [
    2,
    (e) => `time must be the close of a bar this session has played: after ${isoFromEpochS(e.startS)} and at most ${isoFromEpochS(e.nowS)}`,
    'time must be the close of a bar this session has played: after {startTime} and at most {currentTime}',
  ],
  time_off_grid: [2, (e) => `time must be the close of a ${e.timeframe} bar of this session`, 'time must be the close of a {timeframe} bar of this session'],
  time_decided: [7, "The challenge's evaluation was decided at this bar; branch at an earlier bar"],
  not_branchable: [7, 'This session was started before branching existed and cannot be branched'],
  too_many_sessions: [4, 'Maximum of 10 live replay sessions reached; end one with Replay/end'],
  rate_limited: TOO_MANY_REQUESTS,
};

const BRACKET_FIELDS = { stop_loss: 'stopLossBracket', take_profit: 'takeProfitBracket' } as const;

/**
 * Order/place's refusals under the spec: its own, and a bracket `type` other than the spec's stop (4)
 * or limit (1), which is refused rather than silently changed (the only gateway field the spec's
 * adapter passes on).
 */
export type SpecPlaceError = PlaceError | Extract<GatewayPlaceError, { kind: 'invalid_bracket_type' }>;

export const placeOrder: CodeTable<SpecPlaceError> = {
  invalid_size: [7, 'Invalid order size'],
  invalid_type_or_side: [7, 'Invalid order type or side'],
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  session_ended: [2, 'The replay session of this account has ended'],
  contract_not_found: [2, 'Contract not found'],
  contract_mismatch: [2, (e) => `This session trades ${e.sessionSymbol}; ${e.requestedSymbol} cannot be traded in it`, 'This session trades {symbol}; {symbol} cannot be traded in it'],
  price_required: [2, (e) => `${PRICE_FIELDS[e.field]} is required for this order type`, '{limitPrice|stopPrice} is required for this order type'],
  ...priceRows(2),
  invalid_bracket: [2, (e) => `${BRACKET_FIELDS[e.leg]}.ticks must be a non-zero whole number of ticks`, '{stopLossBracket|takeProfitBracket}.ticks must be a non-zero whole number of ticks'],
  invalid_bracket_type: [
    2,
    (e) => `${BRACKET_FIELDS[e.leg]}.type ${e.type ?? 'sent'} is not supported: a stop-loss bracket is a stop (4), a take-profit bracket a limit (1)`,
    '{stopLossBracket|takeProfitBracket}.type {type} is not supported: a stop-loss bracket is a stop (4), a take-profit bracket a limit (1)',
  ],
  rejected: engineRefusal(2),
  challenge_inactive: [4, 'Account violation'],
};

export const modifyOrder: CodeTable<{ kind: 'unsupported' }> = {
  unsupported: [3, 'Order modification not supported in simulator'],
};

// The gateway schema has one row for every order that is not working: filled and canceled share it.
const ORDER_NOT_FOUND = [2, 'Order not found'] as const;

/** An order that is not working, in both profiles' Order/cancel and Order/modify. */
export const orderNotWorking: CodeTable<OrderStateError> = { order_not_found: ORDER_NOT_FOUND, order_filled: ORDER_NOT_FOUND, order_canceled: ORDER_NOT_FOUND };

export const cancelOrder: CodeTable<CancelError> = { account_not_found: ACCOUNT_NOT_FOUND_ROW, session_ended: ORDER_NOT_FOUND, ...orderNotWorking };

export const searchOrders: CodeTable<SearchError> = {
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  invalid_timestamp: [2, 'startTimestamp and endTimestamp must be ISO 8601 times'],
};

const positionNotFound: Pick<CodeTable<CloseError>, 'account_not_found' | 'session_ended' | 'position_not_found'> = {
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  session_ended: [2, 'Position not found'],
  position_not_found: [2, 'Position not found'],
};

export const closePosition: CodeTable<CloseError> = { ...positionNotFound, challenge_inactive: [4, 'Account violation'], rejected: engineRefusal(5) };

export const partialClosePosition: CodeTable<PartialCloseError> = {
  ...positionNotFound,
  challenge_inactive: [4, 'Account violation'],
  invalid_close_size: [5, 'Invalid close size'],
  rejected: engineRefusal(6),
};

export const { payoutEligibility, payoutRequest, payoutHistory, PAYOUT_PHASE } = payoutTables({
  phase: 'performance phase',
  payout: 'Withdrawal',
  notInPhase: 'Account is not in the performance phase',
});
