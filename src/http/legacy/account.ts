// The earlier family: Account/search (`onlyActiveAccounts` optional, default false).

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentAccount } from './present.ts';

export function registerAccount(app: App, s: Services): void {
  authedPost(app, s, '/Account/search', ({ body, principal }) => {
    const only = body.onlyActiveAccounts;
    if (only !== undefined && only !== null && typeof only !== 'boolean') {
      return mapError(codes.accountSearch, { kind: 'only_active_not_boolean' });
    }
    const accounts = s.accounts.search(principal.user.id, only === true);
    return success({ accounts: accounts.map(presentAccount) });
  });
}
