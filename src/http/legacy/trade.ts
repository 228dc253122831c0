// The earlier family: Trade/search, oldest first, with string IDs.

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './trading-codes.ts';
import { legacyContractId, presentTrade } from './present-trading.ts';

export function registerTrade(app: App, s: Services): void {
  // The service lists the newest 500 fills newest first; this family shows them oldest first.
  authedPost(app, s, '/Trade/search', ({ body, principal }) => {
    const r = s.trading.trades(principal.user.id, body.accountId, null, null);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows } = r.value;
    if (!instrument) return success({ trades: [] });
    const accountId = body.accountId as number;
    const owner = s.replay.tradingAccountOf(accountId);
    const contractId = legacyContractId(instrument, s.clock.nowMs());
    const trades = [];
    for (let i = rows.length - 1; i >= 0; i--) trades.push(presentTrade(owner, accountId, instrument, contractId, rows[i]));
    return success({ trades });
  });
}
