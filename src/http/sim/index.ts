// The current family (`/api/sim/`), also served under `/api/sim/api/` for clients that append
// `/api/Group/op` to a bare base URL. Its endpoints are declared in schemas.ts.

import { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { registerAccount } from './account.ts';
import { registerAuth } from './auth.ts';
import { registerContract } from './contract.ts';
import { registerHistory } from './history.ts';
import { registerOrder } from './order.ts';
import { registerPayout } from './payout.ts';
import { registerPosition } from './position.ts';
import { registerReplay } from './replay.ts';

export function simFamily(s: Services, prefix: string) {
  const app = new Elysia({ prefix });
  registerAuth(app, s);
  registerAccount(app, s);
  registerContract(app, s);
  registerHistory(app, s);
  registerReplay(app, s);
  registerOrder(app, s);
  registerPosition(app, s);
  registerPayout(app, s);
  return app;
}
