import { describe, expect, it } from 'bun:test';
import { bestDayCents, isPassReached, passShortfalls } from '../../src/challenge/pass.ts';
import { type ChallengePlan, planFor } from '../../src/challenge/plans.ts';
import { type ChallengePhase, type ChallengeState, newChallenge } from '../../src/challenge/state.ts';
import { dayNo, usd } from './sim.ts';

const P50 = planFor('50K');

/** An evaluation whose days made these closed P&Ls (USD), one date each from 2024-03-04 on. */
function evaluation(pnls: number[], phase: ChallengePhase = 'evaluation'): ChallengeState {
  const s = newChallenge(P50, phase);
  s.days = pnls.map((p, k) => ({
    tradeDate: dayNo('2024-03-04') + k, fillCount: 2, closedPnlCents: usd(p), windowPnlCents: usd(p),
  }));
  s.balanceCents += pnls.reduce((a, p) => a + usd(p), 0);
  return s;
}

describe('pass conditions, one at a time', () => {
  it.each([
    ['all met', [1_000, 1_000, 1_000], 0, P50, []],
    ['target not reached', [1_000, 1_000, 999.99], 0, P50,
      ['Balance $52,999.99 is below the profit target balance $53,000.00']],
    ['open position', [1_000, 1_000, 1_000], -1, P50, ['The position must be closed to pass']],
    ['too few trading days', [1_000, 1_000, 1_000], 0, { ...P50, minTradingDays: 4 }, ['3 of 4 minimum trading days']],
    ['consistency not met', [2_000, 1_000], 0, P50, ['Best day $2,000.00 is not below 50% of total profit $3,000.00']],
    ['best day exactly 50%', [1_500, 1_500], 0, P50, ['Best day $1,500.00 is not below 50% of total profit $3,000.00']],
    ['a losing day lowers the total', [1_500, 1_400, 1_400, -300], 0, P50, []],
  ] as [string, number[], number, ChallengePlan, string[]][])('%s', (_name, pnls, qty, plan, reasons) => {
    const s = evaluation(pnls);
    expect(passShortfalls(s, plan, qty)).toEqual(reasons);
    expect(isPassReached(s, plan, qty)).toBe(reasons.length === 0);
  });

  it('never passes in the performance phase', () => {
    const s = evaluation([1_000, 1_000, 1_000], 'performance');
    expect(passShortfalls(s, P50, 0)).toEqual(['The performance phase has no profit target']);
    expect(isPassReached(s, P50, 0)).toBe(false);
  });

  it('best day is the largest closed P&L of a date, 0 without profit', () => {
    expect([bestDayCents(evaluation([5, 700, -20])), bestDayCents(evaluation([-5])), bestDayCents(evaluation([]))])
      .toEqual([usd(700), 0, 0]);
  });
});
