// The earlier family: Payout/eligibility, Payout/request, Payout/history. Same services and fields as
// the current family; this family calls the performance phase "funded" and a withdrawal a "payout".

import type { Services } from '../../service/services.ts';
import { registerPayoutRoutes } from '../shared/payout-routes.ts';
import type { App } from '../shared/route.ts';
import * as codes from './codes.ts';

export function registerPayout(app: App, s: Services): void {
  registerPayoutRoutes(app, s, codes);
}
