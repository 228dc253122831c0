// The ledger's instrument as a feed of the bar walker (engine/walker.ts): one level, the run's own
// bars (each the exact aggregate of its stored bars, feed.ts), above the stored bars. The walker
// skips a run bar whose range reaches no trigger and walks the stored bars of one that can; the
// ledger marks the engine at the run bar's close and end itself (ledger.ts), so a skip marks nothing.

import { type BarColumns, lowerBound } from '../../data/bar-columns.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { RuleThresholds } from '../../engine/stop-rule.ts';
import { NO_EVENT_S } from '../../engine/types.ts';
import type { WalkFeed } from '../../engine/walker.ts';
import type { DayBatch } from './feed.ts';

/** What the walker scans a ledger engine's bars for: its book's triggers (the ledger runs no StopRule: no event time). */
export function bookTriggers(engine: SessionEngine, out: RuleThresholds): void {
  out.upTicks = engine.book.upTriggerTicks;
  out.downTicks = engine.book.downTriggerTicks;
  out.eventS = NO_EVENT_S;
}

export class RunBarFeed implements WalkFeed {
  readonly levelCount = 1;
  private batch: DayBatch | null = null;
  /** The run bar being walked (its index in the batch). */
  private j = 0;
  private widthS = 1;

  constructor(private readonly engine: SessionEngine) {}

  /** The walker will be asked for run bar `j` of `b` next (`widthS`: the run timeframe's width). */
  at(b: DayBatch, j: number, widthS: number): void {
    this.batch = b;
    this.j = j;
    this.widthS = widthS;
  }

  levelWidthS(): number {
    return this.widthS;
  }

  level(): BarColumns {
    return (this.batch as DayBatch).run;
  }

  triggers(out: RuleThresholds): void {
    bookTriggers(this.engine, out);
  }

  /** The current run bar's stored bars with time in [fromS, toS) (the walker asks for its whole bucket). */
  walkStored(fromS: number, toS: number): boolean {
    const b = this.batch as DayBatch;
    const stored = b.stored;
    const first = b.storedStart(this.j);
    const last = b.storedStart(this.j + 1);
    const a = lowerBound(stored.time, last, fromS, first);
    this.engine.processBars(stored, a, lowerBound(stored.time, last, toS, a), null);
    return false;
  }

  skipped(): void {
    // The ledger marks at the run bar's close and end right after the walk.
  }

  /** The day's stored bars (the merged walk of several instruments reads their times). */
  storedTimes(): { time: Uint32Array; length: number } {
    return (this.batch as DayBatch).stored;
  }
}
