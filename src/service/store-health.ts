// What the process knows of its store, for the HTTP answers and /health: a write that failed for
// lack of space, an I/O error or a shared store out of reach makes the store `degraded` (requests
// answer 503 with Retry-After), a damaged file makes it `error`. Health follows the store both ways
// within a look or two: /health looks at the store itself (a read every time; while failures were
// seen since its last good look, a check that writes can succeed again, `probeWrites`, at most once
// per `probeIntervalMs`), and a good look clears the failures seen before it, so freeing disk space
// or a restarted PostgreSQL brings the service back at once. Without a look, a failure counts for
// `recoverAfterMs`. A damaged file counts for `recoverAfterMs` after the last request that met it,
// and for as long as the periodic integrity check (src/service/integrity-watch.ts) fails.
// Failures are logged once per `logIntervalMs`, with the count since the last line, not once per
// request (a full disk under load failed thousands of requests a second).

import type { Clock } from '../lib/clock.ts';
import type { StoreFailure } from '../store/db.ts';

export type StoreState = 'ok' | 'degraded' | 'error';

export interface StoreHealthLimits {
  readonly recoverAfterMs: number;
  readonly logIntervalMs: number;
  /** The write check runs at most this often (concurrent /health calls share one). */
  readonly probeIntervalMs?: number;
}

type LogError = (message: string, fields: Record<string, unknown>) => void;

export class StoreHealth {
  private lastUnwritableMs = Number.NEGATIVE_INFINITY;
  private lastCorruptMs = Number.NEGATIVE_INFINITY;
  private lastLogMs = Number.NEGATIVE_INFINITY;
  private unloggedFailures = 0;
  /** Failures counted in order (not by time: a clock may not move between two of them). */
  private unwritableSeq = 0;
  /** The last failure a passing write check started after: it and those before it are over. */
  private clearedSeq = 0;
  private probe: Promise<void> | null = null;
  private lastProbeMs = Number.NEGATIVE_INFINITY;
  /** The integrity check's finding while it fails (null: it passed, or has not run). */
  private damage: string | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly logError: LogError,
    private readonly limits: StoreHealthLimits,
  ) {}

  /** Counts a failure; logs the first, then at most one line per interval with the count since. */
  record(failure: Exclude<StoreFailure, 'contended'>, error: Error): void {
    const nowMs = this.clock.nowMs();
    if (failure === 'corrupt') this.lastCorruptMs = nowMs;
    else {
      this.lastUnwritableMs = nowMs;
      this.unwritableSeq++;
    }
    this.unloggedFailures++;
    if (nowMs - this.lastLogMs < this.limits.logIntervalMs) return;
    const message = failure === 'corrupt' ? 'store: the database file is damaged; answering 503' : 'store: writes are failing (disk full or I/O error); answering 503';
    this.logError(message, { failures: this.unloggedFailures, sinceS: this.lastLogMs === Number.NEGATIVE_INFINITY ? 0 : Math.round((nowMs - this.lastLogMs) / 1000), error: error.message });
    this.lastLogMs = nowMs;
    this.unloggedFailures = 0;
  }

  /**
   * While writes were seen failing since the last good check: runs `canWrite` (at most once per
   * `probeIntervalMs`; callers at once share it) and, when it passes, the failures before it are over.
   */
  async probeWrites(canWrite: () => Promise<boolean>): Promise<void> {
    if (!this.writesFailing()) return;
    if (!this.probe && this.clock.nowMs() - this.lastProbeMs >= (this.limits.probeIntervalMs ?? 0)) {
      this.lastProbeMs = this.clock.nowMs();
      const seen = this.unwritableSeq;
      this.probe = canWrite()
        .then((ok) => {
          if (ok) this.clearedSeq = Math.max(this.clearedSeq, seen);
        }, () => {})
        .finally(() => (this.probe = null));
    }
    await this.probe;
  }

  /** The periodic integrity check's finding: null when it passed. Logged once when it starts failing. */
  integrity(finding: string | null): void {
    if (finding !== null && this.damage === null) this.logError('store: the integrity check (PRAGMA quick_check) failed; /health answers degraded', { finding });
    this.damage = finding;
  }

  state(): StoreState {
    const nowMs = this.clock.nowMs();
    if (this.damage !== null || nowMs - this.lastCorruptMs < this.limits.recoverAfterMs) return 'error';
    if (this.writesFailing()) return 'degraded';
    return 'ok';
  }

  private writesFailing(): boolean {
    return this.unwritableSeq > this.clearedSeq && this.clock.nowMs() - this.lastUnwritableMs < this.limits.recoverAfterMs;
  }
}
