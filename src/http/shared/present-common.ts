// Wire shapes both simulator families share (spec: "Unless listed, shapes are as in the current
// family"): accounts, payout eligibility and records, and the statistics of a finished run (the
// earlier family's Replay/end `results`, the playground's run results). Money in USD.

import type { PayoutEligibility, PayoutReason } from '../../challenge/payout.ts';
import { formatUsd } from '../../engine/account.ts';
import { centsToUsd, type Instrument } from '../../domain/instrument.ts';
import { tradeDateString } from '../../domain/trading-hours.ts';
import type { RunStats, TradeRecord } from '../../engine/results.ts';
import { isoFromEpochMs, isoFromEpochS } from '../../lib/iso-time.ts';
import type { AccountView } from '../../service/accounts.ts';
import type { PayoutRow } from '../../store/challenges.ts';

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

/** A contract's head in both families: its id and name, and its instrument's tick in USD. */
export function presentContractHead(id: string, name: string, i: { description: string; tickSize: number; tickValueCents: number }) {
  return { id, name, description: i.description, tickSize: i.tickSize, tickValue: i.tickValueCents / 100 };
}

/**
 * A payout refusal reason in words. The families differ only in the phase's name: the current
 * family's "performance phase" is the earlier family's "funded phase".
 */
export function payoutReasonText(r: PayoutReason, phase: string): string {
  const since = (w: 'phase_start' | 'last_payout') => (w === 'phase_start' ? `the ${phase} began` : 'the last payout');
  switch (r.kind) {
    case 'not_payout_phase':
      return `The account is not in the ${phase}`;
    case 'winning_days':
      return `${r.have} of ${r.need} winning days (closed profit of at least ${formatUsd(r.minProfitCents)} on a finished trade date) since ${since(r.since)}`;
    case 'no_net_profit':
      return `No net profit since ${since(r.since)}`;
    case 'below_minimum':
      return `${r.capPct}% of the profit since ${since(r.since)} is ${formatUsd(r.cappedCents)}, below the minimum payout ${formatUsd(r.minCents)}`;
    case 'consistency':
      return `Best day ${formatUsd(r.bestCents)} is above ${r.pct}% of window profit ${formatUsd(r.netCents)}`;
  }
}

export function presentEligibility(e: PayoutEligibility, phase: string) {
  return {
    eligible: e.eligible,
    reasons: e.reasons.map((r) => payoutReasonText(r, phase)),
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

/** The `results` object (spec, earlier family Replay/end), in dollars. */
export function presentStats(st: RunStats) {
  return {
    totalPnl: centsToUsd(st.totalPnlCents),
    totalTrades: st.totalTrades,
    winningTrades: st.winningTrades,
    losingTrades: st.losingTrades,
    winRate: st.winRate,
    averageWin: centsToUsd(st.averageWinCents),
    averageLoss: centsToUsd(st.averageLossCents),
    largestWin: centsToUsd(st.largestWinCents),
    largestLoss: centsToUsd(st.largestLossCents),
    profitFactor: st.profitFactor,
    maxDrawdown: centsToUsd(st.maxDrawdownCents),
    finalBalance: centsToUsd(st.finalBalanceCents),
  };
}

/** An average price in ticks as a price, to two decimals beyond the tick's. */
function avgPrice(inst: Instrument, valueTicks: number, qty: number): number {
  const digits = inst.priceDecimals + 2;
  return Number((valueTicks / qty / inst.ticksPerPoint).toFixed(digits));
}

/** A round-trip trade: prices in the instrument's units, money in USD, times ISO 8601 UTC. */
export function presentRoundTrip(inst: Instrument, t: TradeRecord) {
  return {
    side: t.direction === 1 ? ('long' as const) : ('short' as const),
    size: t.entryQty,
    entryTime: isoFromEpochS(t.entryTimeS),
    entryPrice: avgPrice(inst, t.entryValueTicks, t.entryQty),
    exitTime: isoFromEpochS(t.exitTimeS),
    exitPrice: avgPrice(inst, t.exitValueTicks, t.entryQty),
    pnl: centsToUsd(t.pnlCents),
    fees: centsToUsd(t.feesCents),
    // A replay session over several instruments names each trade's contract (RunTrade.symbol).
    ...(t.symbol === undefined ? {} : { symbol: t.symbol }),
  };
}
