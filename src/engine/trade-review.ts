// What the journal teaches about one round trip (results.ts `TradeRecord`): its initial stop and
// R-multiple, its maximum adverse and favourable excursions, its time in trade. Pure: orders and
// bars in, ticks and cents out.
//
// The model's assumptions (docs/decisions.md, "A journal that teaches"):
// - The initial stop is the stop order on the trade's exit side (a sell stop for a long) that was
//   working when the trade opened: placed at or before the entry and not filled, cancelled or
//   expired before it. Of several, the nearest to the average entry (the one that would have taken
//   the trade out first). A bracket leg's price is its entry's (anchor ∓ stop-loss distance, which
//   never changes, so a leg dragged later still reads as it was); a trailing stop placed in the
//   trade's opening second starts from the entry (entry ∓ trail); any other stop's price is the one
//   the order table keeps (its last). No stop, or one at or beyond the entry: no risk, so no R.
// - R = net P&L (fees included) / initial risk, where the risk is the distance from the average
//   entry to the stop × contracts × tick value: a trade stopped exactly at its stop reads a little
//   below −1R, by its fees, as TraderSync and most journals count.
// - Excursions are read on the instrument's stored bars (its finest resolution: fills are decided on
//   them, and a fill is stamped with the open time of the bar it filled on, a market fill with the
//   open of the bar after the last one played): the bars opening in [entry, exit) count whole, but a
//   working order's entry counts its bar from the entry's first touch on the bar's path (matching.ts
//   rule 2), and a working order's exit counts its bar up to the exit's first touch; a market exit's
//   bar is after it. The entry and exit prices count too. MAE is how far the price went against the
//   average entry (≥ 0), MFE how far for it (≥ 0), in ticks (fractional when the entry was built at
//   several prices), and in cents for the trade's contracts.

import { type BarColumns, lowerBound } from '../data/bar-columns.ts';
import { anchorTicks, legOrderFields } from './order-rules.ts';
import type { TradeRecord } from './results.ts';
import { type Order, OrderSide, OrderStatus, OrderType } from './types.ts';

export interface TradeReview {
  /** The initial stop in ticks, null when none was working. */
  initialStopTicks: number | null;
  /** Cents at risk to the initial stop; null when there is no stop or it stood at or beyond the entry. */
  riskCents: number | null;
  /** Net P&L / risk, two decimals; null without a risk. */
  rMultiple: number | null;
  /** Ticks from the average entry, two decimals (≥ 0). */
  maeTicks: number;
  mfeTicks: number;
  /** The same excursions in cents for the trade's contracts (≥ 0). */
  maeCents: number;
  mfeCents: number;
  durationS: number;
}

/** The orders a trade's stop may be among: stops of either side in id (placement) order, with the entries their legs came from. */
export interface StopOrders {
  stops: readonly Order[];
  parents: ReadonlyMap<number, Order>;
}

const ENDED: ReadonlySet<number> = new Set([OrderStatus.Filled, OrderStatus.Canceled, OrderStatus.Expired, OrderStatus.Rejected]);

/** Whether an order is a stop (its `stopTicks` a trigger that takes a position out). */
export function isStopType(type: OrderType): boolean {
  return type === OrderType.Stop || type === OrderType.TrailingStop || type === OrderType.StopLimit;
}

/**
 * The stop price a leg was given by its entry; a trailing stop placed in the trade's opening second,
 * the entry ∓ its trail (it starts from the last price, the entry's: its kept price has ratcheted
 * since); the order's kept price for any other stop.
 */
function initialPriceTicks(o: Order, parents: ReadonlyMap<number, Order>, t: TradeRecord): number | null {
  if (o.parentId === null && o.type === OrderType.TrailingStop && o.trailTicks !== null && o.createdS === t.entryTimeS) {
    return t.entryValueTicks / t.entryQty - t.direction * o.trailTicks;
  }
  const parent = o.parentId === null ? undefined : parents.get(o.parentId);
  if (parent && parent.slTicks !== null && parent.filledPriceTicks !== null) {
    // The legs' anchor (engine-legs.ts spawnLegs): a market entry's fill, else its own price.
    const anchor = parent.type === OrderType.Market ? parent.filledPriceTicks : anchorTicks(parent.type, parent.limitTicks, parent.stopTicks);
    if (anchor !== null && anchor !== undefined) {
      const leg = legOrderFields(parent, anchor, o.size).find((f) => f.stopTicks !== null);
      if (leg) return leg.stopTicks;
    }
  }
  return o.stopTicks;
}

/** The initial stop of `t` in ticks (see the header), or null. */
export function initialStopTicks(t: TradeRecord, orders: StopOrders): number | null {
  const exitSide = t.direction === 1 ? OrderSide.Sell : OrderSide.Buy;
  const entry = t.entryValueTicks / t.entryQty;
  let best: number | null = null;
  for (const o of orders.stops) {
    // Read in id order, and ids follow placement time: every later stop was placed after the entry.
    if (o.createdS > t.entryTimeS) break;
    if (o.side !== exitSide || !isStopType(o.type)) continue;
    if (ENDED.has(o.status) && o.updatedS !== null && o.updatedS < t.entryTimeS) continue;
    const p = initialPriceTicks(o, orders.parents, t);
    if (p === null) continue;
    if (best === null || Math.abs(entry - p) < Math.abs(entry - best)) best = p;
  }
  return best;
}

/** How a trade's entry and exit filled: on a walked bar (a working order) or before it (a market order). */
export interface TradeFills {
  entryWalked: boolean;
  exitWalked: boolean;
}

interface Span {
  low: number;
  high: number;
}

function widen(s: Span, a: number, b: number): void {
  s.low = Math.min(s.low, a, b);
  s.high = Math.max(s.high, a, b);
}

const between = (x: number, a: number, b: number) => Math.min(a, b) <= x && x <= Math.max(a, b);

/**
 * The prices of one bar's path (matching.ts rule 2: open, the nearer extreme, the other, close) from
 * the first touch of `from` (null: the open) to the first touch of `to` after it (null: the close);
 * null when `from` is never touched.
 */
export function pathSpan(o: number, h: number, l: number, c: number, long: boolean, from: number | null, to: number | null): Span | null {
  const up = h - o;
  const down = o - l;
  const highFirst = up < down || (up === down && !long);
  const pts = highFirst ? [o, h, l, c] : [o, l, h, c];
  let span: Span | null = from === null || from === o ? { low: o, high: o } : null;
  if (span !== null && to !== null && to === o) return span;
  for (let k = 0; k < 3; k++) {
    let a = pts[k];
    const b = pts[k + 1];
    if (span === null) {
      if (!between(from as number, a, b)) continue;
      a = from as number;
      span = { low: a, high: a };
    }
    if (to !== null && between(to, a, b)) {
      widen(span, a, to);
      return span;
    }
    widen(span, a, b);
  }
  return span;
}

/**
 * The lowest and highest prices of the trade on the stored bars (`days`: their columns, any order):
 * the bars opening in [entry, exit) whole, except a walked entry's bar from the entry's first touch;
 * a walked exit's bar up to the exit's first touch (a market exit filled before its bar); and the
 * entry and exit prices themselves.
 */
export function tradeSpan(t: TradeRecord, days: readonly BarColumns[], fills: TradeFills): Span {
  const entry = t.entryValueTicks / t.entryQty;
  const exit = t.exitValueTicks / t.entryQty;
  const span = { low: Math.min(entry, exit), high: Math.max(entry, exit) };
  const long = t.direction === 1;
  for (const b of days) {
    for (let i = lowerBound(b.time, b.length, t.entryTimeS); i < b.length && b.time[i] <= t.exitTimeS; i++) {
      const atEntry = fills.entryWalked && b.time[i] === t.entryTimeS;
      const atExit = b.time[i] === t.exitTimeS;
      if (atExit && !fills.exitWalked) continue;
      if (!atEntry && !atExit) {
        widen(span, b.low[i], b.high[i]);
        continue;
      }
      const o = b.open[i], h = b.high[i], l = b.low[i], c = b.close[i];
      const to = atExit ? exit : null;
      // An average entry of several fills may lie off the path: the bar then counts from its open.
      const part = pathSpan(o, h, l, c, long, atEntry ? entry : null, to) ?? pathSpan(o, h, l, c, long, null, to);
      if (part) widen(span, part.low, part.high);
    }
  }
  return span;
}

/** The review of one trade from its initial stop and the stored bars it spanned (`days`: their columns, any order; none: no excursions beyond its own prices). */
export function reviewTrade(t: TradeRecord, stopTicks: number | null, days: readonly BarColumns[], fills: TradeFills, tickValueCents: number): TradeReview {
  const entry = t.entryValueTicks / t.entryQty;
  const { low, high } = tradeSpan(t, days, fills);
  const long = t.direction === 1;
  const mae = long ? entry - low : high - entry;
  const mfe = long ? high - entry : entry - low;
  const riskTicks = stopTicks === null ? 0 : long ? entry - stopTicks : stopTicks - entry;
  const riskCents = riskTicks > 0 ? Math.round(riskTicks * t.entryQty * tickValueCents) : null;
  return {
    initialStopTicks: stopTicks,
    riskCents,
    rMultiple: riskCents === null ? null : round2(t.pnlCents / riskCents),
    maeTicks: round2(mae),
    mfeTicks: round2(mfe),
    maeCents: Math.round(mae * t.entryQty * tickValueCents),
    mfeCents: Math.round(mfe * t.entryQty * tickValueCents),
    durationS: t.exitTimeS - t.entryTimeS,
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
