import { describe, expect, it } from 'bun:test';
import { type ChallengePlan, planFor } from '../../src/challenge/plans.ts';
import {
  canPlaceOrders, newChallenge, orderRefusal, SOFT_BREACH_REASON, snapshotOf,
} from '../../src/challenge/state.ts';
import { OrderStatus } from '../../src/engine/types.ts';
import { at, type BarRow, ChallengeSim, dayNo, NQ, usd } from './sim.ts';

const P50 = planFor('50K');
/** 50K with the daily loss limit off, to watch the maximum loss limit alone. */
const P50_NO_DLL: ChallengePlan = { ...P50, dailyLossLimitCents: 0 };
const P50_SOFT: ChallengePlan = { ...P50, dailyLossMode: 'soft' };

/** Two flat bars on a trade date's morning (15:00Z = 09:00 CT): entry price, then exit price. */
function roundTrip(date: string, entry: number, exit: number): BarRow[] {
  return [[`${date}T15:00:00Z`, entry], [`${date}T15:00:01Z`, exit]];
}

describe('maximum loss limit: trailing floor', () => {
  // Topstep's published example: 50K, +500 on day 1 → floor 48,500; balance later
  // 52,500 → floor 50,000, locked, and it never moves again. One NQ contract without fees: $5 a tick.
  const days: [string, number][] = [
    ['2024-03-05', 100], // +500
    ['2024-03-06', 400], // +2,000
    ['2024-03-07', -180], // −900
    ['2024-03-08', 80], // +400
    ['2024-03-11', 0], // first day after the DST change; only rolls the floor
  ];
  const rows = days.flatMap(([d, m]) => roundTrip(d, 80_000, 80_000 + m));

  it('follows the end-of-day balance at 17:00 CT and locks at the starting balance', () => {
    const sim = new ChallengeSim(newChallenge(P50), P50, rows);
    const seen: [string, number, number, boolean][] = [];
    for (let k = 0; k < days.length; k++) {
      sim.step(1); // the date's first bar rolls the trade date
      const st = sim.state;
      seen.push([days[k][0], st.balanceCents / 100, st.floorCents / 100, st.drawdownLocked]);
      sim.place('buy market 1');
      sim.stepThen('sell market 1');
    }
    expect(seen).toEqual([
      ['2024-03-05', 50_000, 48_000, false],
      ['2024-03-06', 50_500, 48_500, false],
      ['2024-03-07', 52_500, 50_000, true],
      ['2024-03-08', 51_600, 50_000, true],
      ['2024-03-11', 52_000, 50_000, true],
    ]);
    expect(sim.state.highestEodBalanceCents).toBe(usd(52_500));
    expect(sim.state.currentTradeDate).toBe(dayNo('2024-03-11'));
    expect(sim.outcomes).toEqual([]);
    expect(snapshotOf(sim.state)).toEqual({
      status: 'active', isFunded: false, currentPhase: 'evaluation', tradingDaysCount: 5, drawdownLocked: true,
    });
  });
});

describe('maximum loss limit: breach at the adverse extreme', () => {
  // Long or short 4 NQ at 80,000 without fees ($20 a tick): the 48,000 floor is 100 ticks away.
  const cases: {
    name: string;
    entry: string;
    bars: BarRow[];
    liq: number;
    equity: number;
  }[] = [
    {
      name: 'long: the path falls through the floor price; a buy limit below is never filled',
      entry: 'buy market 4',
      bars: [
        ['2024-03-05T15:00:01Z', 79_990, 79_995, 79_950, 79_960],
        ['2024-03-05T15:00:02Z', 79_960, 79_965, 79_880, 79_890],
        ['2024-03-05T15:00:03Z', 80_000],
      ],
      liq: 79_900,
      equity: 48_000,
    },
    {
      name: 'short: the path rises through the floor price',
      entry: 'sell market 4',
      bars: [
        ['2024-03-05T15:00:01Z', 80_010, 80_050, 80_005, 80_040],
        ['2024-03-05T15:00:02Z', 80_040, 80_120, 80_035, 80_110],
        ['2024-03-05T15:00:03Z', 80_000],
      ],
      liq: 80_100,
      equity: 48_000,
    },
    {
      name: 'long: a bar opens beyond the floor price, liquidation at the open',
      entry: 'buy market 4',
      bars: [
        ['2024-03-05T15:00:01Z', 79_990, 79_995, 79_950, 79_960],
        ['2024-03-05T15:00:02Z', 79_850, 79_870, 79_800, 79_820],
        ['2024-03-05T15:00:03Z', 80_000],
      ],
      liq: 79_850,
      equity: 47_000,
    },
  ];

  it.each(cases)('$name', ({ entry, bars, liq, equity }) => {
    const sim = new ChallengeSim(newChallenge(P50_NO_DLL, 'performance'), P50_NO_DLL, [
      ['2024-03-05T15:00:00Z', 80_000],
      ...bars,
    ]);
    sim.stepThen(entry);
    const protect = sim.place(entry.startsWith('buy') ? 'buy limit 1 @79890' : 'sell limit 1 @80110');
    const r = sim.step();
    expect(r).toMatchObject({ processed: 2, halted: true, softBreaches: [] });
    expect(r.outcome).toEqual({
      kind: 'violation', rule: 'maxLossLimit', valueCents: usd(equity), limitCents: usd(48_000),
      timeS: at('2024-03-05T15:00:02Z'), barIndex: 2, phase: 'performance', liquidationPriceTicks: liq,
      message: `Equity $${equity.toLocaleString('en-US')}.00 reached the maximum loss limit $48,000.00`,
    });
    expect(sim.index).toBe(3); // halted on the deciding bar: bar 3 is never processed
    // The phase ended: the order still working expired (a cancel by the trader would be Canceled).
    expect(protect.status).toBe(OrderStatus.Expired);
    expect(sim.engine.positionQty).toBe(0);
    expect(sim.engine.fills.at(-1)?.priceTicks).toBe(liq);
    expect(sim.state.balanceCents).toBe(usd(equity));
    expect(sim.state.status).toBe('violated');
    expect(sim.state.outcome).toEqual(r.outcome);
    expect(orderRefusal(sim.state, dayNo('2024-03-05'))).toEqual({ kind: 'challenge_inactive' });
    expect(orderRefusal(sim.state, dayNo('2024-03-06'))).toEqual({ kind: 'challenge_inactive' });
  });

  it('counts the fees already paid in equity', () => {
    // NQ with fees ($1.40 a side): long 1 at 80,000 leaves a balance of 49,998.60, so equity reaches
    // the 48,000 floor at 79,600.28: the touch price is 79,600, and the close pays its fee too.
    const sim = new ChallengeSim(newChallenge(P50_NO_DLL, 'performance'), P50_NO_DLL, [
      ['2024-03-05T15:00:00Z', 80_000],
      ['2024-03-05T15:00:01Z', 79_700, 79_700, 79_500, 79_550],
    ], NQ);
    sim.stepThen('buy market 1');
    const r = sim.step();
    expect(r.outcome?.liquidationPriceTicks).toBe(79_600);
    expect(r.outcome?.valueCents).toBe(usd(50_000 - 1.4 - 2_000));
    expect(sim.state.balanceCents).toBe(usd(50_000 - 2.8 - 2_000));
  });
});

describe('daily loss limit', () => {
  // Long 2 NQ at 80,000 ($10 a tick): the daily limit (1,000) touches at 79,900, the floor (48,000)
  // at 79,800. The bar crosses both; the higher floor was crossed first on the path and decides.
  const rows: BarRow[] = [
    ['2024-03-05T15:00:00Z', 80_000],
    ['2024-03-05T15:00:01Z', 79_950, 79_960, 79_700, 79_750],
    ['2024-03-05T15:00:02Z', 79_800],
    ['2024-03-05T23:00:00Z', 79_800], // 17:00 CST: trade date 2024-03-06 begins
  ];

  it('hard (default): a violation at the daily-limit price, before the maximum loss floor', () => {
    const sim = new ChallengeSim(newChallenge(P50), P50, rows);
    sim.stepThen('buy market 2');
    const r = sim.step();
    expect(r.outcome).toEqual({
      kind: 'violation', rule: 'dailyLossLimit', valueCents: usd(-1_000), limitCents: usd(-1_000),
      timeS: at('2024-03-05T15:00:01Z'), barIndex: 1, phase: 'evaluation', liquidationPriceTicks: 79_900,
      message: 'Daily net P&L -$1,000.00 reached the daily loss limit -$1,000.00',
    });
    expect([r.processed, sim.state.status, sim.state.balanceCents]).toEqual([1, 'violated', usd(49_000)]);
  });

  it('soft: flattens, cancels, goes on, and refuses orders until the next trade date', () => {
    const sim = new ChallengeSim(newChallenge(P50_SOFT), P50_SOFT, rows);
    sim.stepThen('buy market 2');
    const working = sim.place('sell limit 2 @80500');
    const r = sim.step(2);
    expect(r).toMatchObject({ processed: 2, halted: false, outcome: null });
    expect(r.softBreaches).toEqual([{
      kind: 'soft_breach', rule: 'dailyLossLimit', valueCents: usd(-1_000), limitCents: usd(-1_000),
      timeS: at('2024-03-05T15:00:01Z'), barIndex: 1, phase: 'evaluation', liquidationPriceTicks: 79_900,
      message: 'Daily net P&L -$1,000.00 reached the daily loss limit -$1,000.00: position flattened, ' +
        'orders canceled, no new orders until the next trade date',
    }]);
    expect([working.status, sim.engine.positionQty, sim.state.status]).toEqual([OrderStatus.Canceled, 0, 'active']);
    expect(sim.state.outcome).toBeNull();
    expect(orderRefusal(sim.state, dayNo('2024-03-05'))).toEqual({ kind: 'rejected', reason: SOFT_BREACH_REASON });
    expect(canPlaceOrders(sim.state, dayNo('2024-03-06'))).toBe(true);
    sim.step(1); // the first bar of 2024-03-06 clears the breach
    expect([sim.state.softBreachTradeDate, canPlaceOrders(sim.state, dayNo('2024-03-06'))]).toEqual([null, true]);
    expect(sim.state.dayStartEquityCents).toBe(usd(49_000));
  });

  it("measures the day from the equity at 17:00 CT, so an overnight position's gain is the new day's base", () => {
    // Long 1 held from 2024-03-05 into 2024-03-06 with +$500 open at the boundary: the new day's base
    // is $50,500, so a fall to 79,900 (−$500 in total) is −$1,000 on the day.
    const sim = new ChallengeSim(newChallenge(P50, 'performance'), P50, [
      ['2024-03-05T15:00:00Z', 80_000],
      ['2024-03-05T21:59:00Z', 80_100], // 15:59 CST
      ['2024-03-05T23:00:00Z', 80_100], // 17:00 CST: 2024-03-06
      ['2024-03-06T15:00:00Z', 80_050, 80_060, 79_850, 79_870],
    ]);
    sim.stepThen('buy market 1');
    sim.step(2);
    expect([sim.state.dayStartEquityCents, sim.state.floorCents]).toEqual([usd(50_500), usd(48_500)]);
    const r = sim.step();
    expect(r.outcome).toMatchObject({ rule: 'dailyLossLimit', valueCents: usd(-1_000), liquidationPriceTicks: 79_900 });
    expect(sim.state.balanceCents).toBe(usd(49_500));
  });
});

describe('pass', () => {
  // Three days of +$1,000 (one NQ, 200 ticks): $53,000 over 3 trading days, best day 1,000 < 50% of 3,000.
  it('halts at the bar whose take-profit fill completes the conditions', () => {
    const sim = new ChallengeSim(newChallenge(P50), P50, [
      ...roundTrip('2024-03-05', 80_000, 80_200),
      ...roundTrip('2024-03-06', 80_000, 80_200),
      ['2024-03-07T15:00:00Z', 80_000],
      ['2024-03-07T15:00:01Z', 80_050, 80_150, 80_040, 80_140],
      ['2024-03-07T15:00:02Z', 80_140, 80_260, 80_130, 80_250], // take-profit at 80,200
      ['2024-03-07T15:00:03Z', 80_250],
    ]);
    for (let d = 0; d < 2; d++) {
      sim.stepThen('buy market 1');
      sim.stepThen('sell market 1');
    }
    sim.stepThen('buy market 1 tp=200');
    const other = sim.place('buy limit 1 @79000');
    const r = sim.step();
    expect(r).toMatchObject({ processed: 2, halted: true });
    expect(r.outcome).toEqual({
      kind: 'pass', rule: null, valueCents: usd(53_000), limitCents: usd(53_000),
      timeS: at('2024-03-07T15:00:02Z'), barIndex: 6, phase: 'evaluation', liquidationPriceTicks: null,
      message: 'Evaluation passed: balance $53,000.00 reached the target $53,000.00 in 3 trading days',
    });
    expect([sim.index, other.status, sim.state.status]).toEqual([7, OrderStatus.Expired, 'passed']);
    expect(snapshotOf(sim.state)).toEqual({
      status: 'passed', isFunded: false, currentPhase: 'evaluation', tradingDaysCount: 3, drawdownLocked: true,
    });
  });

  it('passes on a closing market order (afterCommand), not while a position is open', () => {
    const sim = new ChallengeSim(newChallenge(P50), P50, [
      ...roundTrip('2024-03-05', 80_000, 80_200),
      ...roundTrip('2024-03-06', 80_000, 80_200),
      ...roundTrip('2024-03-07', 80_000, 80_200),
    ]);
    for (let d = 0; d < 3; d++) {
      sim.stepThen('buy market 2');
      if (d === 2) {
        sim.step(1);
        expect(sim.outcomes).toEqual([]); // $53,000 in equity, but the position is open
      }
      const close = d === 2 ? sim.place('sell market 1') : sim.stepThen('sell market 2');
      expect(close.status).toBe(OrderStatus.Filled);
    }
    expect(sim.outcomes).toEqual([]); // one contract still open at +$1,000
    sim.place('sell market 1');
    expect(sim.outcomes.map((o) => [o.kind, o.barIndex, o.valueCents])).toEqual([['pass', 5, usd(56_000)]]);
    expect(sim.state.status).toBe('passed');
  });
});

describe('trading days on the 17:00 CT boundary', () => {
  // One fill per bar; each bar's CME trade date. CST (UTC−6) before 2024-03-10, CDT (UTC−5) after;
  // back to CST on 2024-11-03. Friday evening belongs to Friday; Sunday 17:00 opens Monday.
  const rows: [string, string][] = [
    ['2024-03-07T22:59:59Z', '2024-03-07'], // Thu 16:59:59 CST
    ['2024-03-07T23:00:00Z', '2024-03-08'], // Thu 17:00 CST
    ['2024-03-08T23:30:00Z', '2024-03-08'], // Fri 17:30 CST: still Friday
    ['2024-03-10T22:00:00Z', '2024-03-11'], // Sun 17:00 CDT (first day of daylight time)
    ['2024-03-11T21:59:59Z', '2024-03-11'], // Mon 16:59:59 CDT
    ['2024-03-11T22:00:00Z', '2024-03-12'], // Mon 17:00 CDT
    ['2024-11-01T21:59:59Z', '2024-11-01'], // Fri 16:59:59 CDT
    ['2024-11-03T22:59:59Z', '2024-11-01'], // Sun 16:59:59 CST (after falling back): still Friday
    ['2024-11-03T23:00:00Z', '2024-11-04'], // Sun 17:00 CST
  ];

  it('dates each fill by its own trade date and counts distinct dates', () => {
    const plan: ChallengePlan = { ...P50, dailyLossLimitCents: 0 };
    const sim = new ChallengeSim(newChallenge(plan, 'performance'), plan, rows.map(([t]) => [t, 80_000]));
    const dates: string[] = [];
    for (let k = 0; k < rows.length; k++) {
      sim.stepThen(k % 2 === 0 ? 'buy market 1' : 'sell market 1');
      dates.push(new Date((sim.state.currentTradeDate as number) * 86_400_000).toISOString().slice(0, 10));
    }
    expect(dates).toEqual(rows.map(([, d]) => d));
    expect(sim.state.days.map((d) => [d.tradeDate, d.fillCount])).toEqual([
      [dayNo('2024-03-07'), 1], [dayNo('2024-03-08'), 2], [dayNo('2024-03-11'), 2], [dayNo('2024-03-12'), 1],
      [dayNo('2024-11-01'), 2], [dayNo('2024-11-04'), 1],
    ]);
    expect(snapshotOf(sim.state).tradingDaysCount).toBe(6);
  });
});
