// The analytic count of synthetic days must equal counting the generated bars themselves.
import { describe, expect, it } from 'bun:test';
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { BarSource, type ChunkReader } from '../../src/data/bar-source.ts';
import { BucketCounter, countBuckets } from '../../src/data/bucket-count.ts';
import { generateDay } from '../../src/data/generator.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { parseTimeframe } from '../../src/domain/timeframe.ts';
import { rampBars, secondsOf } from '../support/bars.ts';

const DAY_S = 86_400;
const FIRST = Math.floor(Date.parse('2025-03-05') / 86_400_000); // a Wednesday, before the DST change

function reader(stored: Map<number, BarColumns>): ChunkReader {
  return {
    get: (_s, day) => stored.get(day) ?? null,
    daysStored: (_s, a, b) => new Set([...stored.keys()].filter((d) => d >= a && d <= b)),
    summary: () => null,
    dataVersion: () => 0,
  };
}

describe('countBuckets', () => {
  it.each([
    ['NQ', '1s'], ['NQ', '1m'], ['NQ', '15m'], ['NQ', '4h'], ['NQ', '1d'], ['NQ', '1w'], ['NQ', '1M'],
    ['GC', '10s'], ['GC', '30s'], ['GC', '1h'], ['EURUSD', '5m'], ['EURUSD', '1d'],
  ])('%s %s over 9 synthetic days (with a weekend and the DST change) equals counting the generated bars', (sym, text) => {
    const inst = findInstrument(sym)!;
    const tf = parseTimeframe(text, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
    if (!tf.ok) throw new Error(text);
    const source = new BarSource(reader(new Map()), { firstDay: FIRST - 30, lastDay: () => FIRST + 30 });
    const fromS = FIRST * DAY_S + 3_600 + 7; // mid-slot start on purpose
    const toS = (FIRST + 9) * DAY_S - 1_800;
    const counter = new BucketCounter(tf.value);
    for (let d = FIRST; d < FIRST + 9; d++) {
      const bars = generateDay(inst, d);
      let a = 0;
      while (a < bars.length && bars.time[a] < fromS) a++;
      let b = a;
      while (b < bars.length && bars.time[b] < toS) b++;
      counter.count(bars.time, a, b);
    }
    expect(countBuckets(source, inst, tf.value, fromS, toS)).toBe(counter.total);
  });

  it('counts imported days from their bars and leaves out days with no data', () => {
    const inst = findInstrument('NQ')!;
    const tf = parseTimeframe('1m', { customEnabled: false, storedResolutionS: 1 });
    if (!tf.ok) throw new Error('tf');
    const day = Math.floor(secondsOf('2025-03-03T00:00:00Z') / DAY_S);
    const stored = new Map([[day, rampBars(secondsOf('2025-03-03T14:30:30Z'), 90, 80_000)]]);
    const source = new BarSource(reader(stored), { firstDay: 0, lastDay: () => -1 });
    // 14:30:30–14:31:59: two minutes touched.
    expect(countBuckets(source, inst, tf.value, day * DAY_S, (day + 5) * DAY_S)).toBe(2);
    expect(countBuckets(source, inst, tf.value, secondsOf('2025-03-03T14:31:00Z'), (day + 1) * DAY_S)).toBe(1);
  });
});
