// Payout/eligibility, Payout/request and Payout/history of the current family (the wire calls a
// payout a "withdrawal" in its messages).

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { registerPayoutRoutes } from '../shared/payout-routes.ts';
import * as codes from './codes.ts';
import { payout } from './schemas.ts';

export function registerPayout<P extends string>(app: Elysia<P>, s: Services): void {
  registerPayoutRoutes(app, s, codes, payout);
}
