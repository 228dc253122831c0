// Size by dollar risk (pure: no DOM, so test/console runs it): the contracts a risk amount buys at a
// stop distance, as NinjaTrader's and Tradovate's risk calculators size a trade:
// floor(risk / (stop ticks × tick value)), never rounded up to one (a risk below one contract's loss
// at the stop sizes nothing, said so), and capped by the plan's position limit when the session
// trades for a challenge (the limit in this instrument's contracts: a micro counts 1/10 of a mini, so
// a plan of 5 minis allows 50 micros, as the server's maxPositionQtyFor counts them).

/** Micros per mini in a plan's contract limit (the server's MICROS_PER_MINI). */
export const MICROS_PER_MINI = 10;

export interface RiskSizing {
  /** The contracts to trade; null when the risk sizes nothing (see `note`). */
  size: number | null;
  /** One contract's loss at the stop, in dollars (null without a stop distance). */
  perContract: number | null;
  /** Why the size is not the plain quotient (capped, below one contract, no stop), or null. */
  note: string | null;
}

export interface RiskInput {
  /** The risk in dollars (the ticket's field; null: blank). */
  riskUsd: number | null;
  /** The stop's distance from the entry in ticks (null: no stop set). */
  stopTicks: number | null;
  /** One tick's value for one contract, in dollars. */
  tickValue: number;
  /** The plan's limit in minis (null: no plan limit). */
  maxContracts: number | null;
  isMicro: boolean;
}

const usd = (v: number) => `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The plan's position limit in this instrument's own contracts (null: none). */
export function contractLimit(maxContracts: number | null, isMicro: boolean): number | null {
  if (maxContracts === null) return null;
  return isMicro ? maxContracts * MICROS_PER_MINI : maxContracts;
}

/** The size a risk amount buys at a stop distance (see the header). */
export function riskSize(r: RiskInput): RiskSizing {
  if (r.riskUsd === null || !Number.isFinite(r.riskUsd) || r.riskUsd <= 0) return { size: null, perContract: null, note: 'Enter the dollars to risk' };
  if (r.stopTicks === null || !Number.isFinite(r.stopTicks) || r.stopTicks <= 0) return { size: null, perContract: null, note: 'Set a stop to size by risk: a stop-loss in ticks, or a stop order’s price' };
  // Cents, in integers: a $0.50 tick times 37 ticks is exactly $18.50, with no float residue.
  const perContractCents = Math.round(r.stopTicks * r.tickValue * 100);
  const riskCents = Math.round(r.riskUsd * 100);
  const perContract = perContractCents / 100;
  const quotient = Math.floor(riskCents / perContractCents);
  if (quotient < 1) return { size: null, perContract, note: `${usd(r.riskUsd)} is below one contract’s risk of ${usd(perContract)} at ${r.stopTicks} ticks` };
  const limit = contractLimit(r.maxContracts, r.isMicro);
  if (limit !== null && quotient > limit) {
    const unit = r.isMicro ? `${limit} micros (${r.maxContracts} minis)` : `${limit} contracts`;
    return { size: limit, perContract, note: `Capped at the plan’s limit of ${unit}: the risk would buy ${quotient}` };
  }
  return { size: quotient, perContract, note: null };
}

/** A stop order's distance from the entry in ticks (the last price for a stop; the limit for a stop-limit's entry). */
export function stopDistanceTicks(entry: number | null, stop: number | null, tickSize: number): number | null {
  if (entry === null || stop === null || !Number.isFinite(entry) || !Number.isFinite(stop)) return null;
  const ticks = Math.round(Math.abs(entry - stop) / tickSize);
  return ticks > 0 ? ticks : null;
}
