// The chart's trading and view rules as pure functions (no DOM, no Preact, so test/console runs
// them): which order a modified click asks for, the order a drag sends, the widths a session can be
// viewed at, and what a position's line says.

import { bucketStart, PRESET_TIMEFRAMES } from '../../../domain/timeframe.ts';
import { openPnl } from './live.ts';
import type { Order, Position } from './wire.ts';

/** An order as the ticket makes it (ticket-model.ts). */
export interface TicketOrder {
  side: 0 | 1;
  type: number;
  size: number;
  limitPrice: number | null;
  stopPrice: number | null;
  slTicks: number | null;
  tpTicks: number | null;
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
export function clickOrder(c: PriceClick, lastPrice: number | null, tickSize: number, ticket: Pick<TicketOrder, 'size' | 'slTicks' | 'tpTicks'>): TicketOrder | string | null {
  if (!c.shift && !c.alt) return null;
  if (lastPrice === null) return 'No price yet: step a bar first';
  const price = onTick(c.price, tickSize);
  if (price <= 0) return 'Prices must be greater than 0';
  if (Math.abs(price - lastPrice) < tickSize / 2) return 'That is the last price: use a market order';
  const above = price > lastPrice;
  const limit = c.shift;
  const side: 0 | 1 = limit === above ? 1 : 0;
  return { side, type: limit ? 1 : 4, size: ticket.size, limitPrice: limit ? price : null, stopPrice: limit ? null : price, slTicks: ticket.slTicks, tpTicks: ticket.tpTicks };
}

/** The same order at another price: the line its chip sits on moves (a stop's stop, else the limit). */
export function movedOrder(o: Order, price: number, brackets: { sl: number | null; tp: number | null } | undefined): TicketOrder {
  const moveStop = o.type === 4;
  return {
    side: o.side === 0 ? 0 : 1,
    type: o.type,
    size: o.size,
    limitPrice: moveStop ? o.limitPrice : price,
    stopPrice: moveStop ? price : o.stopPrice,
    slTicks: brackets?.sl ?? null,
    tpTicks: brackets?.tp ?? null,
  };
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

/** Whether an order works against a position on its contract (a stop-loss or a target, say). */
export function protects(o: Order, positions: readonly Position[]): boolean {
  return positions.some((p) => p.contractId === o.contractId && (p.type === 1 ? o.side === 1 : o.side === 0));
}

/**
 * The moved protective orders to cancel now: those still working whose contract has no position left.
 * A moved bracket leg is a plain order (no OCO), so the desk cancels it as the engine cancels legs.
 */
export function orphans(moved: readonly number[], orders: readonly Order[], positions: readonly Position[]): Order[] {
  return orders.filter((o) => moved.includes(o.id) && !positions.some((p) => p.contractId === o.contractId));
}
