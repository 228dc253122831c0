// The earlier family: Contract/search, Contract/searchById (the earlier family's instrument table).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerContract(_app: App, _s: Services): void {
  // Not built yet.
}
