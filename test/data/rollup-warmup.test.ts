// The start-up warm-up keeps every instrument-day's rollups of the synthetic span, one slice per
// timer turn, without filling the day cache, and stops when told to.

import { describe, expect, it } from 'bun:test';
import { BarSource } from '../../src/data/bar-source.ts';
import { rollupWidthsFor } from '../../src/data/rollup.ts';
import { RollupWarmup } from '../../src/data/rollup-warmup.ts';
import { INSTRUMENTS } from '../../src/domain/instrument.ts';
import { BarChunkStore } from '../../src/store/bar-chunks.ts';
import { openDb } from '../../src/store/db.ts';
import { BarRollupStore } from '../../src/store/rollups.ts';
import { day } from './rollup-fixture.ts';

function world() {
  const db = openDb(':memory:');
  const chunks = new BarChunkStore(db);
  const rollups = new BarRollupStore(db);
  const span = { firstDay: day(2025, 3, 7), lastDay: () => day(2025, 3, 10) };
  return { db, rollups, source: new BarSource(chunks, span, 96, rollups), span };
}

describe('rollup warm-up', () => {
  it('keeps every instrument-day of the span, newest first, leaving the day cache alone', async () => {
    const w = world();
    const visited = await new Promise<number>((resolve) => new RollupWarmup(w.source, resolve).start());
    expect(visited).toBe(4 * INSTRUMENTS.length);
    for (const inst of INSTRUMENTS) {
      for (let d = w.span.firstDay; d <= w.span.lastDay(); d++) {
        for (const width of rollupWidthsFor(inst)) expect(w.rollups.get(inst.symbol, d, width, 1)).not.toBeNull();
        expect(w.source.isCached(inst, d)).toBe(false);
      }
    }
  });

  it('yields between instrument-days and stops before the next slice', async () => {
    const w = world();
    const warmup = new RollupWarmup(w.source, () => {
      throw new Error('should not finish');
    });
    warmup.start();
    expect(warmup.visited).toBe(0); // nothing runs before the first timer turn
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setTimeout(r, 0));
    warmup.stop();
    const seen = warmup.visited;
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(4 * INSTRUMENTS.length);
    await new Promise((r) => setTimeout(r, 50));
    expect(warmup.visited).toBe(seen);
  });
});
