// Payout/eligibility, Payout/request and Payout/history: the same operations, fields and order of
// checks in both simulator families; only their code tables and the phase's name differ (the
// current family speaks of withdrawals in the performance phase, the earlier of payouts in the
// funded phase).

import type { PayoutPhaseError, PayoutRequestError } from '../../service/payouts.ts';
import type { Services } from '../../service/services.ts';
import { type CodeTable, mapError } from './code-table.ts';
import { success } from './envelope.ts';
import { presentEligibility, presentPayout } from './present-common.ts';
import { authedPost, type App } from './route.ts';

export interface PayoutTables {
  payoutEligibility: CodeTable<PayoutPhaseError>;
  payoutRequest: CodeTable<PayoutRequestError>;
  payoutHistory: CodeTable<{ kind: 'account_not_found' }>;
  /** What the family calls the phase in which payouts are taken. */
  PAYOUT_PHASE: string;
}

export function registerPayoutRoutes(app: App, s: Services, codes: PayoutTables): void {
  authedPost(app, s, '/Payout/eligibility', ({ body, principal }) => {
    const r = s.payouts.eligibility(principal.user.id, body.accountId);
    return r.ok ? success({ eligibility: presentEligibility(r.value, codes.PAYOUT_PHASE) }) : mapError(codes.payoutEligibility, r.error);
  });

  authedPost(app, s, '/Payout/request', async ({ body, principal }) => {
    const r = await s.payouts.request(principal.user.id, body.accountId, body.amount);
    if (r.ok) return success({ payoutId: r.value.payout.id });
    // A refusal for eligibility carries the whole eligibility object (spec).
    const fields = r.error.kind === 'not_eligible' ? { eligibility: presentEligibility(r.error.eligibility, codes.PAYOUT_PHASE) } : {};
    return mapError(codes.payoutRequest, r.error, fields);
  });

  authedPost(app, s, '/Payout/history', ({ body, principal }) => {
    const r = s.payouts.history(principal.user.id, body.accountId);
    return r.ok ? success({ payouts: r.value.map(presentPayout) }) : mapError(codes.payoutHistory, r.error);
  });
}
