// The earlier family: Trade/search (oldest first, string IDs).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerTrade(_app: App, _s: Services): void {
  // Not built yet.
}
