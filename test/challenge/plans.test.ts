import { describe, expect, it } from 'bun:test';
import { maxPositionQtyFor, type PlanSize, PLANS, planByKey, planFor } from '../../src/challenge/plans.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { OrderSide, OrderType } from '../../src/engine/types.ts';

const inst = (s: string): Instrument => findInstrument(s) as Instrument;

describe('plan table', () => {
  it.each([
    // size, start, target, max loss, daily loss, contracts, standard payout max (USD)
    ['50K', 50_000, 3_000, 2_000, 1_000, 5, 2_000],
    ['100K', 100_000, 6_000, 3_000, 2_000, 10, 2_500],
    ['150K', 150_000, 9_000, 4_500, 3_000, 15, 2_750],
  ] as [PlanSize, number, number, number, number, number, number][])(
    '%s: %d start, %d target, %d max loss, %d daily, %d contracts',
    (size, start, target, mll, dll, contracts, payoutMax) => {
      const p = planFor(size);
      expect([p.key, p.startingBalanceCents, p.profitTargetCents, p.maxLossLimitCents, p.dailyLossLimitCents])
        .toEqual([`${size}-standard`, start * 100, target * 100, mll * 100, dll * 100]);
      expect([p.maxContracts, p.minTradingDays, p.passConsistencyPct, p.dailyLossMode])
        .toEqual([contracts, 2, 50, 'hard']);
      expect(p.payout).toEqual({
        policy: 'standard', winningDayMinProfitCents: 15_000, requiredWinningDays: 5, minPayoutCents: 12_500,
        maxPayoutCents: payoutMax * 100, profitCapPct: 50, consistencyPct: null,
      });
      expect(planFor(size, 'consistency').payout).toEqual({
        policy: 'consistency', winningDayMinProfitCents: 15_000, requiredWinningDays: 3, minPayoutCents: 12_500,
        maxPayoutCents: 600_000, profitCapPct: 50, consistencyPct: 40,
      });
    },
  );

  it('has one plan per size, policy and daily-loss mode, found by key', () => {
    expect(PLANS.map((p) => p.key)).toEqual([
      '50K-standard', '50K-standard-soft', '50K-consistency', '50K-consistency-soft',
      '100K-standard', '100K-standard-soft', '100K-consistency', '100K-consistency-soft',
      '150K-standard', '150K-standard-soft', '150K-consistency', '150K-consistency-soft',
    ]);
    expect(planByKey('100K-consistency')).toBe(planFor('100K', 'consistency'));
    expect(planByKey('100K-consistency-soft')).toBe(planFor('100K', 'consistency', 'soft'));
    expect(planFor('50K').dailyLossMode).toBe('hard');
    expect(planFor('50K', 'standard', 'soft')).toMatchObject({ dailyLossMode: 'soft', dailyLossLimitCents: 100_000 });
    expect(planByKey('75K-standard')).toBeUndefined();
  });
});

describe('maximum position size in the instrument’s contracts', () => {
  it.each([
    ['50K', 'NQ', 5], ['50K', 'MNQ', 50], ['100K', 'ES', 10],
    ['100K', 'MES', 100], ['150K', 'GC', 15], ['150K', 'MNQ', 150],
  ] as [PlanSize, string, number][])('%s on %s: %d', (size, symbol, qty) => {
    expect(maxPositionQtyFor(planFor(size), inst(symbol))).toBe(qty);
  });

  it('lets the engine reject the order that would pass the limit (5 minis = 50 micros)', () => {
    const mnq = inst('MNQ');
    const maxPositionQty = maxPositionQtyFor(planFor('50K'), mnq);
    const e = new SessionEngine(mnq, { startingBalanceCents: 5_000_000, maxPositionQty });
    e.setLastPrice(80_000, 0);
    expect(e.placeOrder({ type: OrderType.Market, side: OrderSide.Buy, size: 50 }, 1).ok).toBe(true);
    expect(e.placeOrder({ type: OrderType.Limit, side: OrderSide.Buy, size: 1, limitTicks: 79_000 }, 1)).toEqual({
      ok: false,
      error: { kind: 'rejected', reason: 'Maximum position size exceeded: 51 MNQ contracts would be open, limit 50' },
    });
  });
});
