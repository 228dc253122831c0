// A run's captured output, bounded: the first lines are kept up to a line count and a byte budget,
// then one note says how many more were dropped. The harness bounds its output too; this bound is
// the server's, since the child's word is not trusted. Each line keeps the open time of the bar the
// strategy was on when it printed it (null before the first bar, and for the note).

import { limits } from '../../config.ts';

export class LogBuffer {
  readonly lines: string[] = [];
  /** Bar open time (epoch s) of each kept line, or null. */
  readonly times: (number | null)[] = [];
  private bytes = 0;
  private dropped = 0;

  push(line: string, barTimeS: number | null = null): void {
    const l = line.length > limits.playgroundLogLineCharsMax ? `${line.slice(0, limits.playgroundLogLineCharsMax)}…` : line;
    if (this.dropped > 0 || this.lines.length >= limits.playgroundLogLinesMax || this.bytes + l.length > limits.playgroundLogBytesMax) {
      this.dropped++;
      return;
    }
    this.lines.push(l);
    this.times.push(barTimeS);
    this.bytes += l.length;
  }

  /** The kept lines, with the truncation note when lines were dropped. */
  view(): string[] {
    return this.dropped === 0 ? this.lines.slice() : [...this.lines, `[output truncated: ${this.dropped} more lines not shown]`];
  }

  /** The bar time of each line of `view()`, in order (null for the truncation note). */
  timesView(): (number | null)[] {
    return this.dropped === 0 ? this.times.slice() : [...this.times, null];
  }
}
