import { describe, expect, it } from 'bun:test';
import { planFor } from '../../src/challenge/plans.ts';
import {
  applyPayout, type ChallengeState, endChallenge, newChallenge, orderRefusal, prepareSession, snapshotOf,
  trailedFloorCents,
} from '../../src/challenge/state.ts';
import { at, dayNo, usd } from './sim.ts';

const P100 = planFor('100K');

function passed(): ChallengeState {
  const s = newChallenge(P100);
  s.status = 'passed';
  s.balanceCents = usd(106_500);
  s.floorCents = usd(100_000);
  s.drawdownLocked = true;
  s.currentTradeDate = dayNo('2024-03-07');
  s.lastSimTimeS = at('2024-03-07T16:00:00Z');
  s.days = [{ tradeDate: dayNo('2024-03-07'), fillCount: 2, closedPnlCents: usd(6_500), windowPnlCents: usd(6_500) }];
  return s;
}

describe('challenge state machine', () => {
  it('starts active in the evaluation at the plan size, floor start − max loss', () => {
    expect(newChallenge(P100)).toEqual({
      version: 1, planKey: '100K-standard', status: 'active', phase: 'evaluation',
      startingBalanceCents: usd(100_000), balanceCents: usd(100_000), floorCents: usd(97_000), drawdownLocked: false,
      highestEodBalanceCents: usd(100_000), currentTradeDate: null, dayStartEquityCents: usd(100_000), days: [],
      softBreachTradeDate: null, lastSimTimeS: null, payoutWindowStartDate: null, payoutCount: 0,
      payoutsTotalCents: 0, outcome: null,
    });
  });

  it('opens the performance phase at the next session start after a pass', () => {
    const r = prepareSession(passed(), P100, at('2024-03-08T15:00:00Z'));
    expect(r.ok).toBe(true);
    const s = (r as { value: ChallengeState }).value;
    expect(s).toMatchObject({
      status: 'active', phase: 'performance', balanceCents: usd(100_000), floorCents: usd(97_000),
      drawdownLocked: false, days: [], outcome: null, currentTradeDate: dayNo('2024-03-07'),
      lastSimTimeS: at('2024-03-07T16:00:00Z'),
    });
    expect(snapshotOf(s)).toEqual({
      status: 'active', isFunded: true, currentPhase: 'performance', tradingDaysCount: 0, drawdownLocked: false,
    });
  });

  it.each([
    ['violated', at('2024-03-08T15:00:00Z'), { kind: 'challenge_inactive' }],
    ['ended', at('2024-03-08T15:00:00Z'), { kind: 'challenge_inactive' }],
    ['passed', at('2024-03-07T15:59:59Z'),
      { kind: 'session_before_challenge_time', lastSimTimeS: at('2024-03-07T16:00:00Z') }],
  ] as const)('refuses a session on a %s challenge or before its time', (status, firstBarS, error) => {
    const s = passed();
    s.status = status;
    expect(prepareSession(s, P100, firstBarS)).toEqual({ ok: false, error });
  });

  it('continues an active challenge unchanged (a copy)', () => {
    const s = newChallenge(P100);
    const r = prepareSession(s, P100, at('2024-03-08T15:00:00Z'));
    expect(r).toEqual({ ok: true, value: s });
    expect((r as { value: ChallengeState }).value).not.toBe(s);
  });

  it('ends only an active challenge', () => {
    expect(endChallenge(newChallenge(P100)).status).toBe('ended');
    expect(endChallenge(passed()).status).toBe('passed');
    expect(orderRefusal(endChallenge(newChallenge(P100)), 0)).toEqual({ kind: 'challenge_inactive' });
  });
});

describe('trailing floor at a trade-date boundary', () => {
  // 50K, max loss 2,000, lock at 50,000 (Topstep's published example of its trailing maximum loss limit).
  it.each([
    [48_000, 50_000, 48_000], // flat day
    [48_000, 50_500, 48_500], // +500
    [48_500, 49_000, 48_500], // a losing day never lowers it
    [48_500, 52_500, 50_000], // capped at the starting balance: locked
    [50_000, 60_000, 50_000], // and stays there
  ])('floor %d, EOD %d → %d', (floor, eod, next) => {
    expect(trailedFloorCents(usd(floor), usd(eod), usd(2_000), usd(50_000))).toBe(usd(next));
  });
});

describe('applyPayout', () => {
  it('lowers the balance and the day base, opens a new window, and locks the floor at the start', () => {
    const s = newChallenge(planFor('50K'), 'performance');
    s.balanceCents = usd(51_200);
    s.dayStartEquityCents = usd(51_000);
    s.days = [{ tradeDate: dayNo('2024-03-05'), fillCount: 1, closedPnlCents: usd(1_200), windowPnlCents: usd(1_200) }];
    const t = applyPayout(s, usd(600), dayNo('2024-03-12'));
    expect(t).toMatchObject({
      balanceCents: usd(50_600), dayStartEquityCents: usd(50_400), floorCents: usd(50_000), drawdownLocked: true,
      payoutWindowStartDate: dayNo('2024-03-12'), payoutCount: 1, payoutsTotalCents: usd(600),
      days: [{ tradeDate: dayNo('2024-03-05'), fillCount: 1, closedPnlCents: usd(1_200), windowPnlCents: 0 }],
    });
    expect(s.days[0].windowPnlCents).toBe(usd(1_200)); // pure: the input is untouched
    expect(s.balanceCents).toBe(usd(51_200));
  });
});
