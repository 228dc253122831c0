// Aggregation throughput: 30 days of synthetic 1 s NQ-like bars (86,400 per day, 2,592,000 in all)
// aggregated 1 s → 1 m and 1 s → 1 h, streamed one whole-day column chunk at a time (as the store
// hands them out) and one-shot over one contiguous 30-day column set.
// Targets (bench/README.md): ≥ 80 M source bars/s for 1 s → 1 m, ≥ 150 M for 1 s → 1 h, median.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only aggregate` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/aggregate.bench.ts

import type { BarColumns } from '../src/data/bar-columns.ts';
import type { Timeframe } from '../src/domain/timeframe.ts';
import { median } from './support.ts';
import { load } from './root.ts';

const { Aggregator, aggregateBars } = await load<typeof import('../src/data/aggregate.ts')>('src/data/aggregate.ts');
const { allocBars, sliceBars } = await load<typeof import('../src/data/bar-columns.ts')>('src/data/bar-columns.ts');
const { parseTimeframe } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');

const DAYS = 30;
const BARS_PER_DAY = 86_400;
const START_S = 1_704_067_200; // 2024-01-01 00:00 UTC
const RUNS = 15;
const WARMUP_RUNS = 3;

/** A cheap deterministic random walk in ticks around 16,800.00 (NQ), one bar per second. */
function buildBars(): BarColumns {
  const n = DAYS * BARS_PER_DAY;
  const bars = allocBars(n);
  let seed = 0x9e3779b9;
  let price = 16_800 * 4;
  for (let i = 0; i < n; i++) {
    // xorshift32: enough noise for a walk, no allocation.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    const r = seed >>> 0;
    const open = price;
    price += (r % 5) - 2;
    bars.time[i] = START_S + i;
    bars.open[i] = open;
    bars.close[i] = price;
    bars.high[i] = Math.max(open, price) + ((r >>> 8) & 1);
    bars.low[i] = Math.min(open, price) - ((r >>> 9) & 1);
    bars.volume[i] = 1 + ((r >>> 10) & 15);
  }
  bars.length = n;
  return bars;
}

function timeframe(text: string): Timeframe {
  const r = parseTimeframe(text, { customEnabled: false, storedResolutionS: 1 });
  if (!r.ok) throw new Error(`bad timeframe ${text}`);
  return r.value;
}

/** Runs `fn` RUNS times after warm-up; returns elapsed milliseconds per run. */
function time(fn: () => number, expectedBars: number): number[] {
  const ms: number[] = [];
  for (let r = 0; r < WARMUP_RUNS + RUNS; r++) {
    const t0 = Bun.nanoseconds();
    const written = fn();
    const t1 = Bun.nanoseconds();
    if (written !== expectedBars) throw new Error(`wrote ${written} bars, expected ${expectedBars}`);
    if (r >= WARMUP_RUNS) ms.push((t1 - t0) / 1e6);
  }
  return ms;
}

function report(label: string, sourceBars: number, ms: number[], targetPerS: number): void {
  const med = median(ms);
  const best = Math.min(...ms);
  const perS = (x: number) => (sourceBars / (x / 1000) / 1e6).toFixed(1);
  const verdict = (sourceBars / (med / 1000)) >= targetPerS ? 'meets' : 'MISSES';
  console.log(
    `${label.padEnd(34)} median ${med.toFixed(2).padStart(6)} ms  ${perS(med).padStart(6)} M bars/s` +
      `  (best ${best.toFixed(2)} ms, ${perS(best)} M/s)  ${verdict} ${targetPerS / 1e6} M/s`,
  );
}

const all = buildBars();
// Whole-day chunks, as separate column sets (the store's unit of loading).
const days: BarColumns[] = [];
for (let d = 0; d < DAYS; d++) {
  const chunk = allocBars(BARS_PER_DAY);
  const view = sliceBars(all, d * BARS_PER_DAY, (d + 1) * BARS_PER_DAY);
  chunk.time.set(view.time);
  chunk.open.set(view.open);
  chunk.high.set(view.high);
  chunk.low.set(view.low);
  chunk.close.set(view.close);
  chunk.volume.set(view.volume);
  chunk.length = BARS_PER_DAY;
  days.push(chunk);
}

const cases: [string, number][] = [
  ['1m', 80e6],
  ['1h', 150e6],
];
console.log(`aggregate: ${all.length.toLocaleString('en-US')} source bars (${DAYS} days of 1 s), ${RUNS} runs each`);
for (const [text, target] of cases) {
  const tf = timeframe(text);
  const expected = (DAYS * BARS_PER_DAY) / tf.widthS;
  const out = allocBars(expected);
  const streamed = time(() => {
    out.length = 0;
    const agg = new Aggregator(tf, out);
    for (const day of days) agg.push(day);
    agg.flush();
    return out.length;
  }, expected);
  report(`1s → ${text} streamed, day chunks`, all.length, streamed, target);
  const oneShot = time(() => aggregateBars(all, 0, all.length, tf, out, 0), expected);
  report(`1s → ${text} one-shot, contiguous`, all.length, oneShot, target);
}
