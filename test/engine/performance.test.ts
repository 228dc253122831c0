// Performance statistics (src/engine/performance.ts), with figures computed by hand.
import { describe, expect, it } from 'bun:test';
import { dailyReturns, DrawdownDuration, performance, type PerformanceInput } from '../../src/engine/performance.ts';
import { daysFromCivil } from '../../src/lib/civil-date.ts';

const DAY_S = 86_400;
const QUARTER_S = (365.25 * DAY_S) / 4;

// Start 10,000.00 USD. Trade dates Thu 2025-01-30, Fri 01-31, Mon 02-03 close at 10,100.00, 9,999.00
// and 10,198.98: daily returns +1 %, −1 %, +2 %.
const base: PerformanceInput = {
  startingBalanceCents: 1_000_000,
  finalEquityCents: 1_019_898,
  startS: 1_000,
  endS: 1_000 + QUARTER_S,
  dailyCloses: [
    { day: daysFromCivil(2025, 1, 30), equityCents: 1_010_000 },
    { day: daysFromCivil(2025, 1, 31), equityCents: 999_900 },
    { day: daysFromCivil(2025, 2, 3), equityCents: 1_019_898 },
  ],
  trades: [{ entryTimeS: 100, exitTimeS: 160, pnlCents: 15_000 }, { entryTimeS: 200, exitTimeS: 350, pnlCents: -5_001 }],
  exposedBars: 3,
  bars: 8,
  longestDrawdownS: 7_200,
  benchmark: null,
};

describe('performance', () => {
  it('return, CAGR, Sharpe, Sortino, exposure, durations and monthly returns', () => {
    // Return: 198.98 / 10,000 = 1.9898 %. CAGR over a quarter of a year: 1.019898^4 − 1 = 8.1999 %.
    // Daily returns 0.01, −0.01, 0.02: mean 1/150, sample sd √(7/30000) = 0.0152753, so
    // Sharpe = (1/150) / 0.0152753 × √252 = 4√3 = 6.928; downside deviation √(0.01² / 3) = 0.0057735,
    // Sortino = (1/150) / 0.0057735 × √252 = 18.330. Exposure 3 / 8 bars. Durations (60 + 150) / 2.
    // January ends at 9,999.00 (−0.01 % on 10,000.00); February at 10,198.98 (+2 % on 9,999.00).
    expect(performance(base)).toEqual({
      returnPct: 1.99,
      cagrPct: 8.2,
      sharpeRatio: 6.93,
      sortinoRatio: 18.33,
      // Growth 1.01, 0.9999, 1.019898: the deepest fall 1 % of the 1.01 peak; 1.019898^(252 / 3) − 1 = 4.23319.
      calmarRatio: 423.32,
      // (15,000 − 5,001) / 2 = 4,999.5, rounded half up.
      expectancyCents: 5_000,
      exposurePct: 37.5,
      averageTradeDurationS: 105,
      longestDrawdownS: 7_200,
      buyAndHold: null,
      monthlyReturns: [{ month: '2025-01', returnPct: -0.01 }, { month: '2025-02', returnPct: 2 }],
    });
  });

  it('without trades, bars or a second trade date: nulls where a figure has no meaning', () => {
    const one = { ...base, dailyCloses: base.dailyCloses.slice(0, 1), finalEquityCents: 1_010_000, trades: [], exposedBars: 0, bars: 0, endS: base.startS };
    expect(performance(one)).toEqual({
      returnPct: 1, cagrPct: null, sharpeRatio: null, sortinoRatio: null, calmarRatio: null, expectancyCents: null, exposurePct: 0, averageTradeDurationS: null,
      longestDrawdownS: 7_200, buyAndHold: null, monthlyReturns: [{ month: '2025-01', returnPct: 1 }],
    });
  });

  it('buy and hold: one contract from the first open to the last close, against the starting balance', () => {
    // NQ 17,000.00 → 17,250.25 (68,000 → 69,001 ticks at 500 cents): 1,001 ticks, 5,005.00 USD on 10,000.00 = 50.05 %; the price 1.47 %.
    const b = performance({ ...base, benchmark: { entryPriceTicks: 68_000, exitPriceTicks: 69_001, pnlCents: 500_500 } }).buyAndHold;
    expect(b).toEqual({ entryPriceTicks: 68_000, exitPriceTicks: 69_001, pnlCents: 500_500, returnPct: 50.05, priceChangePct: 1.47 });
  });

  it('no drawdown between daily closes: no Calmar', () => {
    const up = { ...base, dailyCloses: [base.dailyCloses[0], { day: base.dailyCloses[2].day, equityCents: 1_030_100 }], finalEquityCents: 1_030_100 };
    expect(performance(up).calmarRatio).toBeNull();
  });

  it('no losing day: no Sortino; flat equity: no Sharpe', () => {
    const up = { ...base, dailyCloses: [base.dailyCloses[0], { day: base.dailyCloses[2].day, equityCents: 1_030_100 }], finalEquityCents: 1_030_100 };
    expect(performance(up)).toMatchObject({ sortinoRatio: null, sharpeRatio: expect.any(Number) });
    const flat = { ...base, dailyCloses: base.dailyCloses.map((c) => ({ ...c, equityCents: 1_000_000 })), finalEquityCents: 1_000_000 };
    expect(performance(flat)).toMatchObject({ returnPct: 0, cagrPct: 0, sharpeRatio: null, sortinoRatio: null });
  });

  it('an equity that reached 0: CAGR −100 %, no daily ratios', () => {
    const bust = { ...base, dailyCloses: [{ day: base.dailyCloses[0].day, equityCents: 0 }, { day: base.dailyCloses[1].day, equityCents: -5_000 }], finalEquityCents: -5_000 };
    expect(dailyReturns(1_000_000, bust.dailyCloses)).toBeNull();
    expect(performance(bust)).toMatchObject({ returnPct: -100.5, cagrPct: -100, sharpeRatio: null, sortinoRatio: null });
  });
});

describe('DrawdownDuration', () => {
  it('measures from a peak to the first mark back at or above it, an open drawdown up to the end', () => {
    const d = new DrawdownDuration(1000, 0);
    // Peak 1100 at 10; below from 20; 1100 again at 45 (35 s); peak 1200 at 50; below from 60.
    for (const [eq, t] of [[1100, 10], [900, 20], [1000, 30], [1100, 45], [1200, 50], [1150, 60]]) d.update(eq, t);
    expect(d.longestS).toBe(35);
    expect(d.longestUntil(70)).toBe(35);
    expect(d.longestUntil(100)).toBe(50);
    d.update(1300, 120);
    expect(d.longestUntil(500)).toBe(70);
  });

  it('the start is a peak: a run that never recovers counts from its start', () => {
    const d = new DrawdownDuration(1000, 5);
    d.update(999, 10);
    expect(d.longestUntil(65)).toBe(60);
  });
});
