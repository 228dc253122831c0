// The chart's trading and view rules as pure functions (no DOM, no Preact, so test/console runs
// them): which order a modified click asks for, the widths a session can be viewed at, and what a
// position's line says. What a drag sends is trailing.ts.

import { bucketStart, PRESET_TIMEFRAMES } from '../../../domain/timeframe.ts';
import { openPnl } from './live.ts';
import type { Position } from './wire.ts';

/** An order as the ticket makes it (ticket-model.ts). */
export interface TicketOrder {
  side: 0 | 1;
  type: number;
  size: number;
  limitPrice: number | null;
  stopPrice: number | null;
  slTicks: number | null;
  tpTicks: number | null;
  /** A Trailing stop's (type 5) trail in ticks; absent for the other types. */
  trailTicks?: number | null;
  /** The stop-loss bracket is a trailing stop whose trail is slTicks. */
  slTrailing?: boolean;
}

/** What a click on the chart carries that the rules read. */
export interface PriceClick {
  price: number;
  shift: boolean;
  alt: boolean;
}

/** `price` on the tick grid, printed exactly (ticks / ticks-per-point is correctly rounded, as the server's prices). */
export function onTick(price: number, tickSize: number): number {
  return Math.round(price / tickSize) / Math.round(1 / tickSize);
}

/**
 * The order a click asks for: Shift, a limit (a buy under the last price, a sell over it); Alt, a
 * stop (a buy over, a sell under); the ticket's size and brackets. Null without a modifier; a text
 * when none can be placed there.
 */
export function clickOrder(c: PriceClick, lastPrice: number | null, tickSize: number, ticket: Pick<TicketOrder, 'size' | 'slTicks' | 'tpTicks' | 'slTrailing'>): TicketOrder | string | null {
  if (!c.shift && !c.alt) return null;
  if (lastPrice === null) return 'No price yet: step a bar first';
  const price = onTick(c.price, tickSize);
  if (price <= 0) return 'Prices must be greater than 0';
  if (Math.abs(price - lastPrice) < tickSize / 2) return 'That is the last price: use a market order';
  const above = price > lastPrice;
  const limit = c.shift;
  const side: 0 | 1 = limit === above ? 1 : 0;
  const brackets = { slTicks: ticket.slTicks, tpTicks: ticket.tpTicks, ...(ticket.slTrailing ? { slTrailing: true } : {}) };
  return { side, type: limit ? 1 : 4, size: ticket.size, limitPrice: limit ? price : null, stopPrice: limit ? null : price, ...brackets };
}

/** The widths a session's bars can be shown at: its own, then every wider preset it divides evenly. */
export function viewWidths(sessionTf: string): string[] {
  const own = PRESET_TIMEFRAMES.find((t) => t.text === sessionTf);
  if (!own) return [sessionTf];
  return [own.text, ...PRESET_TIMEFRAMES.filter((t) => t.widthS > own.widthS && t.widthS % own.widthS === 0).map((t) => t.text)];
}

/** The start of the bucket of width `tf` holding a bar's open (the server's buckets). */
export function bucketOfWidth(tf: string): ((timeS: number) => number) | null {
  const t = PRESET_TIMEFRAMES.find((p) => p.text === tf);
  return t ? (s) => bucketStart(t, s) : null;
}

export interface PositionPricing {
  tickSize: number;
  tickValue: number;
  lastPrice: number | null;
  fmt: { price: (p: number | null) => string };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `LONG 2 @ 20100.25 · +$125.00`: side, size, average price and open P&L at the last price. */
export function positionTitle(p: Position, at: PositionPricing): string {
  const head = `${p.type === 1 ? 'LONG' : 'SHORT'} ${p.size} @ ${at.fmt.price(p.averagePrice)}`;
  if (at.lastPrice === null) return head;
  const pnl = openPnl([p], at.lastPrice, at);
  return `${head} · ${pnl > 0 ? '+' : pnl < 0 ? '−' : ''}${usd.format(Math.abs(pnl))}`;
}

/** What a drag of a working order to a new price would do at once, before it is sent. */
export type DragHazard = { refuse: string } | { ask: string } | null;

/**
 * A chip dragged through the market, as NinjaTrader's chart trader treats it: a stop (a stop-loss
 * leg too) on the wrong side of the last price would trigger at once, and is refused; a limit that
 * would become marketable fills at once, and is asked about first (a trader may mean to take the
 * market). Other moves, and any move before there is a price, are sent as they are.
 */
export function dragHazard(o: { side: number; type: number }, price: number, lastPrice: number | null, fmt: (p: number) => string): DragHazard {
  if (lastPrice === null) return null;
  const buy = o.side === 0;
  const at = `${fmt(price)}`;
  const last = `the last price (${fmt(lastPrice)})`;
  if (o.type === 4 || o.type === 5) {
    const wrong = buy ? price <= lastPrice : price >= lastPrice;
    if (!wrong) return null;
    return { refuse: `a ${buy ? 'buy' : 'sell'} stop must be ${buy ? 'above' : 'below'} ${last}: at ${at} it would trigger at once` };
  }
  if (o.type === 1) {
    const marketable = buy ? price >= lastPrice : price <= lastPrice;
    if (!marketable) return null;
    return { ask: `A ${buy ? 'buy' : 'sell'} limit at ${at} is ${buy ? 'at or above' : 'at or below'} ${last}: it fills at once, as a market order would.` };
  }
  return null;
}

/** A fill as the markers read it. */
export interface MarkedFill {
  creationTimestamp: string;
  side: number;
  size: number;
}

/**
 * One marker per bar and side: the fills of one bar (a bracket's entry and exit, a scale-in) as one
 * `B 1+2` instead of a tower of arrows over the legend. `barOf` is the open of the bar holding a time
 * (epoch seconds), or negative when none is drawn; such fills are left to their own time.
 */
export function fillMarkers(fills: readonly MarkedFill[], barOf: (timeS: number) => number): { time: string; side: 'buy' | 'sell'; text: string }[] {
  const groups = new Map<string, { time: string; side: 'buy' | 'sell'; sizes: number[] }>();
  for (const f of fills) {
    const s = Math.floor(Date.parse(f.creationTimestamp) / 1000);
    const bar = barOf(s);
    const side = f.side === 0 ? 'buy' : 'sell';
    const key = `${bar < 0 ? `t${s}` : bar}|${side}`;
    const g = groups.get(key);
    if (g) g.sizes.push(f.size);
    else groups.set(key, { time: f.creationTimestamp, side, sizes: [f.size] });
  }
  return [...groups.values()].map((g) => ({ time: g.time, side: g.side, text: `${g.side === 'buy' ? 'B' : 'S'} ${g.sizes.join('+')}` }));
}
