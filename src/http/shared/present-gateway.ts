// The gateway's order and trade shapes, as the current family's Order/search and Trade/search
// report them and the user hub (src/http/hubs) sends them in its events.

import { centsToUsd, type Instrument, ticksToPrice } from '../../domain/instrument.ts';
import { type Fill, type Order, OrderStatus } from '../../engine/types.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { Contract } from '../../service/contracts.ts';

export const priceOrNull = (inst: Instrument, ticks: number | null) => (ticks === null ? null : ticksToPrice(inst, ticks));

/** Order/search shape. `status` is the engine's; searchOpen passes `open` to report working orders as 1. */
export function presentOrder(accountId: number, contract: Contract, o: Order, open = false) {
  const inst = contract.instrument;
  const filled = o.status === OrderStatus.Filled;
  return {
    id: o.id,
    accountId,
    contractId: contract.id,
    symbolId: contract.symbolId,
    creationTimestamp: isoFromEpochS(o.createdS),
    updateTimestamp: filled && o.updatedS !== null ? isoFromEpochS(o.updatedS) : null,
    status: open ? OrderStatus.Open : o.status,
    type: o.type,
    side: o.side,
    size: o.size,
    limitPrice: priceOrNull(inst, o.limitTicks),
    stopPrice: priceOrNull(inst, o.stopTicks),
    fillVolume: open ? 0 : o.fillVolume,
    filledPrice: filled ? priceOrNull(inst, o.filledPriceTicks) : null,
    customTag: null,
  };
}

export function presentTrade(accountId: number, contract: Contract, f: Fill, index: number) {
  return {
    id: index + 1,
    accountId,
    contractId: contract.id,
    creationTimestamp: isoFromEpochS(f.timeS),
    price: ticksToPrice(contract.instrument, f.priceTicks),
    profitAndLoss: null,
    fees: centsToUsd(f.feeCents),
    side: f.side,
    size: f.size,
    voided: false,
    orderId: f.orderId,
  };
}


// ---- the live profile (docs/gateway-profile.md) ----

/** The live gateway's status: a working order is 1 (Open) in every listing; the others are the engine's. */
function liveStatus(o: Order): 1 | 2 | 3 | 4 | 5 | 8 {
  return o.status === OrderStatus.Pending ? OrderStatus.Open : (o.status as 1 | 2 | 3 | 4 | 5 | 8);
}

/** The live gateway's order: `updateTimestamp` always set (the last change, else the creation), `customTag` echoed. */
export function presentLiveOrder(accountId: number, contract: Contract, o: Order) {
  const tag = (o as { customTag?: string | null }).customTag;
  return {
    ...presentOrder(accountId, contract, o),
    updateTimestamp: isoFromEpochS(o.updatedS ?? o.createdS),
    status: liveStatus(o),
    type: o.type as 1 | 2 | 3 | 4 | 5 | 6 | 7,
    customTag: tag ?? null,
  };
}

/** The live gateway's trade: the fill's own id, the P&L of the contracts it closed (null when it closed none). */
export function presentLiveTrade(accountId: number, contract: Contract, f: Fill, closing: boolean) {
  return { ...presentTrade(accountId, contract, f, 0), id: f.id, profitAndLoss: closing ? centsToUsd(f.realizedPnlCents) : null };
}
