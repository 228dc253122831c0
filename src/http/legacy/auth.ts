// The earlier family: Auth/loginKey, Auth/validate, Auth/logout; Status/ping (a JSON envelope).

import type { Services } from '../../service/services.ts';
import type { App } from '../shared/route.ts';

export function registerAuth(_app: App, _s: Services): void {
  // Not built yet.
}
