// The earlier family: Replay/start, step, jumpTo, play, pause, end (results).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerReplay(_app: App, _s: Services): void {
  // Not built yet.
}
