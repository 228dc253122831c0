// The bar walker (engine/walker.ts) against the walk it replaced: per UTC day, the engine's
// processBars (or the challenge rule's run) over every stored bar of the range, as the flat
// reference walked before the walker existed. Random order books (limits, stops, stop-limits,
// trailing stops, brackets with stop or trailing stop-losses, market entries between walks),
// random challenge rules, synthetic and imported gappy days, random cuts inside minutes. The
// walker's ladder and its flat walk (no levels) must both leave the engine and the rule exactly as
// the plain loop does. Then two instruments merged in time order: the same fills per instrument,
// and stored bars walked in time order, the feed list's order at one instant.

import { describe, expect, it } from 'bun:test';
import { type BarColumns, lowerBound } from '../../src/data/bar-columns.ts';
import { BarSource, type ChunkReader } from '../../src/data/bar-source.ts';
import { generateDay } from '../../src/data/generator.ts';
import { type ChallengePlan, planFor } from '../../src/challenge/plans.ts';
import { ChallengeRule } from '../../src/challenge/rules.ts';
import { newChallenge } from '../../src/challenge/state.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import type { PlaceOrderRequest } from '../../src/engine/engine-place.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS, OrderSide, OrderType } from '../../src/engine/types.ts';
import { type DayFeed, walkDays, walkFeeds, type WalkFeed } from '../../src/engine/walker.ts';
import { DayLadder } from '../../src/service/replay/day-ladder.ts';
import { importedDay, rng } from '../support/gappy-days.ts';

const D = 86_400;
const NQ = findInstrument('NQ') as Instrument;
const ES = findInstrument('ES') as Instrument;
const FIRST = Math.floor(Date.parse('2025-03-05') / 86_400_000); // a Wednesday

function world(): BarSource {
  const stored = new Map<string, BarColumns>();
  for (const [inst, day, seed] of [[NQ, FIRST + 1, 11], [NQ, FIRST + 3, 23], [ES, FIRST + 2, 31]] as const) {
    const base = generateDay(inst, FIRST);
    stored.set(`${inst.symbol}:${day}`, importedDay(day, base.close[base.length - 1], seed));
  }
  const days = (symbol: string) => [...stored.keys()].filter((k) => k.startsWith(`${symbol}:`)).map((k) => Number(k.split(':')[1]));
  const reader: ChunkReader = {
    get: (symbol, day) => stored.get(`${symbol}:${day}`) ?? null,
    daysStored: (symbol, a, b) => new Set(days(symbol).filter((d) => d >= a && d <= b)),
    summary: () => null,
    dataVersion: () => 0,
  };
  return new BarSource(reader, { firstDay: FIRST, lastDay: () => FIRST + 6 }, 96, null);
}

/** The walk before the walker: every stored bar of each day of [fromS, toS), under the rule if any. */
function plainWalk(source: BarSource, inst: Instrument, engine: SessionEngine, rule: ChallengeRule | null, fromS: number, toS: number): number | null {
  for (let day = Math.floor(fromS / D); day * D < toS; day++) {
    const bars = source.day(inst, day);
    const a = lowerBound(bars.time, bars.length, fromS);
    const b = lowerBound(bars.time, bars.length, toS);
    if (a >= b) continue;
    const r = rule ? rule.run(bars, a, b) : engine.processBars(bars, a, b, null);
    if (r.halted) return bars.time[a + r.processed - 1];
  }
  return null;
}

const scratch = () => ({ upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S });

/** The walker over one instrument (ladder or flat), as LiveSession drives it. */
function walkerWalk(source: BarSource, inst: Instrument, engine: SessionEngine, rule: ChallengeRule | null, flat: boolean, fromS: number, toS: number): number | null {
  const feed = new DayLadder(source, inst, engine, rule, flat);
  walkDays([feed], fromS, toS, scratch());
  if (feed.haltS === undefined) feed.fixSkippedMarkTime();
  return feed.haltS ?? null;
}

function randomPlan(r: () => number): ChallengePlan | null {
  if (r() < 0.3) return null;
  return {
    ...planFor('50K'),
    maxLossLimitCents: 20_000 + Math.floor(r() * 300_000),
    dailyLossLimitCents: r() < 0.5 ? 0 : 10_000 + Math.floor(r() * 150_000),
    dailyLossMode: r() < 0.5 ? 'soft' : 'hard',
    profitTargetCents: 20_000 + Math.floor(r() * 400_000),
  };
}

/** One random order request around `lastTicks`: limits, stops, stop-limits, trailing stops, brackets. */
function randomOrder(r: () => number, lastTicks: number): PlaceOrderRequest {
  const kind = r();
  const side = r() < 0.5 ? OrderSide.Buy : OrderSide.Sell;
  const size = 1 + Math.floor(r() * 3);
  const off = () => Math.round((r() - 0.5) * 2 * (r() < 0.5 ? 40 : 600));
  const trailSl = r() < 0.3 ? { slType: OrderType.TrailingStop } : {};
  const bracket = r() < 0.5 ? { slTicks: 1 + Math.floor(r() * 300), tpTicks: 1 + Math.floor(r() * 300), ...trailSl } : {};
  const ext = { extendedTypes: true };
  if (kind < 0.12) return { type: OrderType.Market, side, size, ...bracket, ...ext };
  if (kind < 0.37) return { type: OrderType.Limit, side, size, limitTicks: lastTicks + off(), ...bracket, ...ext };
  if (kind < 0.6) return { type: OrderType.Stop, side, size, stopTicks: lastTicks + off(), ...bracket, ...ext };
  if (kind < 0.8) return { type: OrderType.TrailingStop, side, size, trailTicks: 1 + Math.floor(r() * 200), ...bracket, ...ext };
  const stopTicks = lastTicks + off();
  return { type: OrderType.StopLimit, side, size, stopTicks, limitTicks: stopTicks + Math.round((r() - 0.5) * 40), ...bracket, ...ext };
}

interface Side {
  engine: SessionEngine;
  rule: ChallengeRule | null;
  walk: (fromS: number, toS: number) => number | null;
}

function makeSide(source: BarSource, plan: ChallengePlan | null, kind: 'plain' | 'flat' | 'ladder', startS: number, lastTicks: number): Side {
  const engine = new SessionEngine(NQ, { startingBalanceCents: plan?.startingBalanceCents ?? 5_000_000 });
  engine.setLastPrice(lastTicks, startS - 1);
  const rule = plan ? new ChallengeRule(newChallenge(plan), plan, engine) : null;
  const walk = (a: number, b: number) =>
    kind === 'plain' ? plainWalk(source, NQ, engine, rule, a, b) : walkerWalk(source, NQ, engine, rule, kind === 'flat', a, b);
  return { engine, rule, walk };
}

const state = (s: Side) => ({ engine: s.engine.serialize(), rule: s.rule ? JSON.parse(JSON.stringify(s.rule.state)) : null });

/** One random case: three sides walked over the same random ranges with the same orders; fills and halts counted. */
function runCase(source: BarSource, seed: number): { fills: number; halted: boolean; trails: number } {
  const r = rng(seed);
  const startS = (FIRST + Math.floor(r() * 4)) * D + Math.floor(r() * D);
  const plan = randomPlan(r);
  const warm = source.day(NQ, Math.floor(startS / D));
  const lastTicks = warm.length > 0 ? warm.open[0] : 80_000;
  const sides = (['plain', 'flat', 'ladder'] as const).map((k) => makeSide(source, plan, k, startS, lastTicks));
  const [plain] = sides;
  let nowS = startS;
  let trails = 0;
  for (let k = 0; k < 10; k++) {
    for (let o = Math.floor(r() * 4); o > 0; o--) {
      const req = randomOrder(r, plain.engine.lastPriceTicks);
      if (req.type === OrderType.TrailingStop || req.slType === OrderType.TrailingStop) trails++;
      let stop = false;
      for (const s of sides) {
        s.engine.placeOrder(req, nowS);
        const out = s.rule?.afterCommand(nowS, 0) ?? null;
        if (out && out.kind !== 'soft_breach') stop = true;
      }
      if (stop) return { fills: plain.engine.fills.length, halted: true, trails };
    }
    // A cut anywhere: inside a minute, an hour, or on a day's edge.
    const toS = Math.min((FIRST + 7) * D, nowS + 1 + Math.floor(r() * (r() < 0.5 ? 3_600 : 2 * D)));
    const halts = sides.map((s) => s.walk(nowS, toS));
    expect(halts[1]).toBe(halts[0]);
    expect(halts[2]).toBe(halts[0]);
    const want = state(plain);
    expect(state(sides[1])).toEqual(want);
    expect(state(sides[2])).toEqual(want);
    if (halts[0] !== null || toS >= (FIRST + 7) * D) return { fills: plain.engine.fills.length, halted: halts[0] !== null, trails };
    nowS = toS;
  }
  return { fills: plain.engine.fills.length, halted: false, trails };
}

describe('the bar walker against the plain walk it replaced', () => {
  it('leaves engine and rule as the plain loop does, ladder and flat, over random books, trailing stops and challenge rules', () => {
    const source = world();
    let fills = 0;
    let halts = 0;
    let trails = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const c = runCase(source, seed * 104_729);
      fills += c.fills;
      trails += c.trails;
      if (c.halted) halts++;
    }
    console.log(`walker property: ${fills} fills, ${halts} halted cases, ${trails} trailing stops placed`);
    expect(fills).toBeGreaterThan(300);
    expect(halts).toBeGreaterThan(10);
    expect(trails).toBeGreaterThan(50);
  });
});

/** A feed that records, for each stored range it walks, its feed index and first and last bar times. */
class LoggedFeed implements DayFeed {
  constructor(readonly inner: DayLadder, private readonly index: number, private readonly log: [number, number, number][]) {}
  get levelCount() {
    return this.inner.levelCount;
  }
  startDay(day: number, fromS: number) {
    this.inner.startDay(day, fromS);
  }
  levelWidthS(k: number) {
    return this.inner.levelWidthS(k);
  }
  level(k: number) {
    return this.inner.level(k);
  }
  triggers(out: Parameters<WalkFeed['triggers']>[0]) {
    this.inner.triggers(out);
  }
  skipped(c: number, s: number, w: number) {
    this.inner.skipped(c, s, w);
  }
  storedTimes() {
    return this.inner.storedTimes();
  }
  walkStored(fromS: number, toS: number) {
    const b = this.inner.storedTimes();
    const a = lowerBound(b.time, b.length, fromS);
    const z = lowerBound(b.time, b.length, toS);
    if (a < z) this.log.push([this.index, b.time[a], b.time[z - 1]]);
    return this.inner.walkStored(fromS, toS);
  }
}

/** One two-instrument case, ladder then flat: each feed's engine against its own plain walk, the ranges logged in order. */
function twoInstrumentCase(source: BarSource, seed: number): { fills: number; interleaved: boolean } {
  const r = rng(seed * 7_919);
  const fromS = (FIRST + Math.floor(r() * 4)) * D + Math.floor(r() * D);
  const toS = fromS + 1 + Math.floor(r() * 2 * D);
  let fills = 0;
  let interleaved = false;
  for (const flat of [false, true]) {
    const log: [number, number, number][] = [];
    const pairs = [NQ, ES].map((inst, i) => {
      const first = source.day(inst, Math.floor(fromS / D));
      const last = first.length > 0 ? first.open[0] : 80_000;
      const mk = () => {
        const e = new SessionEngine(inst, { startingBalanceCents: 5_000_000 });
        e.setLastPrice(last, fromS - 1);
        const rr = rng(seed + i);
        for (let o = 0; o < 6; o++) e.placeOrder(randomOrder(rr, last), fromS);
        return e;
      };
      const ref = mk();
      const e = mk();
      return { inst, ref, e, feed: new LoggedFeed(new DayLadder(source, inst, e, null, flat), i, log) };
    });
    walkDays(pairs.map((p) => p.feed), fromS, toS, scratch());
    for (const p of pairs) {
      plainWalk(source, p.inst, p.ref, null, fromS, toS);
      p.feed.inner.fixSkippedMarkTime();
      expect(p.e.serialize()).toEqual(p.ref.serialize());
      fills += p.ref.fills.length;
    }
    // Each walked range ends before the next begins (at one instant: NQ's bar, then ES's).
    for (let i = 1; i < log.length; i++) {
      const [f0, , last0] = log[i - 1];
      const [f1, first1] = log[i];
      expect(last0 < first1 || (last0 === first1 && f0 < f1)).toBe(true);
    }
    if (flat && new Set(log.map((l) => l[0])).size === 2) interleaved = true;
  }
  return { fills, interleaved };
}

describe('the bar walker over two instruments', () => {
  it('walks NQ and ES merged in time order (NQ first at one instant), each with the fills of its own plain walk', () => {
    const source = world();
    const cases = Array.from({ length: 60 }, (_, k) => twoInstrumentCase(source, k + 1));
    const fills = cases.reduce((n, c) => n + c.fills, 0);
    const interleaved = cases.filter((c) => c.interleaved).length;
    console.log(`two-instrument walker: ${fills} fills, ${interleaved} flat cases walking both`);
    expect(fills).toBeGreaterThan(50);
    expect(interleaved).toBeGreaterThan(20);
  });

  it('orders stored bars of two feeds by time, the list order at a tie', () => {
    const log: string[] = [];
    const feed = (name: string, times: number[]): WalkFeed => ({
      levelCount: 0,
      levelWidthS: () => 60,
      level: () => null,
      triggers: () => {},
      skipped: () => {},
      storedTimes: () => ({ time: Uint32Array.from(times), length: times.length }),
      walkStored: (a, b) => {
        log.push(`${name} ${times.filter((t) => t >= a && t < b).join(',')}`);
        return false;
      },
    });
    walkFeeds([feed('A', [1, 2, 3, 7, 8]), feed('B', [2, 4, 5, 8, 9])], 0, 10, scratch());
    expect(log).toEqual(['A 1,2', 'B 2', 'A 3', 'B 4,5', 'A 7,8', 'B 8,9']);
  });
});
