// Current family: (errorCode, errorMessage) per endpoint for every domain error kind.
// Spec: "Endpoints → Current family" and "Authentication" 4.

import type { CodeTable } from '../shared/code-table.ts';
import type { LoginError, ValidateError } from '../../service/auth.ts';
import type { HistoryError } from '../../service/history.ts';

// Wrong key, unknown email, unverified and disabled users get the same answer: accounts cannot be probed.
export const loginKey = {
  missing_credentials: [3, 'Invalid credentials'],
  invalid_credentials: [3, 'Invalid credentials'],
  user_unverified: [3, 'Invalid credentials'],
  user_disabled: [3, 'Invalid credentials'],
  pro_required: [9, 'Pro subscription required for the Simulator API'],
  rate_limited: 'rate_limited',
} satisfies CodeTable<LoginError>;

export const validate = {
  invalid_session: [1, 'Invalid session'],
  rate_limited: 'rate_limited',
} satisfies CodeTable<ValidateError>;

export const retrieveBars = {
  contract_not_found: [1, 'Contract not found'],
  unit_invalid: [2, 'Unit invalid'],
  invalid_time_range: [2, 'Invalid time range'],
  incompatible_resolution: [2, 'Invalid timeframe for this instrument'],
  custom_disabled: [2, 'Custom timeframes are currently disabled'],
  unit_number_invalid: [3, 'Unit number invalid'],
  limit_invalid: [4, 'Limit invalid'],
  rate_limited: 'rate_limited',
  daily_bars_exhausted: 'rate_limited',
  daily_processing_exhausted: 'rate_limited',
  importing: 'busy',
} satisfies CodeTable<HistoryError>;
