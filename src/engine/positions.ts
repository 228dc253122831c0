// Netting of fills into one net position per contract, in integer ticks.
//
// Model:
// - One signed net quantity (long > 0, short < 0). A sell of 3 against a long of 1 closes the 1 and
//   opens a short of 2 at the fill price.
// - Open contracts are kept as FIFO lots (size, price). A reduction closes the oldest lots first, so
//   the realized P&L of every reduction is an exact integer number of ticks × contracts, which the
//   account turns into cents with the tick value (no rounding anywhere). This is the pairing US
//   futures statements use.
// - `costTicks` = Σ lot price × signed lot size (negative for shorts), an exact integer, so
//   unrealized ticks = mark × qty − costTicks for either sign.
// - The average entry price is derived: costTicks / qty, possibly fractional ticks (long 1 at 100 and
//   1 at 101 → 100.5). After a partial close it is the average of the lots still open (FIFO), so it
//   can move. The wire prints it as avgPriceTicks × tickSize.

export interface Lot {
  /** Contracts in this lot, always > 0. */
  readonly size: number;
  readonly priceTicks: number;
}

export interface Position {
  /** Signed net contracts. */
  readonly qty: number;
  /** Σ priceTicks × signed size over the open lots. */
  readonly costTicks: number;
  /** Open lots, oldest first, all on the side of `qty`. Empty when flat. */
  readonly lots: readonly Lot[];
}

export interface FillEffect {
  readonly position: Position;
  /** Contracts of the fill that reduced the previous position. */
  readonly closedQty: number;
  /** Contracts of the fill that opened or increased a position in the fill's direction. */
  readonly openedQty: number;
  /** Exact realized P&L of the closed part, ticks × contracts (gross of fees). */
  readonly realizedTicks: number;
}

export const FLAT: Position = Object.freeze({ qty: 0, costTicks: 0, lots: Object.freeze([]) as readonly Lot[] });

/**
 * Applies a fill of `size` contracts at `priceTicks` in direction `sign` (+1 buy, −1 sell) and
 * returns the new position with what the fill closed, opened and realized. Pure.
 */
export function applyFill(pos: Position, sign: 1 | -1, size: number, priceTicks: number): FillEffect {
  if (!Number.isInteger(size) || size <= 0) throw new Error(`fill size must be a positive integer, got ${size}`);
  if (!Number.isInteger(priceTicks)) throw new Error(`fill price must be integer ticks, got ${priceTicks}`);
  const lots = pos.lots.slice();
  let remaining = size;
  let realizedTicks = 0;
  // A fill against the position's side closes the oldest lots first.
  if (pos.qty !== 0 && Math.sign(pos.qty) !== sign) {
    const posSign = -sign;
    while (remaining > 0 && lots.length > 0) {
      const lot = lots[0];
      const take = Math.min(lot.size, remaining);
      realizedTicks += (priceTicks - lot.priceTicks) * take * posSign;
      remaining -= take;
      if (take === lot.size) lots.shift();
      else lots[0] = { size: lot.size - take, priceTicks: lot.priceTicks };
    }
  }
  const closedQty = size - remaining;
  if (remaining > 0) lots.push({ size: remaining, priceTicks });
  const qty = pos.qty + sign * size;
  const position: Position = { qty, costTicks: costOf(lots, Math.sign(qty)), lots };
  return { position, closedQty, openedQty: remaining, realizedTicks };
}

function costOf(lots: readonly Lot[], sign: number): number {
  let cost = 0;
  for (const lot of lots) cost += lot.priceTicks * lot.size;
  return cost * sign;
}

/** Rebuilds a position from its lots (oldest first) and the sign of the net quantity. */
export function positionFromLots(lots: readonly Lot[], sign: 1 | -1 | 0): Position {
  let qty = 0;
  for (const lot of lots) qty += lot.size;
  return { qty: qty * sign, costTicks: costOf(lots, sign), lots: lots.slice() };
}

/** Average entry price in (possibly fractional) ticks; 0 when flat. */
export function averagePriceTicks(pos: Position): number {
  return pos.qty === 0 ? 0 : pos.costTicks / pos.qty;
}

/** Unrealized P&L at `markTicks`, ticks × contracts. */
export function unrealizedTicks(pos: Position, markTicks: number): number {
  return pos.qty === 0 ? 0 : markTicks * pos.qty - pos.costTicks;
}
