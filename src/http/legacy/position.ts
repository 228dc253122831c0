// The earlier family: Position/searchOpen, closeContract, partialCloseContract.

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerPosition(_app: App, _s: Services): void {
  // Not built yet.
}
