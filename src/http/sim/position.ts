// Position/searchOpen, closeContract, partialCloseContract and Trade/search of the current family.
// Under the live profile Trade/search reads its window on the account's replay clock (replay-window.ts).

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { routeByProfile } from '../shared/endpoint.ts';
import { presentLiveTrade } from '../shared/present-gateway.ts';
import { symbolIdStyleOf } from '../shared/profile.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { closesPosition } from '../../engine/types.ts';
import * as codes from './codes.ts';
import * as liveCodes from './live-codes.ts';
import * as live from './live-schemas.ts';
import { presentLivePosition, presentPosition, presentTrade } from './present.ts';
import { accountBounds } from './replay-window.ts';
import * as ep from './schemas.ts';

export function registerPosition<P extends string>(app: Elysia<P>, s: Services): void {
  // Under the live profile a row names the contract that traded on its own simulated date.
  const liveContract = (inst: Instrument, atS: number) => s.contracts.contractFor(inst, { style: symbolIdStyleOf(s.config, 'live'), atMs: atS * 1000 });

  routeByProfile(app, s, [ep.positionSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    return ep.positionSearchOpen.ok({
      positions: r.value.map((p, i) => presentPosition(body.accountId, s.contracts.contractFor(p.inst), p, i)),
    });
  }], [live.positionSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    return live.positionSearchOpen.ok({
      positions: r.value.map((p) => presentLivePosition(body.accountId, liveContract(p.inst, p.opening?.openedS ?? p.session.nowS), p)),
    });
  }]);

  routeByProfile(app, s, [ep.positionClose, async ({ body, principal }) => {
    const r = await s.trading.close(principal.user.id, body.accountId, body.contractId);
    return r.ok ? ep.positionClose.ok({}) : mapError(codes.closePosition, r.error);
  }], [live.positionClose, async ({ body, principal }) => {
    const r = await s.trading.close(principal.user.id, body.accountId, body.contractId);
    return r.ok ? live.positionClose.ok({}) : mapError(liveCodes.closePosition, r.error);
  }]);

  routeByProfile(app, s, [ep.positionPartialClose, async ({ body, principal }) => {
    const r = await s.trading.partialClose(principal.user.id, body.accountId, body.contractId, body.size);
    return r.ok ? ep.positionPartialClose.ok({}) : mapError(codes.partialClosePosition, r.error);
  }], [live.positionPartialClose, async ({ body, principal }) => {
    const r = await s.trading.partialClose(principal.user.id, body.accountId, body.contractId, body.size);
    return r.ok ? live.positionPartialClose.ok({}) : mapError(liveCodes.closePosition, r.error);
  }]);

  routeByProfile(app, s, [ep.tradeSearch, async ({ body, principal }) => {
    const r = await s.trading.trades(principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows, rowInstruments } = r.value;
    if (!instrument) return ep.tradeSearch.ok({ trades: [] });
    const contract = s.contracts.contractFor(instrument);
    const contractOf = (i: number) => (rowInstruments ? s.contracts.contractFor(rowInstruments[i]) : contract);
    return ep.tradeSearch.ok({ trades: rows.map((f, i) => presentTrade(body.accountId, contractOf(i), f, i)) });
  }], [live.tradeSearch, async ({ body, principal }) => {
    // "Trades of the last 24 hours" means the 24 hours before the session's time (replay-window.ts).
    const bounds = await accountBounds(s, principal.user.id, body.accountId, body.startTimestamp, body.endTimestamp);
    const r = await s.trading.trades(principal.user.id, body.accountId, bounds.start, bounds.end);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const { instrument, rows, rowInstruments } = r.value;
    if (!instrument) return live.tradeSearch.ok({ trades: [] });
    const instOf = (i: number) => rowInstruments?.[i] ?? instrument;
    return live.tradeSearch.ok({ trades: rows.map((f, i) => presentLiveTrade(body.accountId, liveContract(instOf(i), f.timeS), f, closesPosition(f))) });
  }]);
}
