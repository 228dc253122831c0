// The gateway's two real-time hubs over the SignalR transport (signalr/): what main.ts serves beside
// the HTTP families.

import type { Services } from '../../service/services.ts';
import type { HubDefinition } from './signalr/hub.ts';
import { marketHub } from './market-hub.ts';
import { userHub } from './user-hub.ts';

export function gatewayHubs(s: Services): HubDefinition[] {
  return [userHub(s), marketHub(s)];
}
