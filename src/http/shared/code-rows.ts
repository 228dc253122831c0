// Code-table rows that several endpoints or families answer alike, named once and spread into their
// tables (code-table.ts). Spreading keeps a table's declaration order, which the API reference shows.

import type { LoginError, ValidateError } from '../../service/auth.ts';
import type { HistoryError } from '../../service/history.ts';
import type { PriceError } from '../../service/order-request.ts';
import type { AdvanceError, SessionError } from '../../service/replay/service.ts';
import { type CodeTable, TOO_MANY_REQUESTS } from './code-table.ts';
import { SIM_PRO_REQUIRED } from './cookie.ts';

type CredentialError = Extract<LoginError, { kind: 'missing_credentials' | 'invalid_credentials' | 'user_unverified' | 'user_disabled' }>;

/**
 * Missing fields, wrong credentials, unverified and disabled users get one answer, so accounts cannot
 * be probed (the current family's Auth/loginKey, the web login).
 */
export function credentialRows(errorCode: number): CodeTable<CredentialError> {
  const row = [errorCode, 'Invalid credentials'] as const;
  return { missing_credentials: row, invalid_credentials: row, user_unverified: row, user_disabled: row };
}

/**
 * Auth/validate in both simulator families. `proRequired`: the family's code for an account that
 * left the Pro plan after login, whose tokens stop opening the API (its Auth/loginKey row).
 */
export function validateRows(proRequired: number): CodeTable<ValidateError> {
  return { invalid_session: [1, 'Invalid session'], pro_required: [proRequired, SIM_PRO_REQUIRED], rate_limited: TOO_MANY_REQUESTS };
}

/** An account the caller does not hold, in every family. */
export const ACCOUNT_NOT_FOUND_ROW = [1, 'Account not found'] as const;

export const accountNotFound: CodeTable<{ kind: 'account_not_found' }> = { account_not_found: ACCOUNT_NOT_FOUND_ROW };

/** An account without a live replay session: the same two rows in every family that names one. */
export const replaySessionRows: CodeTable<SessionError> = {
  account_not_found: ACCOUNT_NOT_FOUND_ROW,
  session_ended: [1, 'No active replay session for this account'],
};

/** The engine's own refusal, its reason as the message. */
export function engineRefusal(errorCode: number) {
  return [errorCode, (e: { reason: string }) => e.reason, 'the engine\'s rejection reason'] as const;
}

/** Replay/step's transport answers (both simulator families): a busy session, the streaming allowances. */
export const advanceTransportRows: Pick<CodeTable<AdvanceError>, 'busy' | 'streaming_rate' | 'streaming_daily'> = {
  busy: {
    status: 503,
    message: (e) => (e.cause === 'playing' ? 'Session is playing; pause it first' : 'Session busy with another operation'),
    doc: 'Session busy with another operation | Session is playing; pause it first',
  },
  streaming_rate: TOO_MANY_REQUESTS,
  streaming_daily: { status: 429, message: 'Daily streaming allowance reached. Resets at 00:00 UTC.' },
};

/** History/retrieveBars' transport answers (both simulator families): the rate and the daily allowances, a re-import. */
export const barsTransportRows: Pick<CodeTable<HistoryError>, 'rate_limited' | 'daily_bars_exhausted' | 'daily_processing_exhausted' | 'importing'> = {
  rate_limited: TOO_MANY_REQUESTS,
  daily_bars_exhausted: { status: 429, message: 'Daily data limit reached. Resets at 00:00 UTC.' },
  daily_processing_exhausted: { status: 429, message: 'Daily data-processing limit reached. Resets at 00:00 UTC.' },
  importing: { status: 503, message: 'Market data for this contract is being re-imported; retry later' },
};

/** The wire names of an order's two prices. */
export const PRICE_FIELDS = { limit: 'limitPrice', stop: 'stopPrice' } as const;

/** A price off the instrument's tick grid or out of its range: the same messages in every family and endpoint. */
export function priceRows(errorCode: number): CodeTable<PriceError> {
  return {
    price_off_grid: [
      errorCode,
      (e) => `${PRICE_FIELDS[e.field]} ${e.price} is not a multiple of the tick size ${e.tickSize}`,
      '{limitPrice|stopPrice} {price} is not a multiple of the tick size {tickSize}',
    ],
    price_out_of_range: [errorCode, (e) => `${PRICE_FIELDS[e.field]} ${e.price} is out of range`, '{limitPrice|stopPrice} {price} is out of range'],
  };
}
