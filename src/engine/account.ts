// The session account's money rules, as pure functions over cents and contracts.
//
// Model:
// - Balance moves only on fills: + realized P&L of the reducing part, − fees (feePerSideCents × size
//   on every fill, both sides). Equity = balance + unrealized P&L at the last price.
// - Margin used = |net position| × the instrument's day-trade margin per contract.
// - Pre-trade checks run when an order is placed, never when a resting order fills (a fill is never
//   rejected). They use the worst-case net position: the current position plus every working entry
//   order on one side plus the new order, taking the larger of the all-buys and all-sells outcomes.
//   Bracket legs are left out: they only ever reduce the position they protect. An order that only
//   reduces the position, or does not raise the worst case, is always accepted, so closing stays
//   possible when equity no longer covers the margin.
// - Margin check: worst-case contracts × day margin must not exceed equity (equivalently, the added
//   contracts must fit in equity − margin used).
// - Position limit (prop-firm maximum size): worst-case contracts must not exceed maxPositionQty, a
//   budget given by the caller in this instrument's own contracts (the caller converts micros 10:1).

export interface AccountSnapshot {
  readonly balanceCents: number;
  readonly equityCents: number;
  readonly unrealizedPnlCents: number;
  readonly marginUsedCents: number;
  /** Signed net contracts. */
  readonly positionQty: number;
  /** Average entry price in possibly fractional ticks; 0 when flat. */
  readonly avgPriceTicks: number;
  /** Number of open positions: contracts with a position (0 or 1 unless several contracts share the account). */
  readonly openPositions: number;
  readonly pendingOrders: number;
}

export interface RiskCheck {
  readonly symbol: string;
  readonly dayMarginCents: number;
  readonly maxPositionQty: number | null;
  readonly positionQty: number;
  readonly equityCents: number;
  /** Contracts of working non-leg buy orders and sell orders, excluding the new order. */
  readonly workingBuyQty: number;
  readonly workingSellQty: number;
  /** The new order: +size for a buy, −size for a sell. */
  readonly signedSize: number;
  /** Said after the position limit's figure: what else of the account holds part of it (several contracts). */
  readonly limitNote?: string;
}

/** The largest |position| reachable if every working entry on one side and the new order filled. */
export function worstCaseQty(r: RiskCheck): number {
  const buy = r.signedSize > 0 ? r.signedSize : 0;
  const sell = r.signedSize < 0 ? -r.signedSize : 0;
  const allBuys = r.positionQty + r.workingBuyQty + buy;
  const allSells = r.positionQty - r.workingSellQty - sell;
  return Math.max(Math.abs(allBuys), Math.abs(allSells));
}

/**
 * The rejection reason for a new order, or null when it may be placed. An order that only reduces the
 * position, or that does not raise the worst case above both |position| and the worst case without it,
 * adds no exposure and is accepted. Otherwise the position limit is checked first, then margin.
 */
export function rejectionReason(r: RiskCheck): string | null {
  const reduces = r.signedSize * r.positionQty < 0 && Math.abs(r.signedSize) <= Math.abs(r.positionQty);
  if (reduces) return null;
  const worst = worstCaseQty(r);
  if (worst <= Math.max(Math.abs(r.positionQty), worstCaseQty({ ...r, signedSize: 0 }))) return null;
  if (r.maxPositionQty !== null && worst > r.maxPositionQty) {
    return `Maximum position size exceeded: ${worst} ${r.symbol} contracts would be open, limit ${r.maxPositionQty}${r.limitNote ?? ''}`;
  }
  const needCents = worst * r.dayMarginCents;
  if (needCents > r.equityCents) {
    return (
      `Insufficient margin: ${worst} ${r.symbol} contracts need ${formatUsd(needCents)} day-trade margin, ` +
      `${formatUsd(Math.max(0, r.equityCents))} available`
    );
  }
  return null;
}

export function marginUsedCents(positionQty: number, dayMarginCents: number): number {
  return Math.abs(positionQty) * dayMarginCents;
}

/** `$3,000.00` / `-$12.50`, for rejection reasons. */
export function formatUsd(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  const dollars = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}
