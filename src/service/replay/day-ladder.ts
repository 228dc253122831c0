// A live session's instrument as a feed of the bar walker (engine/walker.ts is the walk itself and
// says why skipping quiet buckets is exact): this feed serves a day's rollups and stored bars, runs
// the engine or the challenge rule over the stored ranges the walk asks for, and keeps the last
// skipped bucket so the engine's mark time ends where the flat walk leaves it. Without levels
// (`flat`) the walker hands it each day's whole range: the flat reference walk.

import type { BarColumns } from '../../data/bar-columns.ts';
import { lowerBound } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { lastBarTimeBefore } from '../../data/ladder-read.ts';
import { rollupWidthsFor } from '../../data/rollup.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { ChallengeRule } from '../../challenge/rules.ts';
import type { ChallengeOutcome } from '../../challenge/state.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { DayFeed } from '../../engine/walker.ts';
import type { RuleThresholds } from '../../engine/stop-rule.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS } from '../../engine/types.ts';

/**
 * One advance's feed, day by day (engine/walker.ts): serves the day's rollups and stored bars (read
 * only when a minute needs them), runs the engine or the challenge rule over stored ranges, and
 * remembers the last skipped bucket so the engine's mark time can be made exact.
 */
export class DayLadder implements DayFeed {
  readonly levelCount: number;
  haltS: number | undefined = undefined;
  outcome: ChallengeOutcome | null = null;
  private readonly widthsS: readonly number[];
  private readonly levels: (BarColumns | null | undefined)[] = [];
  private readonly ruleScratch: RuleThresholds = { upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S };
  private day = 0;
  private dayFromS = 0;
  private stored: BarColumns | null = null;
  /** The last skipped bucket, while no stored bar has been walked since (skipDay −1: none). */
  private skipDay = -1;
  private skipEndS = 0;

  constructor(
    private readonly source: BarSource,
    private readonly inst: Instrument,
    private readonly engine: SessionEngine,
    /** The challenge session's rule (null for a plain session): it runs the stored ranges instead of the engine. */
    private readonly rule: ChallengeRule | null,
    /** True: no levels, every stored bar is walked (the flat reference). */
    flat = false,
    /** Sees each stored range walked, as far as it was processed (the flat walk aggregates its bars here). */
    private readonly onWalked: ((bars: BarColumns, from: number, to: number) => void) | null = null,
  ) {
    this.widthsS = rollupWidthsFor(inst);
    this.levelCount = flat ? 0 : this.widthsS.length;
  }

  startDay(day: number, fromS: number): void {
    this.day = day;
    this.dayFromS = fromS;
    this.stored = null;
    this.levels.length = 0;
  }

  storedTimes(): BarColumns {
    return (this.stored ??= this.source.day(this.inst, this.day));
  }

  levelWidthS(k: number): number {
    return this.widthsS[k];
  }

  level(k: number): BarColumns | null {
    let bars = this.levels[k];
    if (bars === undefined) {
      bars = this.source.rollup(this.inst, this.day, this.widthsS[k]);
      this.levels[k] = bars;
    }
    return bars;
  }

  triggers(out: RuleThresholds): void {
    const e = this.engine;
    out.upTicks = e.book.upTriggerTicks;
    out.downTicks = e.book.downTriggerTicks;
    out.eventS = NO_EVENT_S;
    const rule = this.rule;
    if (rule === null) return;
    const t = this.ruleScratch;
    // One rule watches the account: pointed at this instrument's engine before it reads or runs it.
    rule.use(e);
    rule.thresholds(e, t);
    // The account's equity moves with another contract's price too: while this one and another hold
    // positions, the walk descends to every stored bar (merged in time order), where the rule sees
    // each move (with one position open, the others' prices do not move the equity: exact skipping).
    if (e.positionQty !== 0 && e.othersOpen && rule.state.status === 'active') {
      t.upTicks = NO_DOWN_TRIGGER_TICKS;
      t.downTicks = NO_UP_TRIGGER_TICKS;
    }
    if (t.upTicks < out.upTicks) out.upTicks = t.upTicks;
    if (t.downTicks > out.downTicks) out.downTicks = t.downTicks;
    // A rule that has not seen a bar yet starts its trade date at the first one: walk it.
    out.eventS = rule.state.currentTradeDate === null ? 0 : t.eventS;
  }

  walkStored(fromS: number, toS: number): boolean {
    const bars = this.storedTimes();
    const a = lowerBound(bars.time, bars.length, fromS);
    const b = lowerBound(bars.time, bars.length, toS);
    if (a >= b) return false;
    // The flat walk rolls the trade date at the first bar of each day's range only (ChallengeRule.run).
    const dayFirst = a === lowerBound(bars.time, bars.length, this.dayFromS);
    this.rule?.use(this.engine);
    const r = this.rule
      ? this.rule.run(bars, a, b, dayFirst)
      : { ...this.engine.processBars(bars, a, b, null), outcome: null };
    if (r.processed > 0) this.skipDay = -1;
    this.onWalked?.(bars, a, a + r.processed);
    if (!r.halted) return false;
    this.haltS = bars.time[a + r.processed - 1];
    this.outcome = r.outcome;
    return true;
  }

  skipped(closeTicks: number, bucketS: number, widthS: number): void {
    // The price is exact (the bucket's close is its last stored bar's); the time is fixed at the end.
    this.engine.mark(closeTicks, bucketS);
    this.skipDay = this.day;
    this.skipEndS = bucketS + widthS;
  }

  /** When the walk ended on a skip: the mark's time becomes the last skipped stored bar's, as the flat walk leaves it. */
  fixSkippedMarkTime(): void {
    if (this.skipDay < 0) return;
    const timeS = lastBarTimeBefore(this.source, this.inst, this.skipDay, this.skipEndS);
    if (timeS === null) throw new Error(`skipped bucket ending ${this.skipEndS} holds no stored bar`);
    this.engine.mark(this.engine.lastPriceTicks, timeS);
    const st = this.rule?.state;
    if (st && st.status === 'active' && (st.lastSimTimeS === null || timeS > st.lastSimTimeS)) st.lastSimTimeS = timeS;
  }
}
