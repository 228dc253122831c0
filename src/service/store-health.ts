// What the process has seen of its store lately, for the HTTP answers and /health: a write that
// failed for lack of space or an I/O error makes the store `degraded` (requests answer 503 with
// Retry-After), a damaged file makes it `error`. Both pass on their own: once no such failure has
// been seen for `recoverAfterMs`, the store reads `ok` again, so freeing disk space brings the
// service back without a restart. Failures are logged once per `logIntervalMs`, with the count since
// the last line, not once per request (a full disk under load failed thousands of requests a second).

import type { Clock } from '../lib/clock.ts';
import type { StoreFailure } from '../store/db.ts';

export type StoreState = 'ok' | 'degraded' | 'error';

export interface StoreHealthLimits {
  readonly recoverAfterMs: number;
  readonly logIntervalMs: number;
}

type LogError = (message: string, fields: Record<string, unknown>) => void;

export class StoreHealth {
  private lastUnwritableMs = Number.NEGATIVE_INFINITY;
  private lastCorruptMs = Number.NEGATIVE_INFINITY;
  private lastLogMs = Number.NEGATIVE_INFINITY;
  private unloggedFailures = 0;

  constructor(
    private readonly clock: Clock,
    private readonly logError: LogError,
    private readonly limits: StoreHealthLimits,
  ) {}

  /** Counts a failure; logs the first, then at most one line per interval with the count since. */
  record(failure: Exclude<StoreFailure, 'contended'>, error: unknown): void {
    const nowMs = this.clock.nowMs();
    if (failure === 'corrupt') this.lastCorruptMs = nowMs;
    else this.lastUnwritableMs = nowMs;
    this.unloggedFailures++;
    if (nowMs - this.lastLogMs < this.limits.logIntervalMs) return;
    const message = failure === 'corrupt' ? 'store: the database file is damaged; answering 503' : 'store: writes are failing (disk full or I/O error); answering 503';
    this.logError(message, { failures: this.unloggedFailures, sinceS: this.lastLogMs === Number.NEGATIVE_INFINITY ? 0 : Math.round((nowMs - this.lastLogMs) / 1000), error: String((error as Error)?.message ?? error) });
    this.lastLogMs = nowMs;
    this.unloggedFailures = 0;
  }

  state(): StoreState {
    const nowMs = this.clock.nowMs();
    if (nowMs - this.lastCorruptMs < this.limits.recoverAfterMs) return 'error';
    if (nowMs - this.lastUnwritableMs < this.limits.recoverAfterMs) return 'degraded';
    return 'ok';
  }
}
