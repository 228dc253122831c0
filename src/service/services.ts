// Builds every service over one database: the composition root below HTTP. Adapters receive this
// object and call one service function per operation.

import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { AccountStore } from '../store/accounts.ts';
import { TokenStore } from '../store/tokens.ts';
import { UserStore } from '../store/users.ts';
import { AccountService } from './accounts.ts';
import { AuthService } from './auth.ts';
import { ContractService } from './contracts.ts';
import { UserService } from './users.ts';

export interface Services {
  config: Config;
  clock: Clock;
  db: Db;
  startedMs: number;
  auth: AuthService;
  users: UserService;
  accounts: AccountService;
  contracts: ContractService;
  /** Stops timers and background work; the caller closes the database afterwards. */
  shutdown(): Promise<void>;
}

export interface ServiceDeps {
  config: Config;
  clock: Clock;
  db: Db;
  jwtSecret: Uint8Array;
}

export function createServices(deps: ServiceDeps): Services {
  const { db, clock, config } = deps;
  const userStore = new UserStore(db);
  const tokenStore = new TokenStore(db);
  const accountStore = new AccountStore(db);
  return {
    config,
    clock,
    db,
    startedMs: clock.nowMs(),
    auth: new AuthService(userStore, tokenStore, deps.jwtSecret, clock),
    users: new UserService(userStore, tokenStore, clock),
    accounts: new AccountService(accountStore),
    contracts: new ContractService(clock),
    async shutdown() {},
  };
}
