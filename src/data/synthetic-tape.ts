// Market trades and depth made up from a bar, for the market hub (docs/realtime.md states these rules
// and README marks them synthetic): stored history has bars, not prints or a book.
//
// Trades: the bar's path as the matching engine walks it (engine/matching.ts rule 2: open, the nearer
// of high and low, the other, close; ties go high first), one print per distinct point, the bar's
// volume split evenly over them (the remainder one contract each on the last prints; a print left
// with no volume is not sent, and a bar without volume prints its close with none). A print is a buy (0) on an uptick,
// a sell (1) on a downtick, and keeps the previous print's side on an unchanged price; the first print
// is a buy when the bar closes at or above its open.
// Depth: after every bar a fresh book: Reset, the best bid and best ask of the quote, then
// DEPTH_LEVELS further levels a tick apart on each side; sizes grow away from the touch from a base
// of one contract per DEPTH_VOLUME_PER_CONTRACT of the bar's volume (at least one).

export const TradeSide = { Buy: 0, Sell: 1 } as const;
export type TradeSide = (typeof TradeSide)[keyof typeof TradeSide];

/** The gateway's DomType numbers used here. */
export const DomType = { Ask: 1, Bid: 2, BestAsk: 3, BestBid: 4, Reset: 6 } as const;
export type DomType = (typeof DomType)[keyof typeof DomType];

export interface SyntheticTrade {
  priceTicks: number;
  volume: number;
  side: TradeSide;
}

export interface SyntheticLevel {
  type: DomType;
  priceTicks: number;
  volume: number;
}

export const DEPTH_LEVELS = 4;
const DEPTH_VOLUME_PER_CONTRACT = 50;

export function syntheticTrades(open: number, high: number, low: number, close: number, volume: number): SyntheticTrade[] {
  const highFirst = high - open <= open - low;
  const path = highFirst ? [open, high, low, close] : [open, low, high, close];
  const points: number[] = [];
  for (const p of path) if (points.length === 0 || points[points.length - 1] !== p) points.push(p);
  const n = points.length;
  const each = Math.floor(volume / n);
  const extra = volume - each * n; // one more contract on each of the last `extra` prints
  const out: SyntheticTrade[] = [];
  let side: TradeSide = close >= open ? TradeSide.Buy : TradeSide.Sell;
  for (let i = 0; i < n; i++) {
    if (i > 0) side = points[i] > points[i - 1] ? TradeSide.Buy : points[i] < points[i - 1] ? TradeSide.Sell : side;
    const v = each + (i >= n - extra ? 1 : 0);
    if (v > 0) out.push({ priceTicks: points[i], volume: v, side });
  }
  // A bar without volume still printed its close.
  if (out.length === 0) out.push({ priceTicks: close, volume: 0, side });
  return out;
}

export function syntheticDepth(bidTicks: number, askTicks: number, barVolume: number): SyntheticLevel[] {
  const base = Math.max(1, Math.round(barVolume / DEPTH_VOLUME_PER_CONTRACT));
  const out: SyntheticLevel[] = [
    { type: DomType.Reset, priceTicks: 0, volume: 0 },
    { type: DomType.BestBid, priceTicks: bidTicks, volume: base },
    { type: DomType.BestAsk, priceTicks: askTicks, volume: base },
  ];
  for (let k = 1; k <= DEPTH_LEVELS; k++) {
    out.push({ type: DomType.Bid, priceTicks: bidTicks - k, volume: base * (k + 1) });
    out.push({ type: DomType.Ask, priceTicks: askTicks + k, volume: base * (k + 1) });
  }
  return out;
}
