// Position/searchOpen, closeContract, partialCloseContract and Trade/search of the current family.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { presentPosition, presentTrade } from './present.ts';
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

  route(app, s, ep.tradeSearch, async ({ body, principal }) => {
    const r = await s.trading.trades(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows } = r.value;
    if (!instrument) return ep.tradeSearch.ok({ trades: [] });
    const contract = s.contracts.contractFor(instrument);
    return ep.tradeSearch.ok({ trades: rows.map((f, i) => presentTrade(body.accountId, contract, f, i)) });
  });
}
