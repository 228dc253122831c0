// The current family (`/api/sim/`), also served under `/api/sim/api/` for clients that append
// `/api/Group/op` to a bare base URL. Its endpoints are declared in schemas.ts.

import type { Services } from '../../service/services.ts';
import { familyApp } from '../shared/family.ts';
import { registerAccount } from './account.ts';
import { registerAuth } from './auth.ts';
import { registerContract } from './contract.ts';
import { registerHistory } from './history.ts';
import { registerOrder } from './order.ts';
import { registerPayout } from './payout.ts';
import { registerPosition } from './position.ts';
import { registerBranch, registerReplay } from './replay.ts';

export function simFamily(s: Services, prefix: string) {
  return familyApp(prefix, s, [
    registerAuth, registerAccount, registerContract, registerHistory,
    registerReplay, registerBranch, registerOrder, registerPosition, registerPayout,
  ]);
}
