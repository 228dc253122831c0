// History reads rollups and returns exactly the bars it returns from stored bars alone: the same
// requests (forward and counted back, edges at arbitrary seconds inside rollup bars, preset and
// custom widths, calendar-free and across DST and imported days with gaps) through a HistoryService
// whose source has rollups and one whose source has none. Rollups must also read fewer bars.

import { beforeAll, describe, expect, it } from 'bun:test';
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { BarSource } from '../../src/data/bar-source.ts';
import type { Instrument } from '../../src/domain/instrument.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { isoFromEpochS } from '../../src/lib/iso-time.ts';
import { HistoryService, type HistoryPolicy, type HistoryRequest } from '../../src/service/history.ts';
import type { BarChunkStore } from '../../src/store/bar-chunks.ts';
import { SqliteSql } from '../../src/store/sql.ts';
import { UsageStore } from '../../src/store/usage.ts';
import { day, importAll, IMPORTED, inst, type RollupWorld, rollupWorld, SPAN } from './rollup-fixture.ts';

/**
 * A source without rollups: History falls back to stored bars everywhere (the flat path). Its days
 * are the rolled source's: the same stored bars, generated once for both paths instead of twice
 * (generation was most of this file's time); the test checks afterwards that they are still the
 * stored bars a source of its own would generate.
 */
class FlatSource extends BarSource {
  constructor(
    chunks: BarChunkStore,
    private readonly stored: BarSource,
  ) {
    super(chunks, SPAN, 96, null);
  }

  override rollup(): BarColumns | null {
    return null;
  }

  override day(instrument: Instrument, day: number): BarColumns {
    return this.stored.day(instrument, day);
  }
}

const UNITS: [number, number][] = [
  [1, 30], [2, 1], [2, 2], [2, 5], [2, 15], [2, 30], [2, 90], [3, 1], [3, 2], [3, 4], [4, 1], [4, 2],
];
const SYMBOLS = ['NQ', 'GC', 'EURUSD', 'ES', 'LIGHTCMDUSD'];
/** Windows around the DST changes and the imported days. */
const ANCHORS = [day(2025, 3, 7), IMPORTED.NQ, day(2025, 3, 28), day(2025, 10, 24), IMPORTED.GC, day(2025, 12, 30), IMPORTED.EURUSD - 3];

function columns(b: BarColumns) {
  const n = b.length;
  return [b.time, b.open, b.high, b.low, b.close, b.volume].map((c) => Array.from(c.subarray(0, n)));
}

describe('History over rollups', () => {
  let w: RollupWorld;
  let rolled: HistoryService;
  let flat: HistoryService;
  let usage: UsageStore;
  const clock = new ManualClock(Date.UTC(2026, 0, 10));
  beforeAll(async () => {
    w = rollupWorld();
    await importAll(w);
    usage = new UsageStore(new SqliteSql(w.db));
    const deps = { usage, clock, customTimeframes: true, isImporting: async () => false };
    rolled = new HistoryService({ ...deps, source: w.source });
    flat = new HistoryService({ ...deps, source: new FlatSource(w.chunks, w.source) });
  });

  it('returns bit-identical bars for forward and counted-back requests, reading fewer bars', async () => {
    let seed = 12_345;
    const rnd = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    let userId = 1;
    let rolledRead = 0;
    let flatRead = 0;
    let barsSeen = 0;
    const today = Math.floor(clock.nowMs() / 86_400_000);
    for (let k = 0; k < 150; k++) {
      const symbol = SYMBOLS[k % SYMBOLS.length];
      const [unit, unitNumber] = UNITS[rnd(UNITS.length)];
      const anchorS = ANCHORS[rnd(ANCHORS.length)] * 86_400;
      const startS = anchorS + rnd(4 * 86_400);
      const endS = startS + 1 + rnd(3 * 86_400);
      const back = rnd(3) === 0 ? 1 + rnd(300) : null;
      const req: HistoryRequest = {
        contractId: symbol,
        unit,
        unitNumber,
        startTime: back === null ? isoFromEpochS(startS) : null,
        endTime: back !== null && rnd(4) === 0 ? null : isoFromEpochS(endS),
        limit: rnd(4) === 0 ? 1 + rnd(500) : null,
        barsBack: back,
      };
      const policy: HistoryPolicy = { instrumentFor: () => inst(symbol), barsPerRequestMax: () => 20_000 };
      userId++;
      const a = await rolled.retrieve(userId, req, policy);
      const b = await flat.retrieve(userId + 1_000_000, req, policy);
      if (!a.ok || !b.ok) {
        // Refusals (a start after the instrument's data) are the same refusal.
        expect([k, a.ok ? null : a.error]).toEqual([k, b.ok ? null : b.error]);
        continue;
      }
      expect([k, columns(a.value.bars)]).toEqual([k, columns(b.value.bars)]);
      barsSeen += a.value.bars.length;
      rolledRead += (await usage.get(userId, today)).sourceBars;
      flatRead += (await usage.get(userId + 1_000_000, today)).sourceBars;
      expect((await usage.get(userId, today)).sourceBars).toBeLessThanOrEqual((await usage.get(userId + 1_000_000, today)).sourceBars);
    }
    expect(barsSeen).toBeGreaterThan(10_000);
    expect(rolledRead * 20).toBeLessThan(flatRead);
    // The days both paths read are still the stored bars: a source of its own generates the same.
    const own = new BarSource(w.chunks, SPAN, 96, null);
    for (const [symbol, d] of [['NQ', IMPORTED.NQ], ['GC', ANCHORS[3]], ['ES', ANCHORS[2]], ['EURUSD', ANCHORS[5]], ['LIGHTCMDUSD', ANCHORS[0]]] as const) {
      const read = w.source.day(inst(symbol), d);
      expect(read.length).toBeGreaterThan(0);
      expect([symbol, d, columns(read)]).toEqual([symbol, d, columns(own.day(inst(symbol), d))]);
    }
  }, 300_000); // CPU-heavy: a generous bound for a loaded machine

  it('a request ending inside rollup bars reads the partial piece finer (1 d ending at 14:30:07)', async () => {
    const policy: HistoryPolicy = { instrumentFor: () => inst('NQ'), barsPerRequestMax: () => 20_000 };
    const req = { contractId: 'NQ', unit: 4, unitNumber: 1, startTime: '2025-03-03T00:00:00Z', endTime: '2025-03-12T14:30:07Z', limit: null };
    const a = await rolled.retrieve(9_000_001, req, policy);
    const b = await flat.retrieve(9_000_002, req, policy);
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(columns(a.value.bars)).toEqual(columns(b.value.bars));
    const today = Math.floor(clock.nowMs() / 86_400_000);
    // Whole hours from 1 h rollups, 14:00–14:29 from 1 m, 14:30:00–14:30:06 from 1 s.
    expect((await usage.get(9_000_001, today)).sourceBars).toBeLessThan(250);
  });
});
