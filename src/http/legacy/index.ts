// The earlier family (`/api/legacy-sim/`): a second adapter over the same services, engine and store
// (spec "Earlier family differences"). It holds only parsing, shaping and code tables; its endpoints
// are declared in schemas.ts.

import type { Services } from '../../service/services.ts';
import { familyApp } from '../shared/family.ts';
import { registerAccount } from './account.ts';
import { registerAuth } from './auth.ts';
import { registerContract } from './contract.ts';
import { registerHistory } from './history.ts';
import { registerOrder } from './order.ts';
import { registerPayout } from './payout.ts';
import { registerPosition } from './position.ts';
import { registerReplay } from './replay.ts';
import { registerTrade } from './trade.ts';

export function legacyFamily(s: Services, prefix = '/api/legacy-sim') {
  return familyApp(prefix, s, [
    registerAuth, registerAccount, registerContract, registerHistory,
    registerReplay, registerOrder, registerPosition, registerTrade, registerPayout,
  ]);
}
