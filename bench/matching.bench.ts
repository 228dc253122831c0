// Matching-loop throughput on 30 days of synthetic 1 s NQ bars (2,592,000 bars).
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only matching` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/matching.bench.ts
//
// Cases: 0, 10 and 100 working orders placed far outside the data's range (they never fill, so this
// measures the trigger scan), 10 far orders plus a max-loss StopRule, a trading run where orders
// are re-placed around the price every hour and fill often, and one where every hour opens a
// position with a trailing stop-loss (its ratchet makes every bar with a new high a walked bar).
// Target: ≥ 100 M bars/s with 10 orders.
// Prints the median and the slowest of RUNS timed runs (M bars/s) after WARMUP_RUNS untimed ones.

import type { BarColumns } from '../src/data/bar-columns.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import type { EngineStateView, RuleThresholds, StopRule } from '../src/engine/stop-rule.ts';
import { priceRange, syntheticBars } from './support.ts';
import { load } from './root.ts';

const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { SessionEngine } = await load<typeof import('../src/engine/engine.ts')>('src/engine/engine.ts');
type SessionEngine = import('../src/engine/engine.ts').SessionEngine;
const { equityAtCents } = await load<typeof import('../src/engine/stop-rule.ts')>('src/engine/stop-rule.ts');
const { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, OrderSide, OrderType } = await load<typeof import('../src/engine/types.ts')>('src/engine/types.ts');
type OrderType = import('../src/engine/types.ts').OrderType;
type OrderSide = import('../src/engine/types.ts').OrderSide;

const BAR_COUNT = 30 * 86_400;
const RUNS = 9;
/** Untimed runs first, so the JIT has compiled the loop at its top tier before timing starts. */
const WARMUP_RUNS = 5;
const START_S = 1_704_067_200; // 2024-01-01T00:00:00Z
const NQ = findInstrument('NQ') as Instrument;

function newEngine(b: BarColumns): SessionEngine {
  const e = new SessionEngine(NQ, { startingBalanceCents: 1_000_000_000 });
  e.setLastPrice(b.open[0], b.time[0] - 1);
  return e;
}

/** Half buy limits below the data's low, half sell limits above its high: never filled. */
function placeFar(e: SessionEngine, count: number, lo: number, hi: number): void {
  for (let k = 0; k < count; k++) {
    const buy = k % 2 === 0;
    const limitTicks = buy ? lo - 1000 - k : hi + 1000 + k;
    const side = buy ? OrderSide.Buy : OrderSide.Sell;
    const r = e.placeOrder({ type: OrderType.Limit, side, size: 1, limitTicks }, 0);
    if (!r.ok) throw new Error(r.error.reason);
  }
}

/** Max-loss floor far below: consulted only if the price reaches the floor price. */
class FloorRule implements StopRule {
  constructor(private readonly floorCents: number) {}
  thresholds(s: EngineStateView, out: RuleThresholds): void {
    out.upTicks = NO_UP_TRIGGER_TICKS;
    out.downTicks = NO_DOWN_TRIGGER_TICKS;
    out.eventS = NO_EVENT_S;
    const q = s.positionQty;
    if (q === 0) return;
    const x = this.floorCents - s.balanceCents + s.positionCostTicks * s.tickValueCents;
    if (q > 0) out.downTicks = Math.floor(x / (q * s.tickValueCents));
    else out.upTicks = Math.ceil(x / (q * s.tickValueCents));
  }
  onTime(): 'continue' {
    return 'continue';
  }
  onPrice(_i: number, _t: number, s: EngineStateView, low: number, high: number, price: number): 'continue' | 'halt' {
    const adverse = s.positionQty > 0 ? low : s.positionQty < 0 ? high : price;
    return equityAtCents(s, adverse) <= this.floorCents ? 'halt' : 'continue';
  }
}

/** Every hour: flatten, then bracketed limits ±20 ticks and stops ±60 ticks around the price. */
function tradeHourly(e: SessionEngine, b: BarColumns): void {
  const hourBars = 3600;
  for (let from = 0; from < b.length; from += hourBars) {
    const nowS = e.lastTimeS;
    e.flatten(nowS);
    const p = e.lastPriceTicks;
    const place = (type: OrderType, side: OrderSide, price: number): void => {
      const limit = type === OrderType.Limit;
      e.placeOrder({ type, side, size: 1, limitTicks: limit ? price : null, stopTicks: limit ? null : price,
        slTicks: 40, tpTicks: 40 }, nowS);
    };
    place(OrderType.Limit, OrderSide.Buy, p - 20);
    place(OrderType.Limit, OrderSide.Sell, p + 20);
    place(OrderType.Stop, OrderSide.Buy, p + 60);
    place(OrderType.Stop, OrderSide.Sell, p - 60);
    e.processBars(b, from, Math.min(b.length, from + hourBars));
  }
}

/** Every hour: flatten, then a market buy with a 40-tick trailing stop-loss and a take-profit 160 ticks up. */
function trailHourly(e: SessionEngine, b: BarColumns): void {
  const hourBars = 3600;
  for (let from = 0; from < b.length; from += hourBars) {
    const nowS = e.lastTimeS;
    e.flatten(nowS);
    e.placeOrder({ type: OrderType.Market, side: OrderSide.Buy, size: 1, slTicks: 40, slType: OrderType.TrailingStop, tpTicks: 160, extendedTypes: true }, nowS);
    e.processBars(b, from, Math.min(b.length, from + hourBars));
  }
}

function measure(name: string, b: BarColumns, setup: () => SessionEngine, run: (e: SessionEngine) => void): void {
  const rates: number[] = [];
  let fills = 0;
  for (let k = 0; k < WARMUP_RUNS + RUNS; k++) {
    const e = setup();
    const t0 = performance.now();
    run(e);
    const ms = performance.now() - t0;
    if (k >= WARMUP_RUNS) rates.push(b.length / ms / 1000);
    fills = e.fills.length;
  }
  rates.sort((x, y) => x - y);
  const median = rates[rates.length >> 1];
  console.log(
    `${name.padEnd(34)} median ${median.toFixed(1).padStart(6)} M bars/s   slowest run ${rates[0].toFixed(1).padStart(6)}` +
      `   fills ${fills}`,
  );
}

const bars = syntheticBars(BAR_COUNT, START_S, NQ.genStartPriceTicks);
const [lo, hi] = priceRange(bars);
console.log(
  `${BAR_COUNT.toLocaleString('en-US')} synthetic 1 s NQ bars, price range ${lo}..${hi} ticks, ${RUNS} runs each`,
);
// Tier the scan up once before the first case, so the first case is not measured half-compiled.
for (let k = 0; k < 30; k++) newEngine(bars).processBars(bars, 0, bars.length);
for (const count of [0, 10, 100]) {
  measure(`${count} far orders`, bars, () => {
    const e = newEngine(bars);
    placeFar(e, count, lo, hi);
    return e;
  }, (e) => e.processBars(bars, 0, bars.length));
}
measure('10 far orders + long 1, floor rule', bars, () => {
  const e = newEngine(bars);
  placeFar(e, 10, lo, hi);
  e.placeOrder({ type: OrderType.Market, side: OrderSide.Buy, size: 1 }, 0);
  return e;
}, (e) => e.processBars(bars, 0, bars.length, new FloorRule(1_000)));
measure('hourly bracketed orders (fills)', bars, () => newEngine(bars), (e) => tradeHourly(e, bars));
measure('hourly trailing stop-loss (fills)', bars, () => newEngine(bars), (e) => trailHourly(e, bars));
