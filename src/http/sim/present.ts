// Domain → wire shapes of the current family. Wire names live here and in codes.ts only.

import { centsToUsd, type Instrument, ticksToPrice } from '../../domain/instrument.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { Fill } from '../../engine/types.ts';
import { type ChallengeOutcome, type ChallengeState, snapshotOf } from '../../challenge/state.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { Contract } from '../../service/contracts.ts';
import type { OpenPosition } from '../../service/trading.ts';
import { presentAccount, presentContractHead, presentEligibility, presentPayout } from '../shared/present-common.ts';
import { presentOrder, presentTrade } from '../shared/present-gateway.ts';

export { presentAccount, presentEligibility, presentPayout, presentOrder, presentTrade };

export function presentContract(c: Contract) {
  return { ...presentContractHead(c.id, c.name, c.instrument), activeContract: true, symbolId: c.symbolId };
}

// ---- replay, orders, positions, fills ----

export function presentSnapshot(e: SessionEngine) {
  const s = e.snapshot();
  return {
    balance: centsToUsd(s.balanceCents),
    equity: centsToUsd(s.equityCents),
    unrealizedPnl: centsToUsd(s.unrealizedPnlCents),
    marginUsed: centsToUsd(s.marginUsedCents),
    positions: s.openPositions,
    pendingOrders: s.pendingOrders,
  };
}

export function presentFilledOrders(inst: Instrument, fills: readonly Fill[]) {
  return fills.map((f) => ({ orderId: f.orderId, fillPrice: ticksToPrice(inst, f.priceTicks), fillQty: f.size }));
}

export function presentPosition(accountId: number, contract: Contract, p: OpenPosition, index: number) {
  return {
    id: index + 1,
    accountId,
    contractId: contract.id,
    contractDisplayName: contract.instrument.description,
    creationTimestamp: isoFromEpochS(p.session.nowS),
    type: p.qty > 0 ? (1 as const) : (2 as const),
    size: Math.abs(p.qty),
    averagePrice: p.avgPriceTicks / contract.instrument.ticksPerPoint,
  };
}

/**
 * The live gateway's position: no `contractDisplayName`; a stable `id` (the fill that opened it) and
 * its opening time (the session's time when an older session state does not know them).
 */
export function presentLivePosition(accountId: number, contract: Contract, p: OpenPosition) {
  return {
    id: p.opening?.fillId ?? 1,
    accountId,
    contractId: contract.id,
    creationTimestamp: isoFromEpochS(p.opening?.openedS ?? p.session.nowS),
    type: p.qty > 0 ? (1 as const) : (2 as const),
    size: Math.abs(p.qty),
    averagePrice: p.avgPriceTicks / contract.instrument.ticksPerPoint,
  };
}

// ---- challenges and payouts (wire words: propFirm, violations, withdrawal) ----

export function presentPropFirm(state: ChallengeState) {
  const s = snapshotOf(state);
  return {
    status: s.status,
    isFunded: s.isFunded,
    currentPhase: s.currentPhase,
    tradingDaysCount: s.tradingDaysCount,
    drawdownLocked: s.drawdownLocked,
  };
}

export function presentViolation(o: ChallengeOutcome) {
  return {
    rule: o.rule,
    message: o.message,
    value: centsToUsd(o.valueCents),
    limit: centsToUsd(o.limitCents),
    time: isoFromEpochS(o.timeS),
    barIndex: o.barIndex,
    phase: o.phase,
  };
}

