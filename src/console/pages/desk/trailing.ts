// What the desk remembers of its trailing stops, and what a drag of a chip asks Order/modify for
// (pure: no DOM, no Preact, so test/console runs them).
//
// The console reads orders in the spec's view, where a trailing stop is a Stop at its current stop
// price (engine/spec-view.ts): the listing cannot tell one from a stop. The server can: GET
// /api/auth/replay-sessions/:id/trailing-stops lists the session's working trailing stops with their
// trail, whoever placed them (this desk, another browser, a bot) and a trailing stop-loss leg once its
// entry filled. The desk reads it when its working stops change (trailing-sync.ts) and takes its answer
// as the whole truth about `orders` (fromServer). What the desk placed itself it knows at once:
// - a Trailing stop from the ticket: its id is Order/place's answer, its trail the ticket's ticks;
// - an entry sent with a trailing stop-loss bracket: its planned stop-loss line says it trails until
//   it fills (then its leg is a working trailing stop, which the server lists).
//
// A drag moves an order in place with Order/modify (its id, its legs' link and the engine's time
// priority rules kept): the price its chip sits on (a stop's stop, else the limit: a stop-limit's chip
// is on its limit). A trailing stop's stop follows the price and cannot be set, so its drag changes
// the trail by the distance dragged: the stop is the extreme less the trail (a sell; a buy adds it),
// so moving it by d ticks is a trail d ticks shorter or longer.

import type { Order } from './wire.ts';

export interface TrailMemory {
  /** Working orders known to be trailing stops → their trail in ticks. */
  orders: Record<string, number>;
  /** Entries this desk sent with a trailing stop-loss → its trail in ticks (their planned stop-loss line says it trails). */
  entries: Record<string, number>;
}

export const NO_TRAILS: TrailMemory = { orders: {}, entries: {} };

/** A spec-view Stop: how a trailing stop is listed. */
export const STOP = 4;

/** The memory after Order/place answered `orderId` for an order of this shape. */
export function placedTrailing(m: TrailMemory, orderId: number, o: { type: number; trailTicks?: number | null; slTicks: number | null; slTrailing?: boolean }): TrailMemory {
  const id = String(orderId);
  if (o.type === 5 && o.trailTicks) return { ...m, orders: { ...m.orders, [id]: o.trailTicks } };
  if (o.slTrailing && o.slTicks) return { ...m, entries: { ...m.entries, [id]: o.slTicks } };
  return m;
}

/** The memory with a trail changed by a modify. */
export function retrailed(m: TrailMemory, orderId: number, trailTicks: number): TrailMemory {
  return { ...m, orders: { ...m.orders, [String(orderId)]: trailTicks } };
}

/** A working trailing stop as the server lists it (GET replay-sessions/:id/trailing-stops). */
export interface ServerTrail {
  orderId: number;
  trailTicks: number;
}

/**
 * The memory with `orders` as the server states them (every working trailing stop of the session,
 * none else); the same memory when it already says so.
 */
export function fromServer(m: TrailMemory, rows: readonly ServerTrail[]): TrailMemory {
  const orders: Record<string, number> = {};
  for (const r of rows) orders[String(r.orderId)] = r.trailTicks;
  const keys = Object.keys(orders);
  if (keys.length === Object.keys(m.orders).length && keys.every((k) => m.orders[k] === orders[k])) return m;
  return { ...m, orders };
}

/** What a drag asks Order/modify to change. */
export type DragChange = { limitPrice: number } | { stopPrice: number } | { trailPrice: number };

/**
 * The change that puts `o`'s chip at `price` (on the tick grid): its stop price, its limit price, or,
 * for a known trailing stop (`trailTicks`), its trail; a text when the drag cannot be made.
 */
export function dragChange(o: Order, price: number, trailTicks: number | undefined, at: { tickSize: number; fmt: (p: number) => string }): DragChange | string {
  if (o.type !== STOP) return { limitPrice: price };
  if (trailTicks === undefined) return { stopPrice: price };
  // Every tick size is 1/k: ticks / k prints the exact decimal, as the server's prices do.
  const perPoint = Math.round(1 / at.tickSize);
  const stopTicks = Math.round((o.stopPrice as number) * perPoint);
  // A sell's stop is below its extreme (extreme − trail): a stop moved up shortens the trail.
  const movedTicks = Math.round(price * perPoint) - stopTicks;
  const trail = o.side === 1 ? trailTicks - movedTicks : trailTicks + movedTicks;
  if (trail >= 1) return { trailPrice: trail / perPoint };
  const extreme = (o.side === 1 ? stopTicks + trailTicks : stopTicks - trailTicks) / perPoint;
  const [word, way] = o.side === 1 ? ['high', 'below'] : ['low', 'above'];
  return `this trailing stop trails the ${word} of ${at.fmt(extreme)} by ${trailTicks} ticks: drag it ${way} that price`;
}

/** The trail in ticks a drag change set, when it set one. */
export function trailTicksOf(change: DragChange, tickSize: number): number | null {
  return 'trailPrice' in change ? Math.round(change.trailPrice / tickSize) : null;
}
