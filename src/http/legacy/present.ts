// Domain → wire shapes of the earlier family for accounts, contracts and payouts. Wire names live
// here and in codes.ts only (trading and replay shapes: present-trading.ts). Families never import
// each other, so the shapes both families share are written here again.

import { centsToUsd } from '../../domain/instrument.ts';
import type { LegacyContract } from '../../domain/contract-id.ts';
import type { PayoutEligibility } from '../../challenge/payout.ts';
import { tradeDateString } from '../../domain/trading-hours.ts';
import { isoFromEpochMs } from '../../lib/iso-time.ts';
import type { PayoutRow } from '../../store/challenges.ts';
import type { AccountView } from '../../service/accounts.ts';

/** The Account fields of the current family (spec: "Response: envelope + `accounts` (Account fields)"). */
export function presentAccount(a: AccountView) {
  return {
    id: a.id,
    name: a.name,
    balance: centsToUsd(a.balanceCents),
    canTrade: a.canTrade,
    isVisible: true,
    simulated: true,
  };
}

/** `name` is the short symbol (`CL`); `contractSize` the multiplier, USD per 1.0 of price. */
export function presentContract(c: LegacyContract) {
  const l = c.instrument;
  return {
    id: c.id,
    name: l.symbol,
    description: l.description,
    tickSize: l.tickSize,
    tickValue: centsToUsd(l.tickValueCents),
    contractSize: l.contractSize,
  };
}

export function presentEligibility(e: PayoutEligibility) {
  return {
    eligible: e.eligible,
    reasons: e.reasons,
    winningDays: e.winningDays,
    requiredWinningDays: e.requiredWinningDays,
    winningDayMinProfit: centsToUsd(e.winningDayMinProfitCents),
    netProfitSincePayout: centsToUsd(e.netProfitSincePayoutCents),
    totalFundedProfits: centsToUsd(e.totalFundedProfitCents),
    consistencyLimit: centsToUsd(e.consistencyLimitCents),
    maxPayout: centsToUsd(e.maxPayoutCents),
    minPayout: centsToUsd(e.minPayoutCents),
    consistencyPct: e.consistencyPct,
    windowStartDate: e.windowStartDate,
  };
}

export function presentPayout(p: PayoutRow) {
  return {
    id: p.id,
    amount: centsToUsd(p.amountCents),
    balanceBefore: centsToUsd(p.balanceBeforeCents),
    balanceAfter: centsToUsd(p.balanceAfterCents),
    status: p.status,
    requestedAt: isoFromEpochMs(p.requestedMs),
    simulatedDate: tradeDateString(p.simTradeDate),
  };
}
