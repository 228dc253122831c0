// Current family: (errorCode, errorMessage) per endpoint for every domain error kind.
// Spec: "Endpoints → Current family" and "Authentication" 4.

import type { CodeTable } from '../shared/code-table.ts';
import type { LoginError, ValidateError } from '../../service/auth.ts';

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
