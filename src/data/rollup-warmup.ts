// Background warm-up of rollups at start: every instrument's rollups over the synthetic span, newest
// day first (charts usually look at recent history), one instrument-day per slice so no slice holds
// the event loop for more than one day's generation and aggregation (~10 ms), with a timer turn
// between slices so requests interleave. Days whose rollups are kept already cost one query each.
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
    try {
      this.source.warmRollups(INSTRUMENTS[this.instIndex], this.day);
    } catch (e) {
      // A failing day (a locked database) is left for History to build on demand.
      this.onError(e);
    }
    this.visited++;
    this.instIndex++;
    if (this.instIndex === INSTRUMENTS.length) {
      this.instIndex = 0;
      this.day--;
    }
    this.schedule();
  }
}
