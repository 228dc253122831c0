// Background warm-up of rollups at start: every instrument's rollups over the synthetic span, newest
// day first (charts usually look at recent history), one instrument-day per slice, with a timer turn
// between slices so requests interleave: a slice never builds more than one instrument-day. Measured
// on a 2-core machine (docs/decisions.md, "History and market data"): median ~2 ms a slice (a generated
// 1 s day ~1.7 ms, both aggregations ~0.4 ms), p99 ~8-12 ms; only the first slice, cold (JIT and
// the first prepared statements), took 25-45 ms. Days whose rollups are kept already cost one query.
// With a RollupBuilder (bar-source.ts) a synthetic day is generated and rolled up in a worker: the
// slice on the main thread is the query and keeping the result, and the next slice waits for it.
// Stoppable: `stop()` ends it before the next slice (shutdown calls it before closing the database).

import { INSTRUMENTS } from '../domain/instrument.ts';
import type { BarSource } from './bar-source.ts';

export class RollupWarmup {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private day = 0;
  private instIndex = 0;
  private firstDay = 0;
  /** Instrument-days visited so far (a test and the log read it). */
  visited = 0;
  /** The longest slice so far, in milliseconds (how long the warm-up held the event loop at once). */
  sliceMsMax = 0;

  constructor(
    private readonly source: BarSource,
    private readonly onDone: (visited: number) => void = () => {},
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  start(): void {
    const span = this.source.syntheticRange();
    this.firstDay = span.firstDay;
    this.day = span.lastDay;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.slice(), 0);
  }

  private slice(): void {
    this.timer = null;
    if (this.stopped) return;
    if (this.day < this.firstDay) {
      this.onDone(this.visited);
      return;
    }
    const startMs = performance.now();
    let offThread: Promise<void> | null = null;
    try {
      offThread = this.source.warmRollups(INSTRUMENTS[this.instIndex], this.day);
    } catch (e) {
      // A failing day (a locked database) is left for History to build on demand.
      this.onError(e);
    }
    this.sliceMsMax = Math.max(this.sliceMsMax, performance.now() - startMs);
    if (offThread === null) this.next();
    else offThread.then(() => this.next(), (e) => this.failedOffThread(e));
  }

  /** A day the worker could not build (or a closed builder at shutdown) is left for its readers. */
  private failedOffThread(e: unknown): void {
    if (this.stopped) return;
    this.onError(e);
    this.next();
  }

  private next(): void {
    this.visited++;
    this.instIndex++;
    if (this.instIndex === INSTRUMENTS.length) {
      this.instIndex = 0;
      this.day--;
    }
    this.schedule();
  }
}
