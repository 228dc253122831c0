// Rollups are exact: every rollup bar is the bar the Aggregator makes from the day's stored bars, for
// every instrument, on ordinary days, closed days, DST days, days with gaps and imported days (one
// replacing a synthetic day and merged into, one outside the synthetic span); served from memory,
// from the store after a restart, and never stale after an import.

import { beforeAll, describe, expect, it } from 'bun:test';
import { aggregateBars } from '../../src/data/aggregate.ts';
import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';
import { BarSource } from '../../src/data/bar-source.ts';
import { buildRollup, rollupWidthForTimeframe, rollupWidthsFor } from '../../src/data/rollup.ts';
import { INSTRUMENTS, type Instrument } from '../../src/domain/instrument.ts';
import { parseTimeframe } from '../../src/domain/timeframe.ts';
import { barsCsv, day, importAll, importCsv, IMPORTED, inst, type RollupWorld, rollupWorld, SPAN } from './rollup-fixture.ts';

/** The days every instrument is checked on. */
const DAYS = [
  day(2025, 1, 1), // first synthetic day (a holiday)
  day(2025, 3, 7), // Friday
  day(2025, 3, 8), // Saturday: closed
  day(2025, 3, 9), // US spring forward (Sunday open)
  day(2025, 3, 10), // Monday after; NQ imported with gaps
  day(2025, 3, 30), // EU summer time
  day(2025, 7, 4), // US holiday
  day(2025, 10, 26), // EU winter time
  day(2025, 11, 2), // US fall back; GC imported with gaps
  day(2025, 11, 3),
  day(2025, 12, 31), // last synthetic day
  day(2026, 1, 5), // outside the span; EURUSD imported
];

function tfOf(text: string) {
  const tf = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
  if (!tf.ok) throw new Error(text);
  return tf.value;
}

/** The reference: the day's stored bars through the Aggregator at `widthS`. */
function reference(bars: BarColumns, widthS: number): BarColumns {
  const out = allocBars(Math.max(bars.length, 1));
  out.length = aggregateBars(bars, 0, bars.length, tfOf(`${widthS / 60}m`), out, 0);
  return out;
}

function columns(b: BarColumns) {
  const n = b.length;
  return [b.time, b.open, b.high, b.low, b.close, b.volume].map((c) => Array.from(c.subarray(0, n)));
}

function expectExact(source: BarSource, i: Instrument, d: number): number {
  let bars = 0;
  for (const w of rollupWidthsFor(i)) {
    const r = source.rollup(i, d, w);
    expect(r).not.toBeNull();
    expect(columns(r as BarColumns)).toEqual(columns(reference(source.day(i, d), w)));
    bars += (r as BarColumns).length;
  }
  return bars;
}

describe('rollups', () => {
  let w: RollupWorld;
  beforeAll(async () => {
    w = rollupWorld();
    // Read some synthetic rollups first, so the imports below must replace kept synthetic rows.
    for (const d of [IMPORTED.NQ, IMPORTED.GC]) for (const i of INSTRUMENTS) for (const s of rollupWidthsFor(i)) w.source.rollup(i, d, s);
    await importAll(w);
  });

  it('keeps 1 h and 1 m for every instrument (both are multiples of 1 s and 10 s)', () => {
    for (const i of INSTRUMENTS) expect(rollupWidthsFor(i)).toEqual([3_600, 60]);
  });

  it('picks the coarsest rollup that divides the timeframe', () => {
    const nq = inst('NQ');
    const cases: [string, number][] = [
      ['1s', 0], ['30s', 0], ['1m', 60], ['5m', 60], ['30m', 60], ['90s', 0], ['2m', 60], ['1h', 3_600],
      ['4h', 3_600], ['90m', 60], ['1d', 3_600], ['2d', 3_600], ['1w', 3_600], ['1M', 3_600], ['1y', 3_600],
    ];
    for (const [text, width] of cases) expect([text, rollupWidthForTimeframe(nq, tfOf(text))]).toEqual([text, width]);
  });

  it('are bit-identical to aggregating the stored bars, for every instrument and day', () => {
    let bars = 0;
    for (const i of INSTRUMENTS) for (const d of DAYS) bars += expectExact(w.source, i, d);
    expect(bars).toBeGreaterThan(10_000);
  });

  it('imported days are served from the import (gaps kept), not from the generator', () => {
    const nq = inst('NQ');
    const hour = w.source.rollup(nq, IMPORTED.NQ, 3_600) as BarColumns;
    // 13:00–17:00 from the two files; the generator would fill the whole session.
    expect(Array.from(hour.time.subarray(0, hour.length)).map((t) => (t % 86_400) / 3_600)).toEqual([13, 14, 15, 16]);
    const gc = w.source.rollup(inst('GC'), IMPORTED.GC, 60) as BarColumns;
    expect(gc.length).toBe(120 - 10); // 22:00–24:00 less the minutes 22:50–22:59 (the gap ends at 23:00:10)
  });

  it('are served from the store after a restart, identical, for every instrument and day', () => {
    const fresh = new BarSource(w.chunks, SPAN, 96, w.rollups);
    for (const i of INSTRUMENTS) for (const d of DAYS) expectExact(fresh, i, d);
    const nq = w.rollups.footprint('NQ');
    expect(nq.days).toBeGreaterThanOrEqual(DAYS.length - 1);
  });

  it('an import replacing a day replaces its rollups, in the store and in every server memory', async () => {
    const other = new BarSource(w.chunks, SPAN, 96, w.rollups); // a second server on the same store
    const nq = inst('NQ');
    const d = day(2025, 3, 11);
    const before = columns(other.rollup(nq, d, 60) as BarColumns);
    const s0 = d * 86_400;
    await importCsv(w, 'NQ', 'nq-c.csv', barsCsv(nq, s0 + 3_600, s0 + 7_200 + 17, 1, 81_000));
    const after = other.rollup(nq, d, 60) as BarColumns;
    expect(columns(after)).not.toEqual(before);
    expect(after.length).toBe(61);
    expectExact(other, nq, d);
    expectExact(new BarSource(w.chunks, SPAN, 96, w.rollups), nq, d);
  });

  it('a rollup built before an import is not kept once the import changed the data version', () => {
    const nq = inst('NQ');
    const d = IMPORTED.NQ;
    const stale = buildRollup(allocBars(0), 60) as BarColumns;
    const version = w.chunks.dataVersion('NQ');
    w.rollups.putIfVersion('NQ', d, 60, { kind: 'synthetic', generatorVersion: 1 }, stale, version - 1);
    expect((w.rollups.get('NQ', d, 60, 1) as BarColumns).length).toBeGreaterThan(0);
    expectExact(new BarSource(w.chunks, SPAN, 96, w.rollups), nq, d);
  });

  it('synthetic rows of another generator version, or outside the span, are not served', () => {
    const eu = inst('EURUSD');
    const d = day(2025, 6, 2);
    w.source.rollup(eu, d, 3_600);
    expect(w.rollups.get('EURUSD', d, 3_600, 1)).not.toBeNull();
    expect(w.rollups.get('EURUSD', d, 3_600, 2)).toBeNull();
    expect(w.rollups.get('EURUSD', d, 3_600, null)).toBeNull();
    // An imported row is served whatever the span.
    expect(w.rollups.get('EURUSD', IMPORTED.EURUSD, 3_600, null)).not.toBeNull();
  });

  it('a day whose summed volume may have saturated has no rollup (read finer)', () => {
    const b = allocBars(2);
    b.length = 2;
    b.time.set([0, 1]);
    b.volume.set([0xffff_fff0, 0x20]);
    expect(buildRollup(b, 60)).toBeNull();
    b.volume.set([1, 2]);
    expect(buildRollup(b, 60)?.volume[0]).toBe(3);
  });
});
