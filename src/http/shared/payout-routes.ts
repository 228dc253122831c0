// Payout/eligibility, Payout/request and Payout/history: the same operations, fields and order of
// checks in both simulator families; only their code tables and the phase's name differ (the
// current family speaks of withdrawals in the performance phase, the earlier of payouts in the
// funded phase). `payoutEndpoints` declares them for a family's tables; `registerPayoutRoutes` serves them.

import { Type as T } from '@sinclair/typebox';
import type { Elysia } from 'elysia';
import type { PayoutHistoryError, PayoutPhaseError, PayoutRequestError } from '../../service/payouts.ts';
import type { Services } from '../../service/services.ts';
import type { CodeTable } from './code-table.ts';
import { mapError } from './code-table.ts';
import { ACCOUNT_SESSION, defineEndpoint, okBody, route } from './endpoint.ts';
import { presentEligibility, presentPayout } from './present-common.ts';
import { AccountId, PayoutEligibility, PayoutRecord } from './schemas.ts';

export interface PayoutTables {
  payoutEligibility: CodeTable<PayoutPhaseError>;
  payoutRequest: CodeTable<PayoutRequestError>;
  payoutHistory: CodeTable<PayoutHistoryError>;
  /** What the family calls the phase in which payouts are taken. */
  PAYOUT_PHASE: string;
}

const NOT_FOUND = { kind: 'account_not_found' } as const;

/** The three Payout endpoints with a family's code tables. */
export function payoutEndpoints(codes: PayoutTables) {
  return {
    eligibility: defineEndpoint({
      method: 'POST',
      path: '/Payout/eligibility',
      auth: 'bearer',
      // The challenge account's live session holds its freshest state (and takes a payout's commit).
      session: ACCOUNT_SESSION,
      summary: `Whether a challenge account in the ${codes.PAYOUT_PHASE} may take a payout now, and its limits`,
      request: { accountId: AccountId },
      fields: { accountId: { refuse: NOT_FOUND } },
      response: okBody({ eligibility: PayoutEligibility }),
      errors: codes.payoutEligibility,
    }),
    request: defineEndpoint({
      method: 'POST',
      path: '/Payout/request',
      auth: 'bearer',
      // The challenge account's live session holds its freshest state (and takes a payout's commit).
      session: ACCOUNT_SESSION,
      summary: 'Takes a simulated payout: the amount leaves the balance and is recorded',
      request: { accountId: AccountId, amount: T.Number({ exclusiveMinimum: 0, description: 'USD, whole cents' }) },
      fields: { accountId: { refuse: NOT_FOUND }, amount: { defer: 'invalid_amount' } },
      response: okBody({ payoutId: T.String() }),
      errors: codes.payoutRequest,
      // A refusal for eligibility carries the whole eligibility object (spec).
      errorFields: { eligibility: T.Optional(PayoutEligibility) },
    }),
    history: defineEndpoint({
      method: 'POST',
      path: '/Payout/history',
      auth: 'bearer',
      summary: 'Payouts of a challenge account, newest first',
      request: { accountId: AccountId },
      fields: { accountId: { refuse: NOT_FOUND } },
      response: okBody({ payouts: T.Array(PayoutRecord) }),
      errors: codes.payoutHistory,
    }),
  };
}

export type PayoutEndpoints = ReturnType<typeof payoutEndpoints>;

export function registerPayoutRoutes<P extends string>(app: Elysia<P>, s: Services, codes: PayoutTables, eps: PayoutEndpoints = payoutEndpoints(codes)): void {
  route(app, s, eps.eligibility, async ({ body, principal }) => {
    const r = await s.payouts.eligibility(principal.user.id, body.accountId);
    return r.ok ? eps.eligibility.ok({ eligibility: presentEligibility(r.value, codes.PAYOUT_PHASE) }) : mapError(codes.payoutEligibility, r.error);
  });

  route(app, s, eps.request, async ({ body, principal }) => {
    const r = await s.payouts.request(principal.user.id, body.accountId, body.amount);
    if (r.ok) return eps.request.ok({ payoutId: r.value.payout.id });
    const fields = r.error.kind === 'not_eligible' ? { eligibility: presentEligibility(r.error.eligibility, codes.PAYOUT_PHASE) } : {};
    return mapError(codes.payoutRequest, r.error, fields);
  });

  route(app, s, eps.history, async ({ body, principal }) => {
    const r = await s.payouts.history(principal.user.id, body.accountId);
    return r.ok ? eps.history.ok({ payouts: r.value.map(presentPayout) }) : mapError(codes.payoutHistory, r.error);
  });
}
