// The earlier family: Position/searchOpen, closeContract, partialCloseContract. Contract IDs are this
// family's (`CON.F.US.CL.…`); the service reads the base instrument's.

import type { Elysia } from 'elysia';
import { legacyInstrumentForId } from '../../domain/contract-id.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { sizeError } from './order.ts';
import { legacyContractId, presentPosition } from './present-trading.ts';
import * as ep from './schemas.ts';
import * as codes from './trading-codes.ts';

export function registerPosition<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.positionSearchOpen, async ({ body, principal }) => {
    const r = await s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const nowMs = s.clock.nowMs();
    return ep.positionSearchOpen.ok({ positions: r.value.map((p) => presentPosition(body.accountId, legacyContractId(p.session.inst, nowMs), p)) });
  });

  /** The current family's contract ID of the base instrument a legacy ID names, or null. */
  const baseContractId = (contractId: unknown): string | null => {
    const l = legacyInstrumentForId(contractId);
    return l ? s.contracts.contractFor(l.base).id : null;
  };

  // The contract first (the route refuses a non-string one), then the service's account and position.
  route(app, s, ep.positionClose, async ({ body, principal }) => {
    const contractId = baseContractId(body.contractId);
    if (contractId === null) return mapError(codes.closePosition, { kind: 'contract_not_found' });
    const r = await s.trading.close(principal.user.id, body.accountId, contractId);
    return r.ok ? ep.positionClose.ok({}) : mapError(codes.closePosition, r.error);
  });

  // Size first (the spec's "Size must be greater than 0", the route's; then whole and at most 1000),
  // then the contract, then the service's account, position and "Size exceeds current position" checks.
  route(app, s, ep.positionPartialClose, async ({ body, principal }) => {
    const size = sizeError(body.size);
    if (size) return mapError(codes.partialClosePosition, size);
    const contractId = baseContractId(body.contractId);
    if (contractId === null) return mapError(codes.partialClosePosition, { kind: 'contract_not_found' });
    const r = await s.trading.partialClose(principal.user.id, body.accountId, contractId, body.size);
    return r.ok ? ep.positionPartialClose.ok({}) : mapError(codes.partialClosePosition, r.error);
  });
}
