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

import { BucketCounter } from '../../data/bucket-count.ts';
import { Aggregator } from '../../data/aggregate.ts';
import { allocBars, type BarColumns, EMPTY_BARS, lowerBound } from '../../data/bar-columns.ts';
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
import { rollupWidthForTimeframe, rollupWidthsFor } from '../../data/rollup.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { limits } from '../../config.ts';
import type { SessionRow } from '../../store/replay.ts';
import { DayLadder } from './day-ladder.ts';

export interface AdvanceResult {
  /** Timeframe bars played (0 at the end of data). */
  played: number;
  /** The bars played, when asked for (step), else null (jump). */
  bars: BarColumns | null;
  /** The engine halted on a challenge outcome. */
  halted: boolean;
  /** The challenge violation or pass that halted it (null otherwise). */
  outcome: ChallengeOutcome | null;
}

/** The challenge a session trades for: the challenge account and the rule watching the bar loop. */
export interface ChallengeBinding {
  accountId: number;
  rule: ChallengeRule;
}

/** A session's identity and place in time, as its row keeps them, with its instrument and timeframe resolved. */
export type SessionInit = Pick<SessionRow, 'accountId' | 'sessionId' | 'userId' | 'startS' | 'endS' | 'cursorS' | 'currentIndex' | 'totalBars' | 'historyBars'>
  & { inst: Instrument; tf: Timeframe };

export class LiveSession {
  readonly accountId: number;
  readonly sessionId: string;
  readonly userId: number;
  readonly inst: Instrument;
  readonly tf: Timeframe;
  readonly startS: number;
  readonly endS: number;
  readonly totalBars: number;
  readonly historyBars: number;
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
  /** The rollup width whose buckets tile the timeframe's (0: none), and the instrument's widths. */
  private readonly tfRollupWidthS: number;
  private readonly rollupWidthsS: readonly number[];
  /** endOfNextBars's rollups of one day (`peekDay`), by width index: a step looks n bars up in them. */
  private peekDay = Number.NaN;
  private readonly peekRollups: (BarColumns | null | undefined)[] = [];
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
    this.lastActivityMs = nowMs;
    this.tfRollupWidthS = rollupWidthForTimeframe(this.inst, this.tf);
    this.rollupWidthsS = rollupWidthsFor(this.inst);
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
    return this.source.prepareRollups(this.inst, fromDay, toDay);
  }

  /** Loads the day after the cursor's, so a client stepping steadily never waits for data. */
  prefetch(): void {
    const day = Math.floor(this.cursorS / DAY_S) + 1;
    if (day * DAY_S >= this.endS) return;
    if (this.walk === 'flat') this.source.day(this.inst, day);
    // In memory already (the usual case after a prepare): nothing to read, not even the data version.
    else if (!this.source.rollupsInMemory(this.inst, day)) this.source.pinned(() => this.prefetchRollups(day));
  }

  private prefetchRollups(day: number): void {
    for (const w of rollupWidthsFor(this.inst)) this.source.rollup(this.inst, day, w);
  }

  /**
   * The end time of the n-th timeframe bar after the cursor (fewer if data ends first). Looks each
   * day up once per call and never reads past the session's last day.
   */
  private endOfNextBars(n: number): number {
    let t = this.cursorS;
    const lastDay = Math.floor((this.endS - 1) / DAY_S);
    let day = Number.NaN;
    let bars = EMPTY_BARS;
    this.peekDay = Number.NaN;
    for (let k = 0; k < n && t < this.endS; k++) {
      // The first stored bar at or after t: in t's day, else in the following days up to lastDay.
      let d = Math.floor(t / DAY_S);
      let i = 0;
      let firstS = -1;
      for (; d <= lastDay; d++) {
        firstS = this.walk === 'ladder' ? this.firstRollupTimeAtOrAfter(d, t) : -1;
        if (firstS >= 0) break;
        if (firstS === -2) continue;
        if (d !== day) {
          day = d;
          bars = this.source.day(this.inst, d);
        }
        i = lowerBound(bars.time, bars.length, t);
        if (i < bars.length) {
          firstS = bars.time[i];
          break;
        }
      }
      if (d > lastDay || firstS >= this.endS) break;
      t = Math.min(nextBucketStart(this.tf, bucketStart(this.tf, firstS)), this.endS);
    }
    this.peekRollups.length = 0;
    return t;
  }

  /**
   * The start of the first rollup bucket of day `d` at or after `t`, from a rollup whose buckets lie
   * inside one timeframe bucket (so it names the same timeframe bar as the stored bar it holds):
   * −2 when the day has none, −1 when no rollup can tell (then the stored bars are read).
   */
  private firstRollupTimeAtOrAfter(d: number, t: number): number {
    const tfWidthS = this.tfRollupWidthS;
    if (tfWidthS === 0) return -1;
    if (d !== this.peekDay) {
      this.peekDay = d;
      this.peekRollups.length = 0;
    }
    const widths = this.rollupWidthsS;
    for (let k = 0; k < widths.length; k++) {
      const w = widths[k];
      if (w > tfWidthS || t % w !== 0) continue;
      let r = this.peekRollups[k];
      if (r === undefined) {
        r = this.source.rollup(this.inst, d, w);
        this.peekRollups[k] = r;
      }
      if (r === null) continue;
      const i = lowerBound(r.time, r.length, t);
      if (i === r.length) return -2;
      // A bucket straddling the session's end may hold only bars after it: ask the stored bars.
      return r.time[i] + w > this.endS && r.time[i] < this.endS ? -1 : r.time[i];
    }
    return -1;
  }

  /**
   * Runs the engine over stored bars in [cursorS, cutS), day by day; aggregates them when `withBars`.
   * Moves the cursor and the index, stopping at the deciding bar when the engine halts.
   */
  private advanceTo(cutS: number, withBars: boolean, barsMax: number): AdvanceResult {
    const fromS = this.cursorS;
    if (cutS <= fromS) return { played: 0, bars: withBars ? allocBars(0) : null, halted: false, outcome: null };
    if (this.walk === 'flat') return this.advanceFlat(fromS, cutS, withBars, barsMax);
    const walk = new DayLadder(this.source, this.inst, this.engine, this.challenge?.rule ?? null);
    walkDays([walk], fromS, cutS, this.walkScratch);
    const haltS = walk.haltS;
    if (haltS === undefined) walk.fixSkippedMarkTime();
    // The bars played: every stored bar before the cut, or up to the deciding bar.
    const playedToS = haltS === undefined ? cutS : haltS + 1;
    const widthS = this.tfRollupWidthS;
    let played: number;
    let out: BarColumns | null = null;
    if (withBars) {
      out = allocBars(barsMax);
      const agg = new Aggregator(this.tf, out, barsMax);
      pushRange(this.source, this.inst, agg, fromS, playedToS, widthS);
      agg.flush();
      played = out.length;
    } else {
      const counter = new BucketCounter(this.tf);
      pushRange(this.source, this.inst, { push: (b, a, z) => counter.count(b.time, a, z) }, fromS, playedToS, widthS);
      played = counter.total;
    }
    this.cursorS = haltS === undefined ? cutS : Math.min(nextBucketStart(this.tf, bucketStart(this.tf, haltS)), this.endS);
    this.currentIndex += played;
    return { played, bars: out, halted: haltS !== undefined, outcome: walk.outcome };
  }

  /** The reference walk: the walker over every stored bar of every day, aggregated or counted as it goes. */
  private advanceFlat(fromS: number, cutS: number, withBars: boolean, barsMax: number): AdvanceResult {
    const out = withBars ? allocBars(barsMax) : null;
    const agg = out ? new Aggregator(this.tf, out, barsMax) : null;
    // A jump counts the bars it plays as it walks, instead of reading the days again afterwards.
    const counter = out ? null : new BucketCounter(this.tf);
    const onWalked = (bars: BarColumns, a: number, b: number) => {
      agg?.push(bars, a, b);
      counter?.count(bars.time, a, b);
    };
    // A challenge session runs under its rule, which liquidates and halts on a violation or pass.
    const walk = new DayLadder(this.source, this.inst, this.engine, this.challenge?.rule ?? null, true, onWalked);
    walkDays([walk], fromS, cutS, this.walkScratch);
    const haltS = walk.haltS;
    agg?.flush();
    const endS = haltS === undefined ? cutS : Math.min(nextBucketStart(this.tf, bucketStart(this.tf, haltS)), this.endS);
    const played = out ? out.length : (counter as BucketCounter).total;
    this.cursorS = endS;
    this.currentIndex += played;
    return { played, bars: out, halted: haltS !== undefined, outcome: walk.outcome };
  }
}
