import { describe, expect, it } from 'bun:test';
import {
  checkPayoutAmount, eligibility, type PayoutAmountError, type PayoutEligibility,
} from '../../src/challenge/payout.ts';
import { type ChallengePlan, type PlanSize, planFor } from '../../src/challenge/plans.ts';
import { applyPayout, type ChallengeState, newChallenge } from '../../src/challenge/state.ts';
import { ChallengeSim, dayNo, usd } from './sim.ts';
import { payoutReasonText } from '../../src/http/shared/present-common.ts';
import type { PayoutReason } from '../../src/challenge/payout.ts';

/** The reasons as the current family words them. */
const words = (rs: readonly PayoutReason[]) => rs.map((r) => payoutReasonText(r, 'performance phase'));

const STD = planFor('50K');
const CONS = planFor('50K', 'consistency');
/** The simulated date now: unfinished, so it never counts as a winning day. */
const TODAY = '2024-03-15';
const DATES = ['2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08', '2024-03-11', '2024-03-12', '2024-03-13'];

/** A performance-phase challenge whose dates made these closed P&Ls (USD); `today` last if given. */
function funded(plan: ChallengePlan, pnls: number[], today?: number): ChallengeState {
  const s = newChallenge(plan, 'performance');
  const all: [number, number][] = pnls.map((p, k) => [dayNo(DATES[k]), p]);
  if (today !== undefined) all.push([dayNo(TODAY), today]);
  s.days = all.map(([tradeDate, p]) => ({ tradeDate, fillCount: 2, closedPnlCents: usd(p), windowPnlCents: usd(p) }));
  s.balanceCents += s.days.reduce((a, d) => a + d.closedPnlCents, 0);
  s.currentTradeDate = dayNo(TODAY);
  return s;
}

const winning = (n: number, have: number, since = 'the performance phase began'): string =>
  `${have} of ${n} winning days (closed profit of at least $150.00 on a finished trade date) since ${since}`;

describe('payout eligibility', () => {
  it('five winning days: eligible for up to 50% of the profit since the last payout', () => {
    expect(eligibility(funded(STD, [200, 200, 200, 200, 200]), STD, dayNo(TODAY))).toEqual({
      eligible: true, reasons: [], winningDays: 5, requiredWinningDays: 5, winningDayMinProfitCents: usd(150),
      netProfitSincePayoutCents: usd(1_000), totalFundedProfitCents: usd(1_000), consistencyLimitCents: 0,
      maxPayoutCents: usd(500), minPayoutCents: usd(125), consistencyPct: null, windowStartDate: null,
    });
  });

  it.each([
    ['four winning days', STD, [200, 200, 200, 200, 149.99], undefined, 4, usd(474.99), [winning(5, 4)]],
    ['the current unfinished date never counts', STD, [200, 200, 200, 200], 400, 4, usd(600), [winning(5, 4)]],
    ['no net profit', STD, [200, 200, 200, 200, 200, -1_200], undefined, 5, 0,
      ['No net profit since the performance phase began']],
    ['50% of the profit below the $125 minimum', STD, [150, 150, 150, 150, 150, -560], undefined, 5, usd(95),
      ['50% of the profit since the performance phase began is $95.00, below the minimum payout $125.00']],
    ['capped at the plan maximum', STD, [2_000, 2_000, 2_000, 2_000, 2_000], undefined, 5, usd(2_000), []],
    ['consistency: best day at 40% of window profit is allowed', CONS, [1_000, 1_000, 500], undefined, 3, usd(1_250),
      []],
    ['consistency: best day above 40%', CONS, [900, 600, 500], undefined, 3, usd(1_000),
      ['Best day $900.00 is above 40% of window profit $2,000.00']],
    ['consistency: 3 winning days required', CONS, [1_000, 1_000, 100, 100], undefined, 2, usd(1_100),
      [winning(3, 2), 'Best day $1,000.00 is above 40% of window profit $2,200.00']],
    ['consistency: maximum $6,000', CONS, [4_000, 4_000, 4_000, 4_000], undefined, 4, usd(6_000), []],
  ] as [string, ChallengePlan, number[], number | undefined, number, number, string[]][])(
    '%s',
    (_name, plan, pnls, today, winningDays, maxPayoutCents, reasons) => {
      const e = eligibility(funded(plan, pnls, today), plan, dayNo(TODAY));
      expect({ winningDays: e.winningDays, maxPayoutCents: e.maxPayoutCents, reasons: words(e.reasons), eligible: e.eligible })
        .toEqual({ winningDays, maxPayoutCents, reasons, eligible: reasons.length === 0 });
    },
  );

  it('reports the consistency limit as 40% of the window profit on consistency plans', () => {
    const e = eligibility(funded(CONS, [1_000, 1_000, 500]), CONS, dayNo(TODAY));
    expect([e.consistencyPct, e.consistencyLimitCents, e.requiredWinningDays]).toEqual([40, usd(1_000), 3]);
  });

  it.each([['50K', 2_000], ['100K', 2_500], ['150K', 2_750]] as [PlanSize, number][])(
    '%s standard maximum is $%d',
    (size, max) => {
      const plan = planFor(size);
      const s = funded(plan, [3_000, 3_000, 3_000, 3_000, 3_000]);
      expect(eligibility(s, plan, dayNo(TODAY)).maxPayoutCents).toBe(usd(max));
    },
  );

  it('is not eligible outside the performance phase', () => {
    const s = funded(STD, [200, 200, 200, 200, 200]);
    s.status = 'violated';
    expect(words(eligibility(s, STD, dayNo(TODAY)).reasons)).toEqual(['The account is not in the performance phase']);
  });
});

describe('after a payout', () => {
  it('starts a new window on the payout date, keeps the phase totals', () => {
    const paid = applyPayout(funded(STD, [200, 200, 200, 200, 200]), usd(500), dayNo(TODAY));
    const e = eligibility(paid, STD, dayNo(TODAY));
    expect({ ...e, reasons: words(e.reasons) }).toMatchObject({
      eligible: false, winningDays: 0, netProfitSincePayoutCents: 0, totalFundedProfitCents: usd(1_000),
      maxPayoutCents: 0, windowStartDate: TODAY,
      reasons: [winning(5, 0, 'the last payout'), 'No net profit since the last payout'],
    });
  });

  it('counts profit made later on the payout date in the new window, and the floor stays at the start', () => {
    // Paid out on 2024-03-15 with $50,500 left: the floor is $50,000. +$200 later that date, then
    // the next date's first bar finishes it: one winning day. Then a fall to the floor is a violation.
    const plan: ChallengePlan = { ...STD, dailyLossLimitCents: 0 };
    const paid = applyPayout(funded(plan, [200, 200, 200, 200, 200]), usd(500), dayNo(TODAY));
    const sim = new ChallengeSim(paid, plan, [
      ['2024-03-15T15:00:00Z', 80_000], ['2024-03-15T15:00:01Z', 80_040], ['2024-03-18T15:00:00Z', 80_000],
      ['2024-03-18T15:00:01Z', 79_900, 79_900, 79_800, 79_850],
    ]);
    sim.stepThen('buy market 1');
    sim.stepThen('sell market 1');
    sim.stepThen('buy market 1');
    const e = eligibility(sim.state, plan, dayNo('2024-03-18'));
    expect([e.winningDays, e.netProfitSincePayoutCents, e.totalFundedProfitCents]).toEqual([1, usd(200), usd(1_200)]);
    expect([sim.state.floorCents, sim.state.drawdownLocked]).toEqual([usd(50_000), true]);
    const r = sim.step();
    expect(r.outcome).toMatchObject({ rule: 'maxLossLimit', valueCents: usd(50_000), liquidationPriceTicks: 79_860 });
  });
});

describe('payout amount', () => {
  const ok = eligibility(funded(STD, [200, 200, 200, 200, 200]), STD, dayNo(TODAY));
  const notOk: PayoutEligibility = { ...ok, eligible: false, reasons: [{ kind: 'no_net_profit', since: 'phase_start' }] };
  it.each([
    [ok, usd(125), null],
    [ok, usd(500), null],
    [ok, usd(124.99), 'invalid_amount'],
    [ok, usd(500.01), 'invalid_amount'],
    [ok, 0, 'invalid_amount'],
    [ok, 12_500.5, 'invalid_amount'],
    [notOk, usd(200), 'not_eligible'],
    [notOk, -1, 'invalid_amount'],
  ] as [PayoutEligibility, number, PayoutAmountError['kind'] | null][])('%#: %d cents → %s', (elig, cents, kind) => {
    const r = checkPayoutAmount(elig, cents);
    expect(r.ok ? null : r.error.kind).toBe(kind);
  });
});
