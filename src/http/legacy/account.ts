// The earlier family: Account/search (`onlyActiveAccounts` optional, default false).

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { route } from '../shared/endpoint.ts';
import { presentAccount } from './present.ts';
import * as ep from './schemas.ts';

export function registerAccount<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.accountSearch, async ({ body, principal }) => {
    const accounts = await s.accounts.search(principal.user.id, body.onlyActiveAccounts === true);
    return ep.accountSearch.ok({ accounts: accounts.map(presentAccount) });
  });
}
