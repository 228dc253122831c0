// Position/searchOpen, closeContract, partialCloseContract and Trade/search of the current family.

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentPosition, presentTrade } from './present.ts';

export function registerPosition(app: App, s: Services): void {
  authedPost(app, s, '/Position/searchOpen', ({ body, principal }) => {
    const r = s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const accountId = body.accountId as number;
    return success({
      positions: r.value.map((p, i) => presentPosition(accountId, s.contracts.contractFor(p.session.inst), p, i)),
    });
  });

  authedPost(app, s, '/Position/closeContract', ({ body, principal }) => {
    const r = s.trading.close(principal.user.id, body.accountId, body.contractId);
    return r.ok ? success() : mapError(codes.closePosition, r.error);
  });

  authedPost(app, s, '/Position/partialCloseContract', ({ body, principal }) => {
    const r = s.trading.partialClose(principal.user.id, body.accountId, body.contractId, body.size);
    return r.ok ? success() : mapError(codes.partialClosePosition, r.error);
  });

  authedPost(app, s, '/Trade/search', ({ body, principal }) => {
    const r = s.trading.trades(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const accountId = body.accountId as number;
    const { instrument, rows } = r.value;
    if (!instrument) return success({ trades: [] });
    const contract = s.contracts.contractFor(instrument);
    return success({ trades: rows.map((f, i) => presentTrade(accountId, contract, f, i)) });
  });
}
