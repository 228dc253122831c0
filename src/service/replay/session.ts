// One live replay session: its engine, its place in time, and the walk over stored bars.
//
// Time model:
// - The session covers stored bars with time in [startS, endS). It plays bars of its timeframe
//   (`tf`); `currentIndex` counts the timeframe bars played so far (the index of the next one) and
//   `totalBars` counts them all.
// - `cursorS`: every stored bar before it has been processed. It always sits on the end of the last
//   bar played (or on startS), so the simulated "now" of an order placed between steps is cursorS.
// - A step of n bars finds where the n-th next bar ends, then runs the engine over all stored bars up
//   to there (fills are decided at the stored resolution whatever the timeframe), aggregating the
//   same bars for the response. A jump runs the engine up to the start of the bar holding the
//   target, without aggregating. If the engine halts (a challenge outcome), the walk stops at the
//   deciding stored bar and the bar holding it is the last one played.
// - The walk goes down the resolution ladder (the bar walker, engine/walker.ts): each day's 1 h, then 1 m
//   rollups are checked against the engine's triggers and the rule's thresholds and event time, and
//   stored bars are read only inside the minutes that can reach one; fills, halts and the engine's
//   state are those of walking every stored bar (`walk = 'flat'`: the same walker without levels,
//   kept as the reference and for benches). A step's bars and a jump's count come from the rollups
//   that tile the timeframe. The instrument's feed, serving a day's levels and stored bars to the
//   walker, is `DayLadder` (day-ladder.ts).

import { BucketCounter, countUnionBuckets } from '../../data/bucket-count.ts';
import { Aggregator } from '../../data/aggregate.ts';
import { allocBars, type BarColumns } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../../domain/timeframe.ts';
import type { ChallengeRule } from '../../challenge/rules.ts';
import type { ChallengeOutcome } from '../../challenge/state.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { RuleThresholds } from '../../engine/stop-rule.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS } from '../../engine/types.ts';
import { walkDays } from '../../engine/walker.ts';
import { pushRange } from '../../data/ladder-read.ts';
import { rollupWidthsFor } from '../../data/rollup.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { limits } from '../../config.ts';
import type { SessionRow } from '../../store/replay.ts';
import { DayLadder } from './day-ladder.ts';
import { LegPeek } from './leg-peek.ts';

export interface AdvanceResult {
  /** Timeframe bars played (0 at the end of data). */
  played: number;
  /** The bars played, when asked for (step), else null (jump): the first instrument's. */
  bars: BarColumns | null;
  /** A session over several instruments: each one's bars played, in the session's order (step); else null. */
  barsByLeg: BarColumns[] | null;
  /** The engine halted on a challenge outcome. */
  halted: boolean;
  /** The challenge violation or pass that halted it (null otherwise). */
  outcome: ChallengeOutcome | null;
}

/** The challenge a session trades for: the challenge account and the rule watching the bar loop. */
export interface ChallengeBinding {
  accountId: number;
  rule: ChallengeRule;
  /**
   * A practice branch of the challenge's session (branching.ts): the rule runs on the branch's own
   * copy of the state, which is never the challenge's (never saved to it, never its evaluation or payout).
   */
  practice?: boolean;
}

/** A session's identity and place in time, as its row keeps them, with its instrument and timeframe resolved. */
export type SessionInit = Pick<SessionRow, 'accountId' | 'sessionId' | 'userId' | 'startS' | 'endS' | 'cursorS' | 'currentIndex' | 'totalBars' | 'historyBars'>
  & Pick<SessionRow, 'parentAccountId' | 'branchS'> & { inst: Instrument; tf: Timeframe };

/**
 * One instrument of a session: its engine (its book, position and fills; the account is the engines'
 * shared ledger, engine/ledger.ts, which the challenge rule reads through it).
 */
export interface SessionLeg {
  readonly inst: Instrument;
  readonly engine: SessionEngine;
}

export class LiveSession {
  readonly accountId: number;
  readonly sessionId: string;
  readonly userId: number;
  readonly inst: Instrument;
  readonly tf: Timeframe;
  readonly startS: number;
  readonly endS: number;
  /** Changes only when a session over several instruments gains or loses one (Replay/addInstrument). */
  totalBars: number;
  readonly historyBars: number;
  /** A branch: the session it left from and the bar close it left at (branching.ts); null otherwise. */
  readonly parentAccountId: number | null;
  readonly branchS: number | null;
  cursorS: number;
  currentIndex: number;
  /** A step or jump is running or queued (it yields to the event loop, so a concurrent one must be refused). */
  busy = false;
  /** The end of the last command queued on this session (`exclusive`). */
  private tail: Promise<unknown> = Promise.resolve();
  /** The timer driving playback, or null when paused. */
  playTimer: ReturnType<typeof setInterval> | null = null;
  lastActivityMs: number;
  /** Set when a challenge outcome or Replay/end finalized the session. */
  finalized = false;
  /** 'ladder' walks down the rollups (the default); 'flat' walks every stored bar (the reference). */
  walk: 'ladder' | 'flat' = 'ladder';
  /**
   * The session's instruments, the first being `inst` / `engine`. A session started with the spec's
   * `instrumentSymbol` has one and `multi` false; one started with a list (`instrumentSymbols`) is
   * `multi`, whatever its count, and its answers name every instrument.
   */
  readonly legs: SessionLeg[];
  readonly multi: boolean;
  /** Where each instrument's next bar is (endOfNextBars), in the order of `legs`. */
  private readonly peeks: LegPeek[];
  /** The last day a prepare has covered (−1: none); the cursor only moves forward. */
  private preparedThroughDay = -1;
  /** The walker's thresholds, reused by every advance. */
  private readonly walkScratch: RuleThresholds = { upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S };

  constructor(
    init: SessionInit,
    readonly engine: SessionEngine,
    private readonly source: BarSource,
    public challenge: ChallengeBinding | null,
    nowMs: number,
    /** A session over several instruments: every instrument, the first being `init.inst` with `engine`. */
    legs: SessionLeg[] | null = null,
  ) {
    this.accountId = init.accountId;
    this.sessionId = init.sessionId;
    this.userId = init.userId;
    this.inst = init.inst;
    this.tf = init.tf;
    this.startS = init.startS;
    this.endS = init.endS;
    this.cursorS = init.cursorS;
    this.currentIndex = init.currentIndex;
    this.totalBars = init.totalBars;
    this.historyBars = init.historyBars;
    this.parentAccountId = init.parentAccountId ?? null;
    this.branchS = init.branchS ?? null;
    this.lastActivityMs = nowMs;
    this.multi = legs !== null;
    this.legs = legs ?? [{ inst: init.inst, engine }];
    this.peeks = this.legs.map((l) => new LegPeek(source, l.inst, this.tf, this.endS));
  }

  /** Adds an instrument to a session over several (Replay/addInstrument): it joins at the cursor. */
  addLeg(leg: SessionLeg): void {
    this.legs.push(leg);
    this.peeks.push(new LegPeek(this.source, leg.inst, this.tf, this.endS));
  }

  /** Removes an instrument (not the first; the caller checked it has no position and no working order). */
  removeLeg(leg: SessionLeg): void {
    const k = this.legs.indexOf(leg);
    if (k <= 0) return;
    this.legs.splice(k, 1);
    this.peeks.splice(k, 1);
    leg.engine.ledger.leave(leg.engine);
  }

  /** The instrument of a symbol, if the session trades it. */
  legOf(inst: Instrument): SessionLeg | undefined {
    return this.legs.find((l) => l.inst === inst);
  }

  /** The session's instruments, in order. */
  get instruments(): Instrument[] {
    return this.legs.map((l) => l.inst);
  }

  /**
   * Runs `fn` alone on this session, after every command queued before it: a command's engine change,
   * its commit and its events are never interleaved with another's, although each awaits the store.
   * Take this lock before a store transaction, never inside one (the store's own turn comes second).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Pauses playback (a no-op when paused); a tick already queued sees the change and plays nothing. */
  stopPlayback(): void {
    if (this.playTimer !== null) clearInterval(this.playTimer);
    this.playTimer = null;
  }

  /** Simulated now: the end of the last bar played. */
  get nowS(): number {
    return this.cursorS;
  }

  /**
   * Plays up to `n` timeframe bars, returning them. The walk reads the data version once
   * (BarSource.pinned): finding the n-th bar alone looks rollups up n times.
   */
  step(n: number): AdvanceResult {
    return this.source.pinned(() => this.advanceTo(this.endOfNextBars(n), true, n));
  }

  /** Plays every bar that ends at or before the bar holding `targetS`; returns no bars. */
  jumpTo(targetS: number): AdvanceResult {
    // A target past the end plays everything; advanceTo plays nothing for a cut at or before the cursor.
    const cutS = targetS >= this.endS ? this.endS : bucketStart(this.tf, targetS);
    return this.source.pinned(() => this.advanceTo(cutS, false, 0));
  }

  /**
   * Before an advance that may reach about `horizonS`: has the rollups of the days from the cursor's
   * to the horizon's that nobody has built yet made off the main thread (BarSource.prepareRollups),
   * so the walk then finds them at hand. Null when there is nothing to wait for.
   */
  prepare(horizonS: number): Promise<void> | null {
    if (this.walk !== 'ladder') return null;
    const fromDay = Math.max(Math.floor(this.cursorS / DAY_S), this.preparedThroughDay + 1);
    const toDay = Math.min(Math.floor((Math.min(horizonS, this.endS) - 1) / DAY_S), fromDay + limits.replayPrepareDaysMax - 1);
    if (toDay < fromDay) return null;
    this.preparedThroughDay = toDay;
    if (this.legs.length === 1) return this.source.prepareRollups(this.inst, fromDay, toDay);
    return Promise.all(this.legs.map((l) => this.source.prepareRollups(l.inst, fromDay, toDay))).then(() => undefined);
  }

  /** Loads the day after the cursor's, so a client stepping steadily never waits for data. */
  prefetch(): void {
    const day = Math.floor(this.cursorS / DAY_S) + 1;
    if (day * DAY_S >= this.endS) return;
    for (const { inst } of this.legs) {
      if (this.walk === 'flat') this.source.day(inst, day);
      // In memory already (the usual case after a prepare): nothing to read, not even the data version.
      else if (!this.source.rollupsInMemory(inst, day)) this.source.pinned(() => this.prefetchRollups(inst, day));
    }
  }

  private prefetchRollups(inst: Instrument, day: number): void {
    for (const w of rollupWidthsFor(inst)) this.source.rollup(inst, day, w);
  }

  /**
   * The end time of the n-th timeframe bar after the cursor (fewer if data ends first): of the n-th
   * bucket in which any instrument has a bar. Looks each day up once per call and never reads past
   * the session's last day.
   */
  private endOfNextBars(n: number): number {
    let t = this.cursorS;
    const lastDay = Math.floor((this.endS - 1) / DAY_S);
    const ladder = this.walk === 'ladder';
    const peeks = this.peeks;
    for (const p of peeks) p.reset();
    for (let k = 0; k < n && t < this.endS; k++) {
      let firstS = -1;
      for (const p of peeks) {
        const f = p.firstAtOrAfter(t, lastDay, ladder);
        if (f >= 0 && (firstS < 0 || f < firstS)) firstS = f;
      }
      if (firstS < 0 || firstS >= this.endS) break;
      t = Math.min(nextBucketStart(this.tf, bucketStart(this.tf, firstS)), this.endS);
    }
    for (const p of peeks) p.reset();
    return t;
  }

  /**
   * Runs the engines over stored bars in [cursorS, cutS), day by day, the instruments merged in time
   * order (engine/walker.ts); aggregates them when `withBars`. Moves the cursor and the index,
   * stopping at the deciding bar when the rule halts.
   */
  private advanceTo(cutS: number, withBars: boolean, barsMax: number): AdvanceResult {
    const fromS = this.cursorS;
    if (cutS <= fromS) {
      return { played: 0, bars: withBars ? allocBars(0) : null, barsByLeg: withBars && this.multi ? this.legs.map(() => allocBars(0)) : null, halted: false, outcome: null };
    }
    if (this.walk === 'flat') return this.advanceFlat(fromS, cutS, withBars, barsMax);
    const rule = this.challenge?.rule ?? null;
    const walks = this.legs.length === 1
      ? [new DayLadder(this.source, this.inst, this.engine, rule, false, null)]
      : this.legs.map((l) => new DayLadder(this.source, l.inst, l.engine, rule, false, null));
    walkDays(walks, fromS, cutS, this.walkScratch);
    const halted = walks.length === 1 ? (walks[0].haltS === undefined ? undefined : walks[0]) : walks.find((w) => w.haltS !== undefined);
    const haltS = halted?.haltS;
    if (haltS === undefined) for (const w of walks) w.fixSkippedMarkTime();
    // The bars played: every stored bar before the cut, or up to the deciding bar.
    const playedToS = haltS === undefined ? cutS : haltS + 1;
    const byLeg = withBars ? this.legs.map((l, k) => this.aggregate(l.inst, this.peeks[k].tfRollupWidthS, fromS, playedToS, barsMax)) : null;
    let played: number;
    // A step's bars are its buckets: their union over the instruments is what it played.
    if (byLeg) played = byLeg.length === 1 ? byLeg[0].length : unionLength(byLeg);
    else if (this.legs.length > 1) played = countUnionBuckets(this.source, this.instruments, this.tf, fromS, playedToS);
    else {
      const counter = new BucketCounter(this.tf);
      pushRange(this.source, this.inst, { push: (b, a, z) => counter.count(b.time, a, z) }, fromS, playedToS, this.peeks[0].tfRollupWidthS);
      played = counter.total;
    }
    this.cursorS = haltS === undefined ? cutS : Math.min(nextBucketStart(this.tf, bucketStart(this.tf, haltS)), this.endS);
    this.currentIndex += played;
    return { played, bars: byLeg ? byLeg[0] : null, barsByLeg: this.multi ? byLeg : null, halted: haltS !== undefined, outcome: halted?.outcome ?? null };
  }

  /** One instrument's timeframe bars over [fromS, toS), from the rollups of `widthS` where they tile them. */
  private aggregate(inst: Instrument, widthS: number, fromS: number, toS: number, barsMax: number): BarColumns {
    const out = allocBars(barsMax);
    const agg = new Aggregator(this.tf, out, barsMax);
    pushRange(this.source, inst, agg, fromS, toS, widthS);
    agg.flush();
    return out;
  }

  /** The reference walk: the walker over every stored bar of every day, aggregated or counted as it goes. */
  private advanceFlat(fromS: number, cutS: number, withBars: boolean, barsMax: number): AdvanceResult {
    const outs = withBars ? this.legs.map(() => allocBars(barsMax)) : null;
    const aggs = outs ? outs.map((out) => new Aggregator(this.tf, out, barsMax)) : null;
    // A one-instrument jump counts the bars it plays as it walks, instead of reading the days again afterwards.
    const counter = outs || this.legs.length > 1 ? null : new BucketCounter(this.tf);
    // A challenge session runs under its rule, which liquidates and halts on a violation or pass.
    const rule = this.challenge?.rule ?? null;
    const walks = this.legs.map((l, k) => new DayLadder(this.source, l.inst, l.engine, rule, true, (bars: BarColumns, a: number, b: number) => {
      aggs?.[k].push(bars, a, b);
      counter?.count(bars.time, a, b);
    }));
    walkDays(walks, fromS, cutS, this.walkScratch);
    const halted = walks.find((w) => w.haltS !== undefined);
    const haltS = halted?.haltS;
    if (aggs) for (const agg of aggs) agg.flush();
    const endS = haltS === undefined ? cutS : Math.min(nextBucketStart(this.tf, bucketStart(this.tf, haltS)), this.endS);
    const played = outs
      ? (outs.length === 1 ? outs[0].length : unionLength(outs))
      : this.legs.length > 1 ? countUnionBuckets(this.source, this.instruments, this.tf, fromS, haltS === undefined ? cutS : haltS + 1) : (counter as BucketCounter).total;
    this.cursorS = endS;
    this.currentIndex += played;
    return { played, bars: outs ? outs[0] : null, barsByLeg: this.multi ? outs : null, halted: haltS !== undefined, outcome: halted?.outcome ?? null };
  }
}

/** Distinct bar times over several instruments' timeframe bars (each in time order): the buckets played. */
function unionLength(byLeg: readonly BarColumns[]): number {
  const at = byLeg.map(() => 0);
  let n = 0;
  for (;;) {
    let next = -1;
    for (let k = 0; k < byLeg.length; k++) {
      const b = byLeg[k];
      if (at[k] < b.length && (next < 0 || b.time[at[k]] < next)) next = b.time[at[k]];
    }
    if (next < 0) return n;
    n++;
    for (let k = 0; k < byLeg.length; k++) if (at[k] < byLeg[k].length && byLeg[k].time[at[k]] === next) at[k]++;
  }
}
