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

import { BucketCounter } from '../../data/bucket-count.ts';
import { Aggregator } from '../../data/aggregate.ts';
import { allocBars, type BarColumns, EMPTY_BARS, lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { bucketStart, nextBucketStart, type Timeframe } from '../../domain/timeframe.ts';
import type { ChallengeRule } from '../../challenge/rules.ts';
import type { ChallengeOutcome } from '../../challenge/state.ts';
import type { SessionEngine } from '../../engine/engine.ts';

const DAY_S = 86_400;

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

export interface SessionInit {
  accountId: number;
  sessionId: string;
  userId: number;
  inst: Instrument;
  tf: Timeframe;
  startS: number;
  endS: number;
  cursorS: number;
  currentIndex: number;
  totalBars: number;
  historyBars: number;
}

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
  /** A step or jump is running (it yields to the event loop, so a concurrent one must be refused). */
  busy = false;
  /** The timer driving playback, or null when paused. */
  playTimer: ReturnType<typeof setInterval> | null = null;
  lastActivityMs: number;
  /** Set when a challenge outcome or Replay/end finalized the session. */
  finalized = false;

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
  }

  /** Simulated now: the end of the last bar played. */
  get nowS(): number {
    return this.cursorS;
  }

  /** Plays up to `n` timeframe bars, returning them. */
  step(n: number): AdvanceResult {
    const cutS = this.endOfNextBars(n);
    return this.advanceTo(cutS, true, n);
  }

  /** Plays every bar that ends at or before the bar holding `targetS`; returns no bars. */
  jumpTo(targetS: number): AdvanceResult {
    // A target past the end plays everything; advanceTo plays nothing for a cut at or before the cursor.
    const cutS = targetS >= this.endS ? this.endS : bucketStart(this.tf, targetS);
    return this.advanceTo(cutS, false, 0);
  }

  /** Loads the day after the cursor's, so a client stepping steadily never waits for data. */
  prefetch(): void {
    const day = Math.floor(this.cursorS / DAY_S) + 1;
    if (day * DAY_S < this.endS) this.source.day(this.inst, day);
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
    for (let k = 0; k < n && t < this.endS; k++) {
      // The first stored bar at or after t: in t's day, else in the following days up to lastDay.
      let d = Math.floor(t / DAY_S);
      let i = 0;
      for (; d <= lastDay; d++) {
        if (d !== day) {
          day = d;
          bars = this.source.day(this.inst, d);
        }
        i = lowerBound(bars.time, bars.length, t);
        if (i < bars.length) break;
      }
      if (d > lastDay || bars.time[i] >= this.endS) break;
      t = Math.min(nextBucketStart(this.tf, bucketStart(this.tf, bars.time[i])), this.endS);
    }
    return t;
  }

  /**
   * Runs the engine over stored bars in [cursorS, cutS), day by day; aggregates them when `withBars`.
   * Moves the cursor and the index, stopping at the deciding bar when the engine halts.
   */
  private advanceTo(cutS: number, withBars: boolean, barsMax: number): AdvanceResult {
    const fromS = this.cursorS;
    if (cutS <= fromS) return { played: 0, bars: withBars ? allocBars(0) : null, halted: false, outcome: null };
    const out = withBars ? allocBars(barsMax) : null;
    const agg = out ? new Aggregator(this.tf, out, barsMax) : null;
    // A jump counts the bars it plays as it walks, instead of reading the days again afterwards.
    const counter = out ? null : new BucketCounter(this.tf);
    let haltS: number | undefined;
    let outcome: ChallengeOutcome | null = null;
    for (let day = Math.floor(fromS / DAY_S); day * DAY_S < cutS; day++) {
      const bars = this.source.day(this.inst, day);
      const a = lowerBound(bars.time, bars.length, fromS);
      const b = lowerBound(bars.time, bars.length, cutS);
      if (a >= b) continue;
      // A challenge session runs under its rule, which liquidates and halts on a violation or pass.
      const r = this.challenge ? this.challenge.rule.run(bars, a, b) : { ...this.engine.processBars(bars, a, b, null), outcome: null };
      agg?.push(bars, a, a + r.processed);
      counter?.count(bars.time, a, a + r.processed);
      if (r.halted) {
        haltS = bars.time[a + r.processed - 1];
        outcome = r.outcome;
        break;
      }
    }
    agg?.flush();
    const endS = haltS === undefined ? cutS : Math.min(nextBucketStart(this.tf, bucketStart(this.tf, haltS)), this.endS);
    const played = out ? out.length : (counter as BucketCounter).total;
    this.cursorS = endS;
    this.currentIndex += played;
    return { played, bars: out, halted: haltS !== undefined, outcome };
  }
}
