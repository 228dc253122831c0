// Synthetic market generator throughput: 10 consecutive weekdays of NQ (1 s bars, 82,800 a day) and
// of GC (10 s bars, 8,280 a day), generated day by day as the data layer asks for them.
// Target (bench/README.md): well above 10 M bars/s for 1 s bars; a day of NQ in a few ms. The first (warm-up)
// runs also pay for building the daily anchor path, which later runs find cached.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only generator` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/generator.bench.ts

import type { Instrument } from '../src/domain/instrument.ts';
import { median } from './support.ts';
import { load } from './root.ts';

const { generateDay } = await load<typeof import('../src/data/generator.ts')>('src/data/generator.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { weekdayOf } = await load<typeof import('../src/domain/trading-hours.ts')>('src/domain/trading-hours.ts');

const WEEKDAYS = 10;
const RUNS = 15;
const WARMUP_RUNS = 3;

function weekdaysFrom(firstDay: number, count: number): number[] {
  const days: number[] = [];
  for (let d = firstDay; days.length < count; d++) {
    const w = weekdayOf(d);
    if (w !== 0 && w !== 6) days.push(d);
  }
  return days;
}

function bench(inst: Instrument, days: number[]): void {
  const ms: number[] = [];
  let bars = 0;
  for (let r = 0; r < WARMUP_RUNS + RUNS; r++) {
    bars = 0;
    const t0 = Bun.nanoseconds();
    for (const d of days) bars += generateDay(inst, d).length;
    const elapsedMs = (Bun.nanoseconds() - t0) / 1e6;
    if (r >= WARMUP_RUNS) ms.push(elapsedMs);
  }
  const medianMs = median(ms);
  const minMs = Math.min(...ms);
  const perS = (m: number): string => `${((bars / m) * 1e3 / 1e6).toFixed(1)} M bars/s`;
  console.log(
    `${inst.symbol.padEnd(4)} ${days.length} days, ${bars.toLocaleString('en-US')} bars ` +
      `(${inst.storedResolutionS} s): ` +
      `median ${medianMs.toFixed(1)} ms (${perS(medianMs)}, ${(medianMs / days.length).toFixed(2)} ms/day), ` +
      `min ${minMs.toFixed(1)} ms (${perS(minMs)})`,
  );
}

const days = weekdaysFrom(daysFromCivil(2025, 3, 3), WEEKDAYS);
for (const symbol of ['NQ', 'GC']) {
  const inst = findInstrument(symbol);
  if (inst === undefined) throw new Error(`${symbol} missing from the catalog`);
  bench(inst, days);
}
