// What a replay step asks the store for. The data-version check is a SQLite read; a step of n bars
// looks rollups up about n times, and used to check the version at every lookup (106 reads for a
// step of 100 1 m bars: the step-cost regression in bench/replay-step.bench.ts). A walk now reads
// each instrument's version once (BarSource.pinned), and again on the next call, so an import
// between two calls is still seen by the second.

import { describe, expect, it } from 'bun:test';
import { BarSource, type ChunkReader } from '../../src/data/bar-source.ts';
import { generateDay } from '../../src/data/generator.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { parseTimeframe, type Timeframe } from '../../src/domain/timeframe.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { OrderSide, OrderType } from '../../src/engine/types.ts';
import { LiveSession } from '../../src/service/replay/session.ts';

const D = 86_400;
const NQ = findInstrument('NQ') as Instrument;
const FIRST = Math.floor(Date.parse('2025-03-03') / 86_400_000); // a Monday
const SPAN = { firstDay: FIRST, lastDay: () => FIRST + 11 };

/** A synthetic-only source whose reader counts data-version reads; `version` may be bumped. */
function world() {
  const reads = { version: 0, dataVersion: 0 };
  const reader: ChunkReader = {
    get: () => null,
    daysStored: () => new Set<number>(),
    summary: () => null,
    dataVersion: () => {
      reads.dataVersion++;
      return reads.version;
    },
  };
  return { reads, source: new BarSource(reader, SPAN, 96, null) };
}

function timeframe(text: string): Timeframe {
  const tf = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
  if (!tf.ok) throw new Error(text);
  return tf.value;
}

function session(source: BarSource, tf: Timeframe, walk: 'ladder' | 'flat'): LiveSession {
  const engine = new SessionEngine(NQ, { startingBalanceCents: 5_000_000 });
  const first = generateDay(NQ, FIRST);
  engine.setLastPrice(first.open[0], FIRST * D - 1);
  // Far-away working orders, as a bot keeps: the walk checks every rollup bucket against them.
  engine.placeOrder({ type: OrderType.Limit, side: OrderSide.Buy, size: 1, limitTicks: first.open[0] - 40_000 }, FIRST * D);
  engine.placeOrder({ type: OrderType.Stop, side: OrderSide.Buy, size: 1, stopTicks: first.open[0] + 40_000 }, FIRST * D);
  const init = {
    accountId: 1, sessionId: 's', userId: 1, inst: NQ, tf, startS: FIRST * D, endS: (FIRST + 12) * D, cursorS: FIRST * D,
    currentIndex: 0, totalBars: 0, historyBars: 0,
  };
  const s = new LiveSession(init, engine, source, null, 0);
  s.walk = walk;
  return s;
}

describe('data-version reads per replay call', () => {
  it('a step of 100 1 m bars reads the version once, every step, on the ladder and on the flat walk', () => {
    for (const walk of ['ladder', 'flat'] as const) {
      const w = world();
      const s = session(w.source, timeframe('1m'), walk);
      const perStep: number[] = [];
      for (let k = 0; k < 30; k++) {
        const before = w.reads.dataVersion;
        expect(s.step(100).played).toBe(100);
        perStep.push(w.reads.dataVersion - before);
      }
      expect(perStep).toEqual(Array(30).fill(1));
    }
  });

  it('a jump across days and a prefetch read it once each; a prefetch of a day in memory not at all', () => {
    const w = world();
    const s = session(w.source, timeframe('1m'), 'ladder');
    let before = w.reads.dataVersion;
    expect(s.jumpTo((FIRST + 4) * D + 3_600).played).toBeGreaterThan(4_000);
    expect(w.reads.dataVersion - before).toBe(1);
    before = w.reads.dataVersion;
    s.prefetch();
    expect(w.reads.dataVersion - before).toBe(1);
    // The next day's rollups are in memory now: a prefetch reads nothing at all.
    before = w.reads.dataVersion;
    s.prefetch();
    expect(w.reads.dataVersion - before).toBe(0);
  });

  it('reads it again on the next call: a version bumped between steps drops the cached days', () => {
    const w = world();
    const s = session(w.source, timeframe('1h'), 'ladder');
    s.step(5);
    w.source.day(NQ, FIRST + 5); // a day the next step does not touch
    w.reads.version++;
    const before = w.reads.dataVersion;
    s.step(5);
    expect(w.reads.dataVersion - before).toBe(1);
    expect(w.source.isCached(NQ, FIRST + 5)).toBe(false);
  });

  it('a pin ends when its walk throws, and nested pins share the outer one', () => {
    const w = world();
    expect(() =>
      w.source.pinned(() => {
        w.source.day(NQ, FIRST);
        throw new Error('mid-walk');
      }),
    ).toThrow('mid-walk');
    const before = w.reads.dataVersion;
    w.source.pinned(() => {
      w.source.day(NQ, FIRST);
      w.source.pinned(() => w.source.rollup(NQ, FIRST, 60));
    });
    w.source.day(NQ, FIRST);
    expect(w.reads.dataVersion - before).toBe(2);
  });
});
