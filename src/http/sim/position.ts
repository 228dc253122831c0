// Position/searchOpen, closeContract, partialCloseContract and Trade/search of the current family.
// Under the live profile Trade/search reads its window on the account's replay clock (replay-window.ts).

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route, routeByProfile } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as live from './live-schemas.ts';
import { presentPosition, presentTrade } from './present.ts';
import { accountBounds } from './replay-window.ts';
import * as ep from './schemas.ts';

export function registerPosition<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.positionSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    return ep.positionSearchOpen.ok({
      positions: r.value.map((p, i) => presentPosition(body.accountId, s.contracts.contractFor(p.session.inst), p, i)),
    });
  });

  route(app, s, ep.positionClose, async ({ body, principal }) => {
    const r = await s.trading.close(principal.user.id, body.accountId, body.contractId);
    return r.ok ? ep.positionClose.ok({}) : mapError(codes.closePosition, r.error);
  });

  route(app, s, ep.positionPartialClose, async ({ body, principal }) => {
    const r = await s.trading.partialClose(principal.user.id, body.accountId, body.contractId, body.size);
    return r.ok ? ep.positionPartialClose.ok({}) : mapError(codes.partialClosePosition, r.error);
  });

  const trades = async (userId: number, accountId: number, start: unknown, end: unknown) => {
    const r = await s.trading.trades(userId, accountId, start, end);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows } = r.value;
    if (!instrument) return ep.tradeSearch.ok({ trades: [] });
    const contract = s.contracts.contractFor(instrument);
    return ep.tradeSearch.ok({ trades: rows.map((f, i) => presentTrade(accountId, contract, f, i)) });
  };

  routeByProfile(app, s, [ep.tradeSearch, ({ body, principal }) => trades(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp)], [
    live.tradeSearch,
    async ({ body, principal }) => {
      // "Trades of the last 24 hours" means the 24 hours before the session's time (replay-window.ts).
      const bounds = await accountBounds(s, principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
      return trades(principal.user.id, body.accountId, bounds.start, bounds.end);
    },
  ]);
}
