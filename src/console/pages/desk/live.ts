// What the desk shows of a session between server answers, kept current by the hubs' events
// (docs/realtime.md): the working orders, the position, the fills and the account snapshot as pure
// state, and the rules that fold one event into it. Every event states an entity as it now is
// (an order, the position, a fill, the balance), so folding it is idempotent: the REST reads that
// reconcile after a (re)connect replay the events heard meanwhile over their answer and lose none.
//
// The snapshot is the server's (step, jump, pause and status answers carry it); between answers
// the balance comes from account events and the open P&L from the position and the last price, as
// the positions table has always computed it. The margin of a position opened between answers is
// the margin per contract the server last stated, times its size.

import type { Order, Position, Snapshot, Trade } from './wire.ts';

export interface Book {
  orders: Order[];
  positions: Position[];
  fills: Trade[];
}

export const EMPTY_BOOK: Book = { orders: [], positions: [], fills: [] };

/** One user-hub event, unwrapped (`{action, data}` by default, the bare entity when the server is set to `plain`). */
export type UserEvent =
  | { kind: 'order'; order: Order }
  | { kind: 'position'; action: number | null; position: Position }
  | { kind: 'trade'; trade: Trade }
  | { kind: 'account'; id: number; balance: number };

/** Order status of a working order as Order/searchOpen and the hub report it. */
const WORKING = 1;

function unwrap(payload: unknown): { action: number | null; data: Record<string, any> } | null {
  if (!payload || typeof payload !== 'object') return null;
  const p = payload as Record<string, any>;
  if ('data' in p && p.data && typeof p.data === 'object' && 'action' in p) return { action: Number(p.action), data: p.data };
  return { action: null, data: p };
}

/** The hub's events as the desk's wire types: omitted null fields come back as null. */
export function userEvent(name: 'GatewayUserOrder' | 'GatewayUserPosition' | 'GatewayUserTrade' | 'GatewayUserAccount', payload: unknown): UserEvent | null {
  const u = unwrap(payload);
  if (!u) return null;
  const d = u.data;
  if (name === 'GatewayUserOrder') {
    const order: Order = { ...(d as Order), limitPrice: d.limitPrice ?? null, stopPrice: d.stopPrice ?? null, filledPrice: d.filledPrice ?? null, updateTimestamp: d.updateTimestamp ?? null };
    return { kind: 'order', order };
  }
  if (name === 'GatewayUserPosition') return { kind: 'position', action: u.action, position: d as Position };
  if (name === 'GatewayUserTrade') return { kind: 'trade', trade: d as Trade };
  return { kind: 'account', id: Number(d.id), balance: Number(d.balance) };
}

/** Newest first, as the REST reads list them: working orders by id, fills by time then id (the hub sends them in that order). */
export function applyToBook(b: Book, e: UserEvent): Book {
  if (e.kind === 'order') {
    const o = e.order;
    const rest = b.orders.filter((x) => x.id !== o.id);
    if (o.status !== WORKING) return rest.length === b.orders.length ? b : { ...b, orders: rest };
    const at = b.orders.findIndex((x) => x.id === o.id);
    const orders = at >= 0 ? b.orders.map((x) => (x.id === o.id ? o : x)) : [o, ...b.orders].sort((x, y) => y.id - x.id);
    return { ...b, orders };
  }
  if (e.kind === 'position') {
    const p = e.position;
    const rest = b.positions.filter((x) => x.contractId !== p.contractId);
    // A close is action 2, or, in the plain shape, type 0 and size 0.
    const closed = e.action === 2 || p.size === 0;
    return { ...b, positions: closed ? rest : [...rest, p] };
  }
  if (e.kind === 'trade') {
    // An order fills once, whole: its id names the fill in both the REST and the hub numbering.
    if (b.fills.some((t) => t.orderId === e.trade.orderId)) return b;
    return { ...b, fills: [e.trade, ...b.fills] };
  }
  return b;
}

export interface Pricing {
  tickSize: number;
  tickValue: number;
}

/** Another contract's last price and pricing, by contract ID (a session over several instruments). */
export type Marks = Record<string, Pricing & { lastPrice: number | null }>;

/** Open P&L of the positions at a price (the positions table's own figure); a position in `marks` at its own contract's. */
export function openPnl(positions: readonly Position[], lastPrice: number | null, p: Pricing, marks: Marks = {}): number {
  let sum = 0;
  for (const x of positions) {
    const m = marks[x.contractId];
    const price = m ? m.lastPrice : lastPrice;
    const at = m ?? p;
    if (price !== null) sum += ((price - x.averagePrice) / at.tickSize) * at.tickValue * x.size * (x.type === 1 ? 1 : -1);
  }
  return Math.round(sum * 100) / 100;
}

/** Margin per contract as a server snapshot states it; null when it holds no position. */
export function marginPerContract(s: Snapshot, positions: readonly Position[]): number | null {
  const size = positions.reduce((n, x) => n + x.size, 0);
  return s.positions > 0 && size > 0 ? s.marginUsed / size : null;
}

/** The snapshot after the book or the price moved without a server answer. */
export function repriced(s: Snapshot, b: Book, lastPrice: number | null, p: Pricing, perContract: number | null, marks: Marks = {}): Snapshot {
  const unrealizedPnl = openPnl(b.positions, lastPrice, p, marks);
  const size = b.positions.reduce((n, x) => n + x.size, 0);
  const marginUsed = size === 0 ? 0 : perContract !== null ? Math.round(perContract * size * 100) / 100 : s.marginUsed;
  return {
    ...s,
    unrealizedPnl,
    equity: Math.round((s.balance + unrealizedPnl) * 100) / 100,
    marginUsed,
    positions: b.positions.length,
    pendingOrders: b.orders.length,
  };
}
