// The hierarchical replay walk (engine/ladder-walk.ts through LiveSession) against the flat walk over
// every stored bar: random order books (limits, stops, stop-limits, brackets, market entries between
// walks), random challenge floors and daily limits, synthetic days and imported days with gaps.
// Fill for fill, balances, halts, outcomes, engine and challenge state must be identical.

import { describe, expect, it } from 'bun:test';
import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';
import { BarSource, type ChunkReader } from '../../src/data/bar-source.ts';
import { generateDay } from '../../src/data/generator.ts';
import { walkLadder, type LadderHost } from '../../src/engine/ladder-walk.ts';
import { type ChallengePlan, planFor } from '../../src/challenge/plans.ts';
import { ChallengeRule } from '../../src/challenge/rules.ts';
import { newChallenge } from '../../src/challenge/state.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { parseTimeframe, type Timeframe } from '../../src/domain/timeframe.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { OrderSide, OrderType } from '../../src/engine/types.ts';
import { type AdvanceResult, LiveSession } from '../../src/service/replay/session.ts';
import { importedDay, rng } from '../support/gappy-days.ts';

const D = 86_400;
const NQ = findInstrument('NQ') as Instrument;
const FIRST = Math.floor(Date.parse('2025-03-05') / 86_400_000); // a Wednesday
const SPAN = { firstDay: FIRST, lastDay: () => FIRST + 6 };

function world(): BarSource {
  const stored = new Map<number, BarColumns>();
  const base = generateDay(NQ, FIRST);
  const baseTicks = base.close[base.length - 1];
  stored.set(FIRST + 1, importedDay(FIRST + 1, baseTicks, 11));
  stored.set(FIRST + 3, importedDay(FIRST + 3, baseTicks, 23));
  const reader: ChunkReader = {
    get: (_s, day) => stored.get(day) ?? null,
    daysStored: (_s, a, b) => new Set([...stored.keys()].filter((d) => d >= a && d <= b)),
    summary: () => null,
    dataVersion: () => 0,
  };
  return new BarSource(reader, SPAN, 96, null);
}

const TIMEFRAMES: Timeframe[] = ['30s', '1m', '5m', '1h', '4h', '1d'].map((text) => {
  const tf = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
  if (!tf.ok) throw new Error(text);
  return tf.value;
});

interface Side {
  session: LiveSession;
  engine: SessionEngine;
  rule: ChallengeRule | null;
}

function side(source: BarSource, tf: Timeframe, startS: number, plan: ChallengePlan | null, walk: 'ladder' | 'flat', lastTicks: number): Side {
  const engine = new SessionEngine(NQ, { startingBalanceCents: plan?.startingBalanceCents ?? 5_000_000 });
  engine.setLastPrice(lastTicks, startS - 1);
  const rule = plan ? new ChallengeRule(newChallenge(plan), plan, engine) : null;
  const init = {
    accountId: 1, sessionId: 's', userId: 1, inst: NQ, tf, startS, endS: (FIRST + 7) * D, cursorS: startS,
    currentIndex: 0, totalBars: 0, historyBars: 0,
  };
  const session = new LiveSession(init, engine, source, rule ? { accountId: 1, rule } : null, 0);
  session.walk = walk;
  return { session, engine, rule };
}

function randomPlan(r: () => number): ChallengePlan | null {
  if (r() < 0.3) return null;
  const base = planFor('50K');
  return {
    ...base,
    maxLossLimitCents: 20_000 + Math.floor(r() * 300_000),
    dailyLossLimitCents: r() < 0.5 ? 0 : 10_000 + Math.floor(r() * 150_000),
    dailyLossMode: r() < 0.5 ? 'soft' : 'hard',
    profitTargetCents: 20_000 + Math.floor(r() * 400_000),
  };
}

/** One random order request, priced around `lastTicks`. */
function randomOrder(r: () => number, lastTicks: number) {
  const kind = r();
  const side = r() < 0.5 ? OrderSide.Buy : OrderSide.Sell;
  const size = 1 + Math.floor(r() * 3);
  const off = () => Math.round((r() - 0.5) * 2 * (r() < 0.5 ? 40 : 600));
  const bracket = r() < 0.5 ? { slTicks: 1 + Math.floor(r() * 300), tpTicks: 1 + Math.floor(r() * 300) } : {};
  if (kind < 0.15) return { type: OrderType.Market, side, size, ...bracket };
  if (kind < 0.45) return { type: OrderType.Limit, side, size, limitTicks: lastTicks + off(), ...bracket };
  if (kind < 0.75) return { type: OrderType.Stop, side, size, stopTicks: lastTicks + off(), ...bracket };
  const stopTicks = lastTicks + off();
  return { type: OrderType.StopLimit, side, size, stopTicks, limitTicks: stopTicks + Math.round((r() - 0.5) * 40), ...bracket };
}

function view(s: Side, res: AdvanceResult | null) {
  return {
    res: res && { ...res, bars: res.bars && Array.from(res.bars.close.subarray(0, res.bars.length)) },
    barsTime: res?.bars && Array.from(res.bars.time.subarray(0, res.bars.length)),
    barsVol: res?.bars && Array.from(res.bars.volume.subarray(0, res.bars.length)),
    cursorS: s.session.cursorS,
    index: s.session.currentIndex,
    engine: s.engine.serialize(),
    challenge: s.rule ? JSON.parse(JSON.stringify(s.rule.state)) : null,
  };
}

function runCase(source: BarSource, seed: number): { fills: number; halted: boolean } {
  const r = rng(seed);
  const tf = TIMEFRAMES[Math.floor(r() * TIMEFRAMES.length)];
  const startS = (FIRST + Math.floor(r() * 3)) * D + 3_600 * Math.floor(r() * 24);
  const plan = randomPlan(r);
  const warm = source.day(NQ, Math.floor(startS / D));
  const lastTicks = warm.length > 0 ? warm.open[0] : 80_000;
  const flat = side(source, tf, startS, plan, 'flat', lastTicks);
  const ladder = side(source, tf, startS, plan, 'ladder', lastTicks);
  let halted = false;
  for (let k = 0; k < 12 && !halted; k++) {
    const orders = Math.floor(r() * 4);
    for (let o = 0; o < orders; o++) {
      const req = randomOrder(r, flat.engine.lastPriceTicks);
      let stop = false;
      for (const s of [flat, ladder]) {
        s.engine.placeOrder(req, s.session.nowS);
        const out = s.rule?.afterCommand(s.session.nowS, Math.max(0, s.session.currentIndex - 1)) ?? null;
        if (out && out.kind !== 'soft_breach') stop = true;
      }
      expect(view(ladder, null)).toEqual(view(flat, null));
      if (stop) return { fills: flat.engine.fills.length, halted: true };
    }
    if (r() < 0.3 && flat.engine.book.working.length > 0) {
      const victim = flat.engine.book.working[Math.floor(r() * flat.engine.book.working.length)].id;
      for (const s of [flat, ladder]) s.engine.cancelOrder(victim, s.session.nowS);
    }
    const jump = r() < 0.4;
    const target = flat.session.nowS + Math.floor(r() * 2 * D);
    const n = 1 + Math.floor(r() * 100);
    const a = jump ? flat.session.jumpTo(target) : flat.session.step(n);
    const b = jump ? ladder.session.jumpTo(target) : ladder.session.step(n);
    expect(view(ladder, b)).toEqual(view(flat, a));
    halted = a.halted || a.played === 0;
  }
  return { fills: flat.engine.fills.length, halted };
}

describe('hierarchical replay walk', () => {
  it('equals the flat walk fill for fill over random books, brackets, challenge floors and gappy data', () => {
    const source = world();
    let fills = 0;
    let halts = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const c = runCase(source, seed * 7_919);
      fills += c.fills;
      if (c.halted) halts++;
    }
    // The cases must exercise something: many fills, some halts.
    console.log(`ladder property: ${fills} fills, ${halts} halted cases`);
    expect(fills).toBeGreaterThan(300);
    expect(halts).toBeGreaterThan(10);
  });
});

describe('walkLadder', () => {
  /** A host over hand-made levels that records what it walked and skipped. */
  function host(hours: BarColumns | null, minutes: BarColumns | null, up: number, down: number, eventS: number) {
    const log: string[] = [];
    const h: LadderHost = {
      levelCount: 2,
      levelWidthS: (k) => (k === 0 ? 3_600 : 60),
      level: (k) => (k === 0 ? hours : minutes),
      triggers: (out) => {
        out.upTicks = up;
        out.downTicks = down;
        out.eventS = eventS;
      },
      walkStored: (a, b) => {
        log.push(`walk ${a}-${b}`);
        return false;
      },
      skipped: (c, s, w) => log.push(`skip ${s}+${w}@${c}`),
    };
    return { h, log };
  }
  function bars(rows: [number, number, number, number][]): BarColumns {
    const b = allocBars(rows.length);
    rows.forEach(([t, h, l, c], i) => {
      b.time[i] = t;
      b.open[i] = c;
      b.high[i] = h;
      b.low[i] = l;
      b.close[i] = c;
      b.volume[i] = 1;
    });
    b.length = rows.length;
    return b;
  }
  const t = { upTicks: 0, downTicks: 0, eventS: 0 };

  it('skips quiet hours, descends into the hour that reaches a trigger, walks only its minute', () => {
    const hours = bars([[0, 105, 95, 100], [3_600, 120, 95, 110], [7_200, 105, 95, 101]]);
    const minutes = bars([[3_600, 105, 95, 100], [3_660, 120, 100, 110], [3_720, 110, 100, 105]]);
    const { h, log } = host(hours, minutes, 115, 90, 2 ** 32);
    walkLadder(h, 0, 3 * 3_600, t);
    expect(log).toEqual(['skip 0+3600@100', 'skip 3600+60@100', 'walk 3660-3720', 'skip 3720+60@105', 'skip 7200+3600@101']);
  });

  it('walks the minute holding the event time and every later one while it is due; cut edges go finer', () => {
    const hours = bars([[0, 105, 95, 100]]);
    const minutes = bars([[0, 105, 95, 100], [60, 105, 95, 100], [120, 105, 95, 100]]);
    const { h, log } = host(hours, minutes, 115, 90, 90);
    walkLadder(h, 30, 3_600, t);
    expect(log).toEqual(['walk 30-60', 'walk 60-120', 'walk 120-180']);
  });

  it('reads the finer level where a day has no coarse rollup, skipping a quiet stretch at once', () => {
    const minutes = bars([[0, 105, 95, 100], [60, 105, 95, 100]]);
    const { h, log } = host(null, minutes, 115, 90, 2 ** 32);
    walkLadder(h, 0, 120, t);
    expect(log).toEqual(['skip 60+60@100']);
  });
});
