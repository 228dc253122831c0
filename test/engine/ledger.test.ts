// Several contracts on one account (src/engine/ledger.ts): one balance, one id sequence, margin and
// the plan's position limit across contracts, the account's snapshot.
import { describe, expect, it } from 'bun:test';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { AccountLedger } from '../../src/engine/ledger.ts';
import { order, T0 } from './scenario.ts';

const NQ = findInstrument('NQ') as Instrument; // tick $5, fee $1.40, margin $1,000
const ES = findInstrument('ES') as Instrument; // tick $12.50, fee $1.40, margin $500
const MES = findInstrument('MES') as Instrument; // micro: tick $1.25, fee $0.37, margin $50

function pair(balanceCents: number, limits: { nq?: number | null; other?: number | null } = {}, other = ES) {
  const ledger = new AccountLedger(balanceCents, 1, 1, true);
  const nq = new SessionEngine(NQ, { startingBalanceCents: balanceCents, ledger, maxPositionQty: limits.nq ?? null });
  const es = new SessionEngine(other, { startingBalanceCents: balanceCents, ledger, maxPositionQty: limits.other ?? null });
  nq.setLastPrice(80_000, T0);
  es.setLastPrice(24_000, T0);
  return { ledger, nq, es };
}

function place(e: SessionEngine, spec: string) {
  const r = e.placeOrder(order(spec), T0);
  if (!r.ok) throw new Error(r.error.reason);
  return r.order;
}

describe('one account over two contracts', () => {
  it('books both contracts into one balance, with ids unique across the account', () => {
    const { nq, es } = pair(5_000_000);
    const a = place(nq, 'buy market 1');
    const b = place(es, 'sell market 2');
    const c = place(nq, 'buy limit 1 @79990');
    expect([a.id, b.id, c.id]).toEqual([1, 2, 3]);
    expect([nq.fills[0].id, es.fills[0].id]).toEqual([1, 2]);
    expect(nq.ledger.fills.map((f) => f.id)).toEqual([1, 2]);
    nq.setLastPrice(80_004, T0 + 1);
    es.setLastPrice(23_998, T0 + 1);
    place(nq, 'sell market 1');
    place(es, 'buy market 2');
    // NQ +4 ticks × $5 = $20; ES short 2 × 2 ticks × $12.50 = $50; fees: 6 contract-sides × $1.40.
    expect(nq.balanceCents).toBe(5_000_000 + 2000 + 5000 - 6 * 140);
    expect(es.balanceCents).toBe(nq.balanceCents);
  });

  it('answers the account in the snapshot: equity, margin, positions and orders across contracts', () => {
    const { nq, es } = pair(5_000_000);
    place(nq, 'buy market 1');
    place(es, 'sell market 2');
    place(es, 'buy limit 1 @23990');
    nq.setLastPrice(80_010, T0 + 1); // +$50
    es.setLastPrice(24_004, T0 + 1); // short 2 × −4 ticks × $12.50 = −$100
    const fees = 3 * 140;
    const want = {
      balanceCents: 5_000_000 - fees, equityCents: 5_000_000 - fees - 5000, unrealizedPnlCents: -5000,
      marginUsedCents: 100_000 + 2 * 50_000, openPositions: 2, pendingOrders: 1,
    };
    expect(nq.snapshot()).toMatchObject({ ...want, positionQty: 1, avgPriceTicks: 80_000 });
    expect(es.snapshot()).toMatchObject({ ...want, positionQty: -2, avgPriceTicks: 24_000 });
  });

  it('checks margin against the account: the other contract\'s margin and open P&L count', () => {
    // $2,000: one NQ ($1,000 margin) leaves $1,000 minus fees; two ES ($1,000) do not fit, one does.
    const { nq, es } = pair(200_000);
    place(nq, 'buy market 1');
    const r = es.placeOrder(order('buy market 2'), T0);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ reason: 'Insufficient margin: 2 ES contracts need $1,000.00 day-trade margin, $998.60 available' });
    place(es, 'buy market 1');
  });

  it('sums the plan\'s position limit across contracts, micros at 1/10 of a mini', () => {
    // A 3-mini plan: 2 NQ leave 1 mini = 10 MES.
    const { nq, es } = pair(5_000_000, { nq: 3, other: 30 }, MES);
    place(nq, 'buy market 2');
    const r = es.placeOrder(order('sell market 11'), T0);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ reason: "Maximum position size exceeded: 11 MES contracts would be open, limit 10 (the account's other contracts hold the rest of its 30)" });
    place(es, 'sell market 10');
    const more = nq.placeOrder(order('buy market 1'), T0);
    expect(more.ok).toBe(false);
    if (!more.ok) expect(more.error).toMatchObject({ reason: "Maximum position size exceeded: 3 NQ contracts would be open, limit 2 (the account's other contracts hold the rest of its 3)" });
  });

  it('leaves a one-contract engine exactly as before: its own ledger, one position at most', () => {
    const e = new SessionEngine(NQ, { startingBalanceCents: 5_000_000, firstOrderId: 7, firstFillId: 3 });
    e.setLastPrice(80_000, T0);
    const o = place(e, 'buy market 1');
    expect([o.id, e.fills[0].id, e.ledger.shared, e.ledger.fills.length]).toEqual([7, 3, false, 0]);
    expect(e.snapshot().openPositions).toBe(1);
  });
});
