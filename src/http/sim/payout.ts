// Payout/eligibility, Payout/request and Payout/history of the current family (the wire calls a
// payout a "withdrawal" in its messages).

import type { Services } from '../../service/services.ts';
import { registerPayoutRoutes } from '../shared/payout-routes.ts';
import type { App } from '../shared/route.ts';
import * as codes from './codes.ts';

export function registerPayout(app: App, s: Services): void {
  registerPayoutRoutes(app, s, codes);
}
