// The earlier family: Account/search.

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerAccount(_app: App, _s: Services): void {
  // Not built yet.
}
