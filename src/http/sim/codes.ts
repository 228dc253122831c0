// Current family: (errorCode, errorMessage) per endpoint for every domain error kind.
// Spec: "Endpoints → Current family" and "Authentication" 4.

import { type CodeTable, TOO_MANY_REQUESTS } from '../shared/code-table.ts';
import type { LoginError, ValidateError } from '../../service/auth.ts';
import type { HistoryError } from '../../service/history.ts';
import type { PayoutPhaseError, PayoutRequestError } from '../../service/payouts.ts';
import type { AdvanceError, PlayError, SessionError } from '../../service/replay/service.ts';
import type { StartError } from '../../service/replay/setup.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { CancelError, CloseError, PartialCloseError, PlaceError, SearchError } from '../../service/trading.ts';
import { payoutReasonText } from '../shared/present-common.ts';

// Wrong key, unknown email, unverified and disabled users get the same answer: accounts cannot be probed.
export const loginKey = {
  missing_credentials: [3, 'Invalid credentials'],
  invalid_credentials: [3, 'Invalid credentials'],
  user_unverified: [3, 'Invalid credentials'],
  user_disabled: [3, 'Invalid credentials'],
  pro_required: [9, 'Pro subscription required for the Simulator API'],
  rate_limited: TOO_MANY_REQUESTS,
} satisfies CodeTable<LoginError>;

export const validate = {
  invalid_session: [1, 'Invalid session'],
  rate_limited: TOO_MANY_REQUESTS,
} satisfies CodeTable<ValidateError>;

export const retrieveBars = {
  contract_not_found: [1, 'Contract not found'],
  unit_invalid: [2, 'Unit invalid'],
  invalid_time_range: [2, 'Invalid time range'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  custom_disabled: [2, 'Custom timeframes are currently disabled'],
  unit_number_invalid: [3, 'Unit number invalid'],
  limit_invalid: [4, 'Limit invalid'],
  rate_limited: TOO_MANY_REQUESTS,
  daily_bars_exhausted: { status: 429, message: 'Daily data limit reached. Resets at 00:00 UTC.' },
  daily_processing_exhausted: { status: 429, message: 'Daily data-processing limit reached. Resets at 00:00 UTC.' },
  importing: { status: 503, message: 'Market data for this contract is being re-imported; retry later' },
} satisfies CodeTable<HistoryError>;

export const replayStart = {
  instrument_required: [1, 'instrumentSymbol or contractId required'],
  instrument_not_found: [1, 'Instrument not found'],
  start_date_required: [2, 'startDate required'],
  custom_disabled: [2, 'Custom timeframes are currently disabled'],
  invalid_timeframe: [2, 'Invalid timeframe'],
  timeframe_out_of_range: [2, 'Timeframe out of range'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  date_invalid: [7, (e) => `${e.field === 'start' ? 'startDate' : 'endDate'} must be a date in YYYY-MM-DD format`],
  end_not_after_start: [7, 'endDate must be after startDate'],
  span_too_long: [7, 'endDate must be at most 2 years after startDate'],
  no_data: [7, (e) => `No data available for ${e.symbol} ${e.toDate ? `between ${e.fromDate} and ${e.toDate}` : `from ${e.fromDate}`}`],
  too_many_sessions: [4, 'Maximum of 10 live replay sessions reached; end one with Replay/end'],
  challenge_not_found: [1, 'Account not found'],
  challenge_busy: [7, 'This challenge account already has a live replay session; end it with Replay/end first'],
  challenge_inactive: [7, (e) => `Challenge account ${e.challengeId} is no longer active (${e.status})`],
  challenge_time: [7, (e) => `Challenge account ${e.challengeId} has already traded up to ${isoFromEpochS(e.lastSimTimeS)}; a session on it must start after that time`],
  rate_limited: TOO_MANY_REQUESTS,
} satisfies CodeTable<StartError>;

const sessionRows = {
  account_not_found: [1, 'Account not found'],
  session_ended: [1, 'No active replay session for this account'],
} as const;

export const replayAdvance = {
  ...sessionRows,
  invalid_steps: [2, 'steps must be a whole number from 1 to 100'],
  invalid_target_time: [2, 'Invalid targetTime'],
  busy: { status: 503, message: (e) => (e.cause === 'playing' ? 'Session is playing; pause it first' : 'Session busy with another operation') },
  streaming_rate: TOO_MANY_REQUESTS,
  streaming_daily: { status: 429, message: 'Daily streaming allowance reached. Resets at 00:00 UTC.' },
} satisfies CodeTable<AdvanceError>;

export const replayPlay = {
  ...sessionRows,
  invalid_speed: [2, 'speed must be a number from 1 to 50'],
} satisfies CodeTable<PlayError>;

export const replaySession = sessionRows satisfies CodeTable<SessionError>;

const PRICE_FIELDS = { limit: 'limitPrice', stop: 'stopPrice' } as const;
const BRACKET_FIELDS = { stop_loss: 'stopLossBracket', take_profit: 'takeProfitBracket' } as const;

export const placeOrder = {
  invalid_size: [7, 'Invalid order size'],
  invalid_type_or_side: [7, 'Invalid order type or side'],
  account_not_found: [1, 'Account not found'],
  session_ended: [2, 'The replay session of this account has ended'],
  contract_not_found: [2, 'Contract not found'],
  contract_mismatch: [2, (e) => `This session trades ${e.sessionSymbol}; ${e.requestedSymbol} cannot be traded in it`],
  price_required: [2, (e) => `${PRICE_FIELDS[e.field]} is required for this order type`],
  price_off_grid: [2, (e) => `${PRICE_FIELDS[e.field]} ${e.price} is not a multiple of the tick size ${e.tickSize}`],
  price_out_of_range: [2, (e) => `${PRICE_FIELDS[e.field]} ${e.price} is out of range`],
  invalid_bracket: [2, (e) => `${BRACKET_FIELDS[e.leg]}.ticks must be a non-zero whole number of ticks`],
  rejected: [2, (e) => e.reason],
  challenge_inactive: [4, 'Account violation'],
} satisfies CodeTable<PlaceError>;

// The gateway schema has one row for every order that is not working: filled and canceled share it.
export const cancelOrder = {
  account_not_found: [1, 'Account not found'],
  session_ended: [2, 'Order not found'],
  order_not_found: [2, 'Order not found'],
  order_filled: [2, 'Order not found'],
  order_canceled: [2, 'Order not found'],
} satisfies CodeTable<CancelError>;

export const searchOrders = {
  account_not_found: [1, 'Account not found'],
  invalid_timestamp: [2, 'startTimestamp and endTimestamp must be ISO 8601 times'],
} satisfies CodeTable<SearchError>;

export const closePosition = {
  account_not_found: [1, 'Account not found'],
  session_ended: [2, 'Position not found'],
  position_not_found: [2, 'Position not found'],
  challenge_inactive: [4, 'Account violation'],
  rejected: [5, (e) => e.reason],
} satisfies CodeTable<CloseError>;

export const partialClosePosition = {
  account_not_found: [1, 'Account not found'],
  session_ended: [2, 'Position not found'],
  position_not_found: [2, 'Position not found'],
  challenge_inactive: [4, 'Account violation'],
  invalid_close_size: [5, 'Invalid close size'],
  rejected: [6, (e) => e.reason],
} satisfies CodeTable<PartialCloseError>;

export const payoutEligibility = {
  account_not_found: [1, 'Account not found'],
  not_performance_phase: [2, 'Account is not in the performance phase'],
} satisfies CodeTable<PayoutPhaseError>;

export const payoutRequest = {
  ...payoutEligibility,
  invalid_amount: [3, 'Invalid withdrawal amount'],
  not_eligible: [4, (e) => `Withdrawal not eligible: ${e.eligibility.reasons.map((r) => payoutReasonText(r, PAYOUT_PHASE)).join('; ')}`],
  conflict: [5, 'Withdrawal failed — please retry'],
} satisfies CodeTable<PayoutRequestError>;

export const payoutHistory = {
  account_not_found: [1, 'Account not found'],
} satisfies CodeTable<{ kind: 'account_not_found' }>;

/** What this family calls the challenge phase in which payouts are taken. */
export const PAYOUT_PHASE = 'performance phase';
