// The earlier family: (errorCode, errorMessage) per endpoint for every domain error kind of Auth,
// Account, Contract and Payout. Spec: "Earlier family differences"; rows it does not list are the
// current family's (docs/decisions.md, "Earlier family"). Trading and replay rows live in
// trading-codes.ts.

import { validateRows } from '../shared/code-rows.ts';
import { type CodeTable, TOO_MANY_REQUESTS } from '../shared/code-table.ts';
import { SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import type { LoginError, ValidateError } from '../../service/auth.ts';
import { payoutTables } from '../shared/payout-codes.ts';

// The spec's three login messages, all errorCode 1. This family tells a disabled account apart (after
// the key matched, so emails still cannot be probed); an unverified one is refused as invalid.
export const loginKey: CodeTable<LoginError> = {
  missing_credentials: [1, 'userName and apiKey are required'],
  invalid_credentials: [1, 'Invalid credentials'],
  user_unverified: [1, 'Invalid credentials'],
  user_disabled: [1, 'Account is disabled'],
  pro_required: [1, SIM_PRO_REQUIRED],
  rate_limited: TOO_MANY_REQUESTS,
};

export const validate: CodeTable<ValidateError> = validateRows(1);

/** Endpoints that answer no error row of their own (only 400/401). */
export const none: CodeTable<never> = {};

/** Shape errors this adapter finds while parsing a body (no service is called). */
export type AccountSearchError = { kind: 'only_active_not_boolean' };
export type ContractSearchError = { kind: 'search_text_not_string' };
export type ContractByIdError = { kind: 'contract_not_found' };

export const accountSearch: CodeTable<AccountSearchError> = {
  only_active_not_boolean: [1, 'onlyActiveAccounts must be a boolean'],
};

export const contractSearch: CodeTable<ContractSearchError> = {
  search_text_not_string: [1, 'searchText must be a string or null'],
};

export const contractSearchById: CodeTable<ContractByIdError> = {
  contract_not_found: [1, 'Contract not found'],
};

// Payouts: "funded" is this family's word for the performance phase, "payout" for the withdrawal.
export const { payoutEligibility, payoutRequest, payoutHistory, PAYOUT_PHASE } = payoutTables({
  phase: 'funded phase',
  payout: 'Payout',
  notInPhase: 'Account is not in funded phase',
});
