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

