// Rollups built off the main thread (data/rollup-builder.ts, a Worker) are the main thread's, bit for
// bit; a prepare keeps them where the walk looks (memory and store) and builds only what is missing;
// the warm-up hands synthetic days to the builder; a closed builder refuses its requests.

import { afterEach, describe, expect, it } from 'bun:test';
import { BarSource } from '../../src/data/bar-source.ts';
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { generateDay } from '../../src/data/generator.ts';
import { buildRollup, rollupWidthsFor } from '../../src/data/rollup.ts';
import { RollupBuilder } from '../../src/data/rollup-builder.ts';
import { RollupWarmup } from '../../src/data/rollup-warmup.ts';
import { findInstrument, INSTRUMENTS, type Instrument } from '../../src/domain/instrument.ts';
import { BarChunkStore } from '../../src/store/bar-chunks.ts';
import { openDb } from '../../src/store/db.ts';
import { BarRollupStore } from '../../src/store/rollups.ts';
import { day } from './rollup-fixture.ts';

const NQ = findInstrument('NQ') as Instrument;

function columns(b: BarColumns | null) {
  if (b === null) return null;
  const n = b.length;
  const c = (a: Uint32Array | Int32Array) => Array.from(a.subarray(0, n));
  return { n, time: c(b.time), open: c(b.open), high: c(b.high), low: c(b.low), close: c(b.close), volume: c(b.volume) };
}

const builders: RollupBuilder[] = [];
function builder(workers = 1): RollupBuilder {
  const b = new RollupBuilder(workers);
  builders.push(b);
  return b;
}
afterEach(() => {
  for (const b of builders.splice(0)) b.close();
});

function world(withBuilder: RollupBuilder | null) {
  const db = openDb(':memory:');
  const chunks = new BarChunkStore(db);
  const rollups = new BarRollupStore(db);
  const span = { firstDay: day(2024, 12, 27), lastDay: () => day(2025, 1, 6) };
  return { db, chunks, rollups, span, source: new BarSource(chunks, span, 96, rollups, withBuilder) };
}

describe('rollup builder (worker)', () => {
  it('builds every instrument’s rollups exactly as the main thread does, trading days, weekends and holidays', async () => {
    const b = builder(2);
    // A Friday, a Saturday (no bars), a Sunday (futures reopen), Christmas, New Year's Day.
    const days = [day(2025, 3, 7), day(2025, 3, 8), day(2025, 3, 9), day(2024, 12, 25), day(2025, 1, 1)];
    const pending = INSTRUMENTS.flatMap((inst) => days.map(async (d) => ({ inst, d, built: await b.build(inst, d) })));
    let compared = 0;
    for (const { inst, d, built } of await Promise.all(pending)) {
      const bars = generateDay(inst, d);
      expect(built.map((r) => r.widthS)).toEqual([...rollupWidthsFor(inst)]);
      for (const r of built) {
        expect(columns(r.bars)).toEqual(columns(buildRollup(bars, r.widthS)));
        compared += r.bars?.length ?? 0;
      }
    }
    expect(compared).toBeGreaterThan(10_000);
    expect(b.built).toBe(INSTRUMENTS.length * days.length);
  }, 300_000); // CPU-heavy: a generous bound for a loaded machine

  it('shares one build between requests for the same instrument-day', async () => {
    const b = builder();
    const d = day(2025, 3, 7);
    const [x, y] = await Promise.all([b.build(NQ, d), b.build(NQ, d)]);
    expect(x).toBe(y);
    expect(b.built).toBe(1);
  });

  it('refuses waiting and later requests once closed', async () => {
    const b = builder();
    const first = b.build(NQ, day(2025, 3, 5));
    const second = b.build(NQ, day(2025, 3, 6));
    b.close();
    await expect(first).rejects.toThrow('closed');
    await expect(second).rejects.toThrow('closed');
    await expect(b.build(NQ, day(2025, 3, 7))).rejects.toThrow('closed');
  });
});

describe('BarSource.prepareRollups', () => {
  it('keeps the missing synthetic days in memory and the store, equal to building them on the main thread', async () => {
    const b = builder();
    const w = world(b);
    const main = world(null);
    const first = w.span.firstDay;
    const last = w.span.lastDay();
    const ready = w.source.prepareRollups(NQ, first - 5, last + 5); // clipped to the synthetic span
    expect(ready).not.toBeNull();
    await ready;
    expect(b.built).toBe(last - first + 1);
    for (const width of rollupWidthsFor(NQ)) {
      expect(w.rollups.daysKept('NQ', first, last, 1, 1).size).toBe(last - first + 1);
      for (let d = first; d <= last; d++) {
        expect(columns(w.rollups.get('NQ', d, width, 1))).toEqual(columns(main.source.rollup(NQ, d, width)));
        expect(columns(w.source.rollup(NQ, d, width))).toEqual(columns(main.source.rollup(NQ, d, width)));
      }
    }
    // Nothing missing now: nothing to wait for, nothing built again; the day cache was not filled.
    expect(w.source.prepareRollups(NQ, first, last)).toBeNull();
    expect(b.built).toBe(last - first + 1);
    for (let d = first; d <= last; d++) expect(w.source.isCached(NQ, d)).toBe(false);
  });

  it('leaves imported days and kept days alone, and is a no-op without a builder', async () => {
    const b = builder();
    const w = world(b);
    const imported = day(2025, 1, 2);
    const bars = generateDay(NQ, imported);
    for (let i = 0; i < bars.length; i++) bars.close[i] = bars.open[i];
    w.chunks.put('NQ', imported, 'import', bars);
    await w.source.prepareRollups(NQ, day(2025, 1, 1), day(2025, 1, 3));
    expect(b.built).toBe(2);
    expect(w.rollups.daysKept('NQ', imported, imported, 2, 1).size).toBe(0);
    // The walk builds the imported day's from its stored bars, as before.
    expect(columns(w.source.rollup(NQ, imported, 60))).toEqual(columns(buildRollup(bars, 60)));
    expect(world(null).source.prepareRollups(NQ, day(2025, 1, 1), day(2025, 1, 3))).toBeNull();
  });
});

describe('rollup warm-up with a builder', () => {
  it('keeps every instrument-day of the span through the worker, equal to the main thread’s, day cache untouched', async () => {
    const b = builder();
    const w = world(b);
    const main = world(null);
    const visited = await new Promise<number>((resolve) => new RollupWarmup(w.source, resolve).start());
    const days = w.span.lastDay() - w.span.firstDay + 1;
    expect(visited).toBe(days * INSTRUMENTS.length);
    expect(b.built).toBe(days * INSTRUMENTS.length);
    for (const inst of INSTRUMENTS) {
      for (let d = w.span.firstDay; d <= w.span.lastDay(); d++) {
        for (const width of rollupWidthsFor(inst)) {
          expect(columns(w.rollups.get(inst.symbol, d, width, 1))).toEqual(columns(main.source.rollup(inst, d, width)));
        }
        expect(w.source.isCached(inst, d)).toBe(false);
      }
    }
  }, 300_000); // CPU-heavy: a generous bound for a loaded machine
});
