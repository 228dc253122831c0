// The hierarchical replay walk (engine/ladder-walk.ts) side by side with the flat walk over every
// stored bar, on LiveSession directly (no HTTP, no store): synthetic NQ days from the generator,
// rollups warm in the BarSource's memory (each day's 1 h and 1 m rollups read once first), the day
// cache of 96 days as in production.
// Cases (targets in bench/README.md):
// 1. Replay/step of 100 × 1 d bars, orders far away (≤ 20 ms).
// 2. jumpTo two years ahead on a 1 h session with 20 far orders (≤ 100 ms).
// 3. A jump where orders trigger: cost per walked (triggered) stretch, counted as processBars calls.
// 4. Matching over 30 days of 1 s NQ with 10 working orders near the price, re-placed as they fill,
//    a day per jump: ladder vs flat (should be ≥ 1×).
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only replay-ladder` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/replay-ladder.bench.ts

import type { BarColumns } from '../src/data/bar-columns.ts';
import type { ChunkReader } from '../src/data/bar-source.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import type { Timeframe } from '../src/domain/timeframe.ts';
import { load } from './root.ts';

const { BarSource } = await load<typeof import('../src/data/bar-source.ts')>('src/data/bar-source.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil, parseTimeframe } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { SessionEngine } = await load<typeof import('../src/engine/engine.ts')>('src/engine/engine.ts');
type SessionEngine = import('../src/engine/engine.ts').SessionEngine;
const { OrderSide, OrderType } = await load<typeof import('../src/engine/types.ts')>('src/engine/types.ts');
const { LiveSession } = await load<typeof import('../src/service/replay/session.ts')>('src/service/replay/session.ts');
type LiveSession = import('../src/service/replay/session.ts').LiveSession;

const D = 86_400;
const NQ = findInstrument('NQ') as Instrument;
const FIRST = daysFromCivil(2023, 1, 2);
const LAST = FIRST + 800;
const reader: ChunkReader = {
  get: () => null,
  daysStored: () => new Set<number>(),
  summary: () => null,
  dataVersion: () => 0,
};
const source = new BarSource(reader, { firstDay: FIRST, lastDay: () => LAST }, 96, null);

const tfOf = (t: string): Timeframe => {
  const r = parseTimeframe(t, { customEnabled: true, storedResolutionS: 1 });
  if (!r.ok) throw new Error(t);
  return r.value;
};
const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

function session(tf: Timeframe, startS: number, walk: 'ladder' | 'flat'): LiveSession {
  const engine = new SessionEngine(NQ, { startingBalanceCents: 100_000_000 });
  const first = source.rollup(NQ, Math.floor(startS / D), 3_600) as BarColumns;
  engine.setLastPrice(first.length > 0 ? first.open[0] : 80_000, startS - 1);
  const init = {
    accountId: 1, sessionId: 's', userId: 1, inst: NQ, tf, startS, endS: (LAST + 1) * D, cursorS: startS,
    currentIndex: 0, totalBars: 0, historyBars: 0,
  };
  const s = new LiveSession(init, engine, source, null, 0);
  s.walk = walk;
  return s;
}

function farOrders(s: LiveSession, n: number): void {
  const p = s.engine.lastPriceTicks;
  for (let k = 0; k < n; k++) {
    const side = k % 2 === 0 ? OrderSide.Buy : OrderSide.Sell;
    const limitTicks = side === OrderSide.Buy ? p - 200_000 - k : p + 200_000 + k;
    s.engine.placeOrder({ type: OrderType.Limit, side, size: 1, limitTicks }, s.nowS);
  }
}

/** Keeps `n` limit orders working within ±`spreadTicks` of the price, alternating sides. */
function nearOrders(s: LiveSession, n: number, spreadTicks: number, seq: { k: number }): void {
  while (s.engine.book.size < n) {
    const p = s.engine.lastPriceTicks;
    const k = seq.k++;
    const side = k % 2 === 0 ? OrderSide.Buy : OrderSide.Sell;
    const off = 1 + ((k * 37) % spreadTicks);
    const stop = k % 3 === 0;
    const priceTicks = side === OrderSide.Buy ? (stop ? p + off : p - off) : (stop ? p - off : p + off);
    const r = stop
      ? s.engine.placeOrder({ type: OrderType.Stop, side, size: 1, stopTicks: priceTicks }, s.nowS)
      : s.engine.placeOrder({ type: OrderType.Limit, side, size: 1, limitTicks: priceTicks }, s.nowS);
    if (!r.ok) throw new Error(r.error.reason);
  }
}

function time(f: () => void): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

function warmRollups(fromDay: number, toDay: number): void {
  const t0 = performance.now();
  for (let d = fromDay; d <= toDay; d++) for (const w of [3_600, 60]) source.rollup(NQ, d, w);
  console.log(`warm-up: rollups of days ${fromDay}..${toDay} built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

let processCalls = 0;
const processBars = SessionEngine.prototype.processBars;
SessionEngine.prototype.processBars = function (this: SessionEngine, ...a: Parameters<typeof processBars>) {
  processCalls++;
  return processBars.apply(this, a);
};

// Two years and a bit of rollups, built once (as the start-up warm-up does).
warmRollups(FIRST, FIRST + 740);

// 1. Step of 100 × 1 d bars, far orders.
{
  const runs: Record<string, number[]> = { ladder: [], flat: [] };
  for (let r = 0; r < 3; r++) {
    for (const walk of ['ladder', 'flat'] as const) {
      const s = session(tfOf('1d'), (FIRST + 200 + r * 110) * D, walk);
      farOrders(s, 20);
      runs[walk].push(time(() => s.step(100)));
    }
  }
  const l = median(runs.ladder);
  const f = median(runs.flat);
  console.log(`step 100 × 1d, 20 far orders: ladder ${l.toFixed(1)} ms, flat ${f.toFixed(1)} ms (×${(f / l).toFixed(0)})`);
}

// 2. jumpTo two years on a 1 h session, 20 far orders.
{
  const runs: Record<string, number[]> = { ladder: [], flat: [] };
  for (let r = 0; r < 3; r++) {
    for (const walk of ['ladder', 'flat'] as const) {
      if (walk === 'flat' && r > 0) continue; // ~10 s a run
      const s = session(tfOf('1h'), (FIRST + 3) * D, walk);
      farOrders(s, 20);
      runs[walk].push(time(() => s.jumpTo((FIRST + 3 + 730) * D)));
    }
  }
  const l = median(runs.ladder);
  const f = median(runs.flat);
  console.log(`jumpTo +2 years on 1h, 20 far orders: ladder ${l.toFixed(1)} ms (median of 3), flat ${f.toFixed(0)} ms (1 run) (×${(f / l).toFixed(0)})`);
}

// 3 and 4. 30 days of 1 s NQ, 10 orders near the price, a day per jump.
for (const spread of [20, 200]) {
  const res: Record<string, { ms: number; fills: number; calls: number }> = {};
  for (const walk of ['flat', 'ladder'] as const) {
    const times: number[] = [];
    let fills = 0;
    let calls = 0;
    for (let r = 0; r < 3; r++) {
      const s = session(tfOf('1m'), (FIRST + 400) * D, walk);
      const seq = { k: 0 };
      // Days in the day cache for both walks: the comparison is of the walk, not of generation.
      for (let d = 0; d < 31; d++) source.day(NQ, FIRST + 400 + d);
      processCalls = 0;
      let ms = 0;
      for (let d = 1; d <= 30; d++) {
        nearOrders(s, 10, spread, seq);
        ms += time(() => s.jumpTo((FIRST + 400 + d) * D));
      }
      times.push(ms);
      fills = s.engine.fills.length;
      calls = processCalls;
    }
    res[walk] = { ms: median(times), fills, calls };
  }
  const l = res.ladder;
  const f = res.flat;
  console.log(
    `30 days 1 s NQ, 10 orders within ±${spread} ticks (${f.fills} fills): ladder ${l.ms.toFixed(0)} ms, flat ${f.ms.toFixed(0)} ms ` +
      `(flat/ladder ×${(f.ms / l.ms).toFixed(2)}); ladder walked ${l.calls} stored stretches, ` +
      `${((l.ms * 1000) / Math.max(1, l.calls)).toFixed(1)} µs each (all costs included)`,
  );
}
