// The earlier family: Payout/eligibility, Payout/request, Payout/history. Same services and fields as
// the current family; this family calls the performance phase "funded" and a withdrawal a "payout".

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentEligibility, presentPayout } from './present.ts';

export function registerPayout(app: App, s: Services): void {
  authedPost(app, s, '/Payout/eligibility', ({ body, principal }) => {
    const r = s.payouts.eligibility(principal.user.id, body.accountId);
    return r.ok ? success({ eligibility: presentEligibility(r.value, codes.PAYOUT_PHASE) }) : mapError(codes.payoutEligibility, r.error);
  });

  authedPost(app, s, '/Payout/request', async ({ body, principal }) => {
    const r = await s.payouts.request(principal.user.id, body.accountId, body.amount);
    if (r.ok) return success({ payoutId: r.value.payout.id });
    // A refusal for eligibility carries the whole eligibility object, as in the current family.
    const fields = r.error.kind === 'not_eligible' ? { eligibility: presentEligibility(r.error.eligibility, codes.PAYOUT_PHASE) } : {};
    return mapError(codes.payoutRequest, r.error, fields);
  });

  authedPost(app, s, '/Payout/history', ({ body, principal }) => {
    const r = s.payouts.history(principal.user.id, body.accountId);
    return r.ok ? success({ payouts: r.value.map(presentPayout) }) : mapError(codes.payoutHistory, r.error);
  });
}
