// What the desk remembers of its trailing stops, and what a drag of a chip asks Order/modify for
// (pure: no DOM, no Preact, so test/console runs them).
//
// The console reads orders in the spec's view, where a trailing stop is a Stop at its current stop
// price (engine/spec-view.ts): the desk cannot tell one from the listing. It knows the ones it placed,
// as it knows the brackets it planned (this browser, per session, in the session's description):
// - a Trailing stop from the ticket: its id is Order/place's answer, its trail the ticket's ticks;
// - the stop-loss of an entry sent with a trailing stop-loss bracket: spawned when the entry fills,
//   with the fill's time as its creation time and an id after the entry's (engine.ts, "Brackets").
//   It is the lowest-id working Stop on the other side, created at the entry's fill time, that the
//   desk has not already taken for another entry. Two entries of one side, bracketed and filled in
//   the same second, could be told apart wrongly; the server then refuses the drag with a clear
//   message (a Stop has no trailPrice, a trailing stop's stopPrice follows the price), never moves
//   the wrong order.
// Trailing stops a bot or another browser placed read as plain stops here; the same refusal covers
// a drag of one.
//
// A drag moves an order in place with Order/modify (its id, its legs' link and the engine's time
// priority rules kept): the price its chip sits on (a stop's stop, else the limit: a stop-limit's chip
// is on its limit). A trailing stop's stop follows the price and cannot be set, so its drag changes
// the trail by the distance dragged: the stop is the extreme less the trail (a sell; a buy adds it),
// so moving it by d ticks is a trail d ticks shorter or longer.

import type { Book } from './live.ts';
import type { Order } from './wire.ts';

export interface TrailMemory {
  /** Working orders known to be trailing stops → their trail in ticks. */
  orders: Record<string, number>;
  /** Entries sent with a trailing stop-loss → its trail in ticks, until their stop-loss leg is found. */
  entries: Record<string, number>;
}

export const NO_TRAILS: TrailMemory = { orders: {}, entries: {} };

/** A spec-view Stop: how a trailing stop is listed. */
const STOP = 4;

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

/**
 * The stop-loss legs of remembered entries that the book now shows (see the header): each found leg
 * joins `orders` with its entry's trail, and its entry leaves `entries`. The same memory when nothing
 * was found.
 */
export function foundLegs(m: TrailMemory, book: Book): TrailMemory {
  let next = m;
  for (const [entryKey, trailTicks] of Object.entries(m.entries)) {
    const entryId = Number(entryKey);
    const fill = book.fills.find((t) => t.orderId === entryId);
    if (!fill) continue;
    const leg = book.orders
      .filter((o) => o.type === STOP && o.side !== fill.side && o.id > entryId && o.creationTimestamp === fill.creationTimestamp && next.orders[String(o.id)] === undefined)
      .reduce<Order | null>((low, o) => (low === null || o.id < low.id ? o : low), null);
    if (!leg) continue;
    const { [entryKey]: _, ...entries } = next.entries;
    next = { orders: { ...next.orders, [String(leg.id)]: trailTicks }, entries };
  }
  return next;
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
