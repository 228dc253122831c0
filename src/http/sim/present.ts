// Domain → wire shapes of the current family. Wire names live here and in codes.ts only.

import { centsToUsd } from '../../domain/instrument.ts';
import type { AccountView } from '../../service/accounts.ts';
import type { Contract } from '../../service/contracts.ts';

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

export function presentContract(c: Contract) {
  const i = c.instrument;
  return {
    id: c.id,
    name: c.name,
    description: i.description,
    tickSize: i.tickSize,
    tickValue: centsToUsd(i.tickValueCents),
    activeContract: true,
    symbolId: i.symbol,
  };
}
