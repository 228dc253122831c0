// The spec's view of an order. The spec knows order types 1–4 and statuses 1, 2, 3 and 6; the engine
// also holds the gateway's (types 5–7, statuses 4, 5, 8: engine.ts), which only a request that opts
// in creates, except Expired, which every session's end makes. A family that speaks the spec shows
// orders through this projection (the trading service's default view, docs/decisions.md):
// - a trailing stop is a Stop at its current stop price; a JoinBid / JoinAsk is a Limit at its price;
// - Expired is Canceled (the spec's session end cancels), a Rejected record is Canceled (it never
//   worked), a Suspended leg is Pending (not filled, not canceled).

import { type Order, OrderStatus, OrderType } from './types.ts';

const SPEC_TYPE: Partial<Record<OrderType, OrderType>> = {
  [OrderType.TrailingStop]: OrderType.Stop,
  [OrderType.JoinBid]: OrderType.Limit,
  [OrderType.JoinAsk]: OrderType.Limit,
};

const SPEC_STATUS: Partial<Record<OrderStatus, OrderStatus>> = {
  [OrderStatus.Expired]: OrderStatus.Canceled,
  [OrderStatus.Rejected]: OrderStatus.Canceled,
  [OrderStatus.Suspended]: OrderStatus.Pending,
};

/** `o` as the spec shows it: itself when the spec knows its type and status, else a mapped copy. */
export function specOrderView(o: Readonly<Order>): Order {
  const type = SPEC_TYPE[o.type];
  const status = SPEC_STATUS[o.status];
  if (type === undefined && status === undefined) return o as Order;
  return { ...o, type: type ?? o.type, status: status ?? o.status };
}
