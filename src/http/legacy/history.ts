// The earlier family: History/retrieveBars (barsBack, endTime defaulting to the replay time).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerHistory(_app: App, _s: Services): void {
  // Not built yet.
}
