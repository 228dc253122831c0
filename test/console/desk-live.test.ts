// The desk's event folding (src/console/pages/desk/live.ts): each user-hub event states an entity as
// it now is, so folding is idempotent and the REST reads that reconcile after a (re)connect can
// replay the events heard meanwhile over their answer without losing or doubling anything.
import { describe, expect, it } from 'bun:test';
import { applyToBook, type Book, EMPTY_BOOK, repriced, userEvent } from '../../src/console/pages/desk/live.ts';

const order = (id: number, status: number, extra: Record<string, unknown> = {}) => ({
  id, accountId: 7, contractId: 'CON.F.US.ENQ.Z26', symbolId: 'NQ', creationTimestamp: '2025-03-04T00:00:00Z',
  updateTimestamp: '2025-03-04T00:00:00Z', status, type: 1, side: 0, size: 1, limitPrice: 100, fillVolume: 0, ...extra,
});
const trade = (orderId: number, price: number) => ({
  id: orderId, accountId: 7, contractId: 'CON.F.US.ENQ.Z26', creationTimestamp: '2025-03-04T00:01:00Z', price, profitAndLoss: null,
  fees: 1.4, side: 0, size: 1, voided: false, orderId,
});
const position = (size: number, type: number) => ({
  id: 1, accountId: 7, contractId: 'CON.F.US.ENQ.Z26', contractDisplayName: 'E-mini NASDAQ-100', creationTimestamp: '2025-03-04T00:01:00Z', type, size, averagePrice: 100,
});

const fold = (b: Book, events: [Parameters<typeof userEvent>[0], unknown][]) =>
  events.reduce((acc, [name, payload]) => applyToBook(acc, userEvent(name, payload)!), b);

describe('desk: user-hub events folded into the book', () => {
  // An order placed, then filled with its fill and the position it opened (wrapped, as by default).
  const placedAndFilled: [Parameters<typeof userEvent>[0], unknown][] = [
    ['GatewayUserOrder', { action: 0, data: order(1, 1) }],
    ['GatewayUserOrder', { action: 0, data: order(2, 1, { type: 4, stopPrice: 101, limitPrice: undefined }) }],
    ['GatewayUserOrder', { action: 1, data: order(1, 2, { fillVolume: 1, filledPrice: 100 }) }],
    ['GatewayUserTrade', { action: 0, data: trade(1, 100) }],
    ['GatewayUserPosition', { action: 0, data: position(1, 1) }],
  ];

  it('keeps working orders (newest first), fills (newest first) and the open position', () => {
    const b = fold(EMPTY_BOOK, placedAndFilled);
    expect(b.orders.map((o) => [o.id, o.type, o.limitPrice, o.stopPrice])).toEqual([[2, 4, null, 101]]);
    expect(b.fills.map((t) => [t.orderId, t.price])).toEqual([[1, 100]]);
    expect(b.positions.map((p) => [p.type, p.size])).toEqual([[1, 1]]);
    const more = fold(b, [['GatewayUserOrder', { action: 0, data: order(3, 1) }], ['GatewayUserTrade', { action: 0, data: trade(2, 101) }]]);
    expect(more.orders.map((o) => o.id)).toEqual([3, 2]);
    expect(more.fills.map((t) => t.orderId)).toEqual([2, 1]);
  });

  it('is idempotent: events replayed over a REST answer that already holds them change nothing', () => {
    const b = fold(EMPTY_BOOK, placedAndFilled);
    expect(fold(b, placedAndFilled)).toEqual(b);
  });

  it('a close removes the position, wrapped (action 2) or plain (size 0)', () => {
    const open = fold(EMPTY_BOOK, placedAndFilled);
    expect(fold(open, [['GatewayUserPosition', { action: 2, data: { ...position(0, 0), averagePrice: 100 } }]]).positions).toEqual([]);
    expect(fold(open, [['GatewayUserPosition', position(0, 0)]]).positions).toEqual([]);
    // Plain shape: the bare entity, no action.
    expect(fold(EMPTY_BOOK, [['GatewayUserOrder', order(5, 1)]]).orders.map((o) => o.id)).toEqual([5]);
  });

  it('an account event names the account and its balance', () => {
    expect(userEvent('GatewayUserAccount', { action: 1, data: { id: 7, name: 'REPLAY-NQ-1m-7', balance: 49998.6, canTrade: true } })).toEqual({ kind: 'account', id: 7, balance: 49998.6 });
  });

  it('reprices the snapshot from the position and the last price, the margin per contract as last stated', () => {
    const b = fold(EMPTY_BOOK, placedAndFilled);
    const s = { balance: 49998.6, equity: 49998.6, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 1 };
    // NQ: 0.25 a tick, $5 a tick; long 1 at 100, last 101.25 → 5 ticks, $25.
    expect(repriced(s, b, 101.25, { tickSize: 0.25, tickValue: 5 }, 1000)).toEqual({
      balance: 49998.6, equity: 50023.6, unrealizedPnl: 25, marginUsed: 1000, positions: 1, pendingOrders: 1,
    });
    expect(repriced(s, EMPTY_BOOK, 101.25, { tickSize: 0.25, tickValue: 5 }, 1000).marginUsed).toBe(0);
  });
});
