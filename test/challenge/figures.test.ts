import { describe, expect, it } from 'bun:test';
import { challengeFigures } from '../../src/challenge/figures.ts';
import { planFor } from '../../src/challenge/plans.ts';
import { newChallenge } from '../../src/challenge/state.ts';
import { dayNo, usd } from './sim.ts';

const P50 = planFor('50K');

describe('challenge figures', () => {
  it('a fresh 50K evaluation: floor $48,000, no daily floor before the first trade date, target $53,000', () => {
    const f = challengeFigures(newChallenge(P50), P50);
    expect(f).toEqual({
      startingBalanceCents: usd(50_000),
      balanceCents: usd(50_000),
      profitCents: 0,
      targetBalanceCents: usd(53_000),
      profitTargetCents: usd(3_000),
      trailingFloorCents: usd(48_000),
      drawdownLocked: false,
      dailyLossLimitCents: usd(1_000),
      dailyLossMode: 'hard',
      dailyLossFloorCents: null,
      effectiveFloorCents: usd(48_000),
      bestDayCents: 0,
      consistencyPct: 50,
      tradingDays: 0,
      minTradingDays: P50.minTradingDays,
      maxContracts: 5,
      pausedForDay: false,
    });
  });

  it('during a trade date: the daily floor is day-start equity minus the limit, and the higher floor is the effective one', () => {
    const s = newChallenge(P50);
    s.currentTradeDate = dayNo('2024-03-05');
    s.dayStartEquityCents = usd(50_600);
    s.balanceCents = usd(50_600);
    s.floorCents = usd(48_600);
    s.days = [
      { tradeDate: dayNo('2024-03-04'), fillCount: 2, closedPnlCents: usd(800), windowPnlCents: usd(800) },
      { tradeDate: dayNo('2024-03-05'), fillCount: 1, closedPnlCents: usd(-200), windowPnlCents: usd(-200) },
    ];
    const f = challengeFigures(s, P50);
    expect(f.dailyLossFloorCents).toBe(usd(49_600));
    expect(f.effectiveFloorCents).toBe(usd(49_600));
    expect(f.trailingFloorCents).toBe(usd(48_600));
    expect(f.bestDayCents).toBe(usd(800));
    expect(f.profitCents).toBe(usd(600));
    expect(f.tradingDays).toBe(2);
  });

  it('a soft breach pauses the day and drops the daily floor; the performance phase has no target', () => {
    const plan = planFor('50K', 'standard', 'soft');
    const s = newChallenge(plan, 'performance');
    s.currentTradeDate = dayNo('2024-03-05');
    s.softBreachTradeDate = s.currentTradeDate;
    const f = challengeFigures(s, plan);
    expect(f.pausedForDay).toBe(true);
    expect(f.dailyLossFloorCents).toBeNull();
    expect(f.dailyLossMode).toBe('soft');
    expect(f.targetBalanceCents).toBeNull();
    expect(f.profitTargetCents).toBeNull();
  });
});
