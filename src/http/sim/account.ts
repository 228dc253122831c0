// Account/search of the current family.

import type { Services } from '../../service/services.ts';
import { failure, success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import { presentAccount } from './present.ts';

export function registerAccount(app: App, s: Services): void {
  authedPost(app, s, '/Account/search', ({ body, principal }) => {
    const only = body.onlyActiveAccounts;
    if (only !== undefined && only !== null && typeof only !== 'boolean') {
      return failure(1, 'onlyActiveAccounts must be a boolean');
    }
    const accounts = s.accounts.search(principal.user.id, only === true);
    return success({ accounts: accounts.map(presentAccount) });
  });
}
