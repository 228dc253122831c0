// The earlier family: Position/searchOpen, closeContract, partialCloseContract. Contract IDs are this
// family's (`CON.F.US.CL.…`); the service reads the base instrument's.

import { legacyInstrumentForId } from '../../domain/contract-id.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, type App } from '../shared/route.ts';
import { sizeError } from './order.ts';
import * as codes from './trading-codes.ts';
import { legacyContractId, presentPosition } from './present-trading.ts';

export function registerPosition(app: App, s: Services): void {
  authedPost(app, s, '/Position/searchOpen', ({ body, principal }) => {
    const r = s.trading.positions(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.searchOrders, r.error);
    const accountId = body.accountId as number;
    const nowMs = s.clock.nowMs();
    return success({ positions: r.value.map((p) => presentPosition(accountId, legacyContractId(p.session.inst, nowMs), p)) });
  });

  /** The current family's contract ID of the base instrument a legacy ID names, or null. */
  const baseContractId = (contractId: unknown): string | null => {
    const l = legacyInstrumentForId(contractId);
    return l ? s.contracts.contractFor(l.base).id : null;
  };

  authedPost(app, s, '/Position/closeContract', ({ body, principal }) => {
    const contractId = baseContractId(body.contractId);
    if (contractId === null) return mapError<codes.LegacyCloseError>(codes.closePosition, { kind: 'contract_not_found' });
    const r = s.trading.close(principal.user.id, body.accountId, contractId);
    return r.ok ? success() : mapError(codes.closePosition, r.error);
  });

  // Size first (the spec's "Size must be greater than 0"), then the contract, then the service's
  // account, position and "Size exceeds current position" checks.
  authedPost(app, s, '/Position/partialCloseContract', ({ body, principal }) => {
    const size = sizeError(body.size);
    if (size) return mapError<codes.LegacyPartialCloseError>(codes.partialClosePosition, size);
    const contractId = baseContractId(body.contractId);
    if (contractId === null) return mapError<codes.LegacyPartialCloseError>(codes.partialClosePosition, { kind: 'contract_not_found' });
    const r = s.trading.partialClose(principal.user.id, body.accountId, contractId, body.size);
    return r.ok ? success() : mapError(codes.partialClosePosition, r.error);
  });
}
