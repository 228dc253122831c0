// The earlier family: Payout/eligibility, Payout/request, Payout/history (funded-phase wording).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerPayout(_app: App, _s: Services): void {
  // Not built yet.
}
