// The desk's layout model (src/console/pages/desk/layout-model.ts) and the account's open P&L across
// contracts (live.ts): one pane per instrument of a session, the grid they take, a book cut to one
// contract, and each position priced at its own contract's last price and tick value.
import { describe, expect, it } from 'bun:test';
import { bookFor, contractLabel, gridOf, instrumentsOf, panesOf } from '../../src/console/pages/desk/layout-model.ts';
import { openPnl, repriced } from '../../src/console/pages/desk/live.ts';
import type { Static } from '@sinclair/typebox';
import type { SessionContract } from '../../src/http/web/shapes.ts';
import type { Order, Position, Trade } from '../../src/console/pages/desk/wire.ts';

type Contract = Static<typeof SessionContract>;

const NQ: Contract = { id: 'CON.F.US.ENQ.Z26', name: 'NQZ6', description: 'E-mini NASDAQ-100', tickSize: 0.25, tickValue: 5, symbolId: 'F.US.ENQ' };
const ES: Contract = { id: 'CON.F.US.EP.Z26', name: 'ESZ6', description: 'E-mini S&P 500', tickSize: 0.25, tickValue: 12.5, symbolId: 'F.US.EP' };
const GC: Contract = { id: 'CON.F.US.GCE.G27', name: 'GCG7', description: 'Gold', tickSize: 0.1, tickValue: 10, symbolId: 'F.US.GCE' };

const position = (contractId: string, type: 1 | 2, size: number, averagePrice: number): Position => ({ id: 1, contractId, contractDisplayName: '', type, size, averagePrice });

describe('desk layout: panes', () => {
  it('one pane for a session of one instrument, one per instrument in the session order otherwise, the first the primary', () => {
    expect(panesOf({ contract: NQ, timeframe: '1m' })).toEqual([{ key: `${NQ.id}@1m`, contract: NQ, timeframe: '1m', primary: true }]);
    const panes = panesOf({ contract: NQ, instruments: [NQ, ES, GC], timeframe: '5m' });
    expect(panes.map((p) => [p.contract.name, p.timeframe, p.primary])).toEqual([['NQZ6', '5m', true], ['ESZ6', '5m', false], ['GCG7', '5m', false]]);
    // The session's contract is first even if the kept list says otherwise; at most four.
    expect(instrumentsOf({ contract: ES, instruments: [NQ, ES] }).map((c) => c.name)).toEqual(['ESZ6', 'NQZ6']);
    expect(instrumentsOf({ contract: NQ, instruments: [NQ, ES, GC, { ...GC, id: 'a' }, { ...GC, id: 'b' }] }).length).toBe(4);
  });

  it('side by side for two, two rows of two for three or four', () => {
    expect([1, 2, 3, 4].map(gridOf)).toEqual([{ columns: 1, rows: 1 }, { columns: 2, rows: 1 }, { columns: 2, rows: 2 }, { columns: 2, rows: 2 }]);
  });

  it("cuts the book to one contract's orders, positions and fills, and names contracts", () => {
    const o = (id: number, contractId: string) => ({ id, contractId }) as Order;
    const t = (id: number, contractId: string) => ({ id, contractId }) as Trade;
    const book = { orders: [o(2, ES.id), o(1, NQ.id)], positions: [position(NQ.id, 1, 1, 100), position(ES.id, 2, 1, 50)], fills: [t(1, NQ.id), t(2, ES.id)] };
    const es = bookFor(book, ES.id);
    expect([es.orders.map((x) => x.id), es.positions.map((x) => x.contractId), es.fills.map((x) => x.id)]).toEqual([[2], [ES.id], [2]]);
    expect([contractLabel([NQ, ES], ES.id), contractLabel([NQ, ES], 'CON.F.US.X.Z26')]).toEqual(['ESZ6', 'CON.F.US.X.Z26']);
  });
});

describe('desk: open P&L across contracts', () => {
  it("prices each position at its own contract's last price and tick value", () => {
    const positions = [position(NQ.id, 1, 2, 20_000), position(ES.id, 2, 1, 5_000)];
    // NQ long 2 from 20,000 at 20,010: 40 ticks × $5 × 2 = $400; ES short 1 from 5,000 at 5,003: −12 ticks × $12.50 = −$150.
    const marks = { [ES.id]: { lastPrice: 5_003, tickSize: 0.25, tickValue: 12.5 } };
    expect(openPnl(positions, 20_010, NQ, marks)).toBe(250);
    // Without its mark, ES would be priced at NQ's price and tick value (the one-instrument figure).
    expect(openPnl(positions.slice(0, 1), 20_010, NQ)).toBe(400);
    const snap = { balance: 50_000, equity: 50_000, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0 };
    expect(repriced(snap, { orders: [], positions, fills: [] }, 20_010, NQ, 500, marks)).toEqual({
      balance: 50_000, equity: 50_250, unrealizedPnl: 250, marginUsed: 1500, positions: 2, pendingOrders: 0,
    });
  });

  it('leaves out a position whose contract has no price yet', () => {
    const marks = { [ES.id]: { lastPrice: null, tickSize: 0.25, tickValue: 12.5 } };
    expect(openPnl([position(NQ.id, 1, 1, 100), position(ES.id, 1, 1, 50)], 101, NQ, marks)).toBe(20);
  });
});
