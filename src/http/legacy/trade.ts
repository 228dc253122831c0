// The earlier family: Trade/search, oldest first, with string IDs.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { legacyContractId, presentTrade } from './present-trading.ts';
import * as ep from './schemas.ts';
import * as codes from './trading-codes.ts';

export function registerTrade<P extends string>(app: Elysia<P>, s: Services): void {
  // The service lists the newest 500 fills newest first; this family shows them oldest first.
  route(app, s, ep.tradeSearch, async ({ body, principal }) => {
    const r = await s.trading.trades(principal.user.id, body.accountId, null, null);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows } = r.value;
    if (!instrument) return ep.tradeSearch.ok({ trades: [] });
    const owner = await s.replay.tradingAccountOf(body.accountId);
    const contractId = legacyContractId(instrument, s.clock.nowMs());
    const trades = [];
    for (let i = rows.length - 1; i >= 0; i--) trades.push(presentTrade(owner, body.accountId, instrument, contractId, rows[i]));
    return ep.tradeSearch.ok({ trades });
  });
}
