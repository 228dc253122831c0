// Domain → wire shapes of the earlier family for accounts, contracts and payouts. Wire names live
// here and in codes.ts only (trading and replay shapes: present-trading.ts). Shapes both families
// share live in ../shared/present-common.ts.

import type { LegacyContract } from '../../domain/contract-id.ts';
import { presentAccount, presentContractHead, presentEligibility, presentPayout } from '../shared/present-common.ts';

export { presentAccount, presentEligibility, presentPayout };

/** `name` is the short symbol (`CL`); `contractSize` the multiplier, USD per 1.0 of price. */
export function presentContract(c: LegacyContract) {
  return { ...presentContractHead(c.id, c.instrument.symbol, c.instrument), contractSize: c.instrument.contractSize };
}

