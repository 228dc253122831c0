// The earlier family: Payout/eligibility, Payout/request, Payout/history. Same services and fields as
// the current family; this family calls the performance phase "funded" and a withdrawal a "payout".

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { registerPayoutRoutes } from '../shared/payout-routes.ts';
import * as codes from './codes.ts';
import { payout } from './schemas.ts';

export function registerPayout<P extends string>(app: Elysia<P>, s: Services): void {
  registerPayoutRoutes(app, s, codes, payout);
}
