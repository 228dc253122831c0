// Cost of the challenge rules in the matching loop, on 30 days of synthetic 1 s NQ bars (2,592,000).
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only challenge` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/challenge.bench.ts
//
// Both cases: 10 working limit orders far outside the data's range and a 1-lot long position, so
// nothing fills and the loop is the trigger scan. "engine" calls SessionEngine.processBars without a
// rule; "engine + ChallengeRule" runs the same bars through ChallengeRule.run in the performance
// phase with loss limits wide enough never to be reached: it pays for the rule's thresholds (the
// floor prices folded into the scan), a trade-date rollover at every 17:00 CT and the bookkeeping
// around the call. Issue target: the rule slows the loop by at most 20% (ratio ≤ 1.20).
// The two cases alternate run by run, so drift in machine speed hits both alike. Prints medians and
// the fastest run in M bars/s, then the ratio of the median times.

import type { ChallengePlan } from '../src/challenge/plans.ts';
import type { BarColumns } from '../src/data/bar-columns.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import { priceRange, syntheticBars } from './support.ts';
import { load } from './root.ts';

const { ChallengeRule } = await load<typeof import('../src/challenge/rules.ts')>('src/challenge/rules.ts');
const { planFor } = await load<typeof import('../src/challenge/plans.ts')>('src/challenge/plans.ts');
const { newChallenge } = await load<typeof import('../src/challenge/state.ts')>('src/challenge/state.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { tradeDateString } = await load<typeof import('../src/domain/trading-hours.ts')>('src/domain/trading-hours.ts');
const { SessionEngine } = await load<typeof import('../src/engine/engine.ts')>('src/engine/engine.ts');
type SessionEngine = import('../src/engine/engine.ts').SessionEngine;
const { OrderSide, OrderType } = await load<typeof import('../src/engine/types.ts')>('src/engine/types.ts');

const BAR_COUNT = 30 * 86_400;
const RUNS = 15;
const WARMUP_RUNS = 5;
const START_S = 1_704_067_200; // 2024-01-01T00:00:00Z
const NQ = findInstrument('NQ') as Instrument;
const BALANCE_CENTS = 1_000_000_000;

/** A plan at the bench's balance whose limits the synthetic walk never reaches. */
const PLAN: ChallengePlan = {
  ...planFor('150K'),
  startingBalanceCents: BALANCE_CENTS,
  maxLossLimitCents: 500_000_000,
  dailyLossLimitCents: 400_000_000,
};

/** 10 far limit orders (never filled) and a 1-lot long bought at the first open. */
function setup(b: BarColumns, lo: number, hi: number): SessionEngine {
  const e = new SessionEngine(NQ, { startingBalanceCents: BALANCE_CENTS });
  e.setLastPrice(b.open[0], b.time[0] - 1);
  for (let k = 0; k < 10; k++) {
    const buy = k % 2 === 0;
    const limitTicks = buy ? lo - 1000 - k : hi + 1000 + k;
    const side = buy ? OrderSide.Buy : OrderSide.Sell;
    const r = e.placeOrder({ type: OrderType.Limit, side, size: 1, limitTicks }, 0);
    if (!r.ok) throw new Error(r.error.reason);
  }
  const m = e.placeOrder({ type: OrderType.Market, side: OrderSide.Buy, size: 1 }, 0);
  if (!m.ok) throw new Error(m.error.reason);
  return e;
}

function timeMs(run: () => void): number {
  const t0 = performance.now();
  run();
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1];

const bars = syntheticBars(BAR_COUNT, START_S, NQ.genStartPriceTicks);
const [lo, hi] = priceRange(bars);
console.log(
  `${BAR_COUNT.toLocaleString('en-US')} synthetic 1 s NQ bars, 10 far orders + long 1, ${RUNS} runs each (alternating)`,
);
const plain: number[] = [];
const ruled: number[] = [];
let lastDate = '';
for (let k = 0; k < WARMUP_RUNS + RUNS; k++) {
  const e1 = setup(bars, lo, hi);
  const a = timeMs(() => e1.processBars(bars, 0, bars.length));
  const e2 = setup(bars, lo, hi);
  const rule = new ChallengeRule(newChallenge(PLAN, 'performance'), PLAN, e2);
  const b = timeMs(() => {
    const r = rule.run(bars, 0, bars.length);
    if (r.halted || r.processed !== bars.length) throw new Error('the rule halted the bench');
  });
  lastDate = tradeDateString(rule.state.currentTradeDate ?? 0);
  if (k < WARMUP_RUNS) continue;
  plain.push(a);
  ruled.push(b);
}
const rate = (ms: number): string => (BAR_COUNT / ms / 1000).toFixed(1).padStart(6);
for (const [name, xs] of [['engine', plain], ['engine + ChallengeRule', ruled]] as const) {
  console.log(`${name.padEnd(24)} median ${rate(median(xs))} M bars/s   fastest run ${rate(Math.min(...xs))} M bars/s`);
}
const ratio = median(ruled) / median(plain);
console.log(`ratio (median time with rule / without): ${ratio.toFixed(3)}  (target ≤ 1.20)`);
console.log(`the rule rolled trade dates up to ${lastDate} and never halted`);
