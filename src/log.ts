// The server's one logger: plain one-line logs on stderr (time, level, message, key=value fields),
// injected wherever the server logs (the composition root hands its `error` to the services; nothing
// of the server writes to the console: a tidy rule). Request lines carry the method, the path without
// query string, the status and the milliseconds; never a header or body, so tokens and keys cannot
// reach the log.
//
// Logging never takes the server down (docs/decisions.md, "Transport and envelope"): a line that cannot
// be written (a full disk under the log file, a closed pipe) is dropped, and the first line written
// after drops is preceded by one saying how many (`N log lines dropped`). Before, the runtime's stderr
// stream raised the write's error as an unhandled event and the process exited at its next line.
// - On a file or a terminal (fd 2 a regular file or character device) each line is written at once:
//   a full disk fails at once, and a write that works again says what was lost.
// - On a pipe or socket a reader may stop reading, and a blocking write would stop the event loop
//   with it: lines are written in the background, at most `logQueuedBytesMax` waiting, and lines
//   beyond are dropped. `flush()` waits (bounded) for them before the process exits.

import { fstatSync, write, writeSync } from 'node:fs';
import { limits } from './config.ts';

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, error() {} };

/** Where lines go: at once (throws on failure), or only in the background (`writeAt` null). */
export interface LogSink {
  writeAt: ((text: string) => void) | null;
  writeLater(text: string, done: (error: unknown) => void): void;
}

export interface FlushingLogger extends Logger {
  /** Resolves once every line taken so far is written or dropped, or after `maxMs`. */
  flush(maxMs?: number): Promise<void>;
}

function fmt(fields?: Record<string, unknown>): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join('');
}

export function consoleLogger(sink: LogSink = stderrSink()): FlushingLogger {
  const lines = new LineWriter(sink, limits.logQueuedBytesMax);
  return {
    info: (msg, fields) => lines.line(`${new Date().toISOString()} INFO ${msg}${fmt(fields)}`),
    error: (msg, fields) => lines.line(`${new Date().toISOString()} ERROR ${msg}${fmt(fields)}`),
    flush: (maxMs = 1000) => lines.flush(maxMs),
  };
}

/** Lines to a sink; a line that cannot be written is counted, and the count said once writing works. */
export class LineWriter {
  private queue: string[] = [];
  private queuedBytes = 0;
  private writing = false;
  private dropped = 0;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly sink: LogSink,
    private readonly queuedBytesMax: number,
  ) {}

  line(text: string): void {
    const writeAt = this.sink.writeAt;
    if (writeAt && !this.writing) {
      try {
        if (this.dropped > 0) writeAt(droppedLine(this.dropped));
        this.dropped = 0;
        writeAt(`${text}\n`);
      } catch {
        this.dropped++;
      }
      return;
    }
    if (this.queuedBytes + text.length + 1 > this.queuedBytesMax) {
      this.dropped++;
      return;
    }
    this.queue.push(`${text}\n`);
    this.queuedBytes += text.length + 1;
    this.pump();
  }

  /** Lines not written, not yet told. */
  get droppedCount(): number {
    return this.dropped;
  }

  flush(maxMs: number): Promise<void> {
    if (!this.writing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idle.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.idle.add(done);
    });
  }

  private pump(): void {
    if (this.writing) return;
    if (this.queue.length === 0) {
      for (const f of [...this.idle]) f();
      return;
    }
    const lines = this.queue;
    const told = this.dropped;
    this.queue = [];
    this.queuedBytes = 0;
    this.dropped = 0;
    this.writing = true;
    this.sink.writeLater((told > 0 ? droppedLine(told) : '') + lines.join(''), (error) => {
      this.writing = false;
      if (error) this.dropped += told + lines.length;
      this.pump();
    });
  }
}

function droppedLine(n: number): string {
  return `${new Date().toISOString()} ERROR ${n} log lines dropped (writing the log failed)\n`;
}

/** The process's stderr (fd 2): at once on a file or terminal, in the background on a pipe or socket. */
export function stderrSink(fd = 2): LogSink {
  let atOnce = true;
  try {
    const st = fstatSync(fd);
    atOnce = st.isFile() || st.isCharacterDevice();
  } catch {
    // A closed fd 2: every write fails, each counted.
  }
  return {
    writeAt: atOnce
      ? (text) => {
          const bytes = Buffer.from(text);
          for (let off = 0; off < bytes.length;) {
            const n = writeSync(fd, bytes, off);
            if (n <= 0) throw new Error('log write made no progress');
            off += n;
          }
        }
      : null,
    writeLater(text, done) {
      const bytes = Buffer.from(text);
      const from = (off: number) =>
        write(fd, bytes, off, bytes.length - off, null, (e, n) => {
          if (e || n <= 0) return done(e ?? new Error('log write made no progress'));
          if (off + n < bytes.length) from(off + n);
          else done(null);
        });
      from(0);
    },
  };
}
