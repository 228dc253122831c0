// The earlier family: Order/place, search, searchOpen, cancel, modify (string order IDs).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerOrder(_app: App, _s: Services): void {
  // Not built yet.
}
