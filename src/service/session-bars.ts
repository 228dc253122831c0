// The console's read of a live replay session's bars (POST /api/auth/replay-sessions/:accountId/bars):
// the bars of the session's timeframe from its chart history's start up to its clock, never past it,
// built as History builds them. Its own rate limit (limits.consoleSessionBars…), and nothing billed
// against History's rate or daily budgets: the desk redraws after every jump, and a trader skipping
// through a day must not wedge the chart or spend a bot's History requests (issue 30, defect 1).

import { limits } from '../config.ts';
import { type BarColumns, EMPTY_BARS } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import type { Instrument } from '../domain/instrument.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { drainSliced, scanForward } from './history-scan.ts';
import type { RateLimiter, RateLimits } from './rate-limit.ts';
import type { LiveSession } from './replay/session.ts';

export type SessionBarsError = { kind: 'rate_limited'; retryAfterS: number };

export interface SessionBars {
  bars: BarColumns;
  /** The session's clock and progress when the bars were read: the bars open before `nowS`. */
  nowS: number;
  currentIndex: number;
  totalBars: number;
  /** Whether the bars reach the clock (false: `barsMax` of them, more follow). */
  complete: boolean;
}

export class SessionBarsReader {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly source: BarSource,
    rateLimits: RateLimits,
    private readonly nowMs: () => number,
  ) {
    this.limiter = rateLimits.limiter('console_session_bars', limits.consoleSessionBarsRequestsPerWindowMax, limits.consoleSessionBarsWindowMs);
  }

  /**
   * The bars of `inst` (the session's instrument, or one of a session over several) opening after `afterS` (from `firstS`, its chart history's start, when null)
   * and before its clock: at most `barsMax`. Read in slices, other requests served between them.
   */
  async read(userId: number, s: LiveSession, inst: Instrument, firstS: number, afterS: number | null, barsMax: number): Promise<Result<SessionBars, SessionBarsError>> {
    const gate = await this.limiter.take(String(userId), this.nowMs());
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    // Taken before the scan: a session playing meanwhile moves on, and the answer says where it was.
    const { nowS, currentIndex, totalBars } = s;
    const fromS = afterS === null ? firstS : Math.max(firstS, afterS + 1);
    const max = Math.min(barsMax, limits.consoleSessionBarsPerRequestMax);
    if (fromS >= nowS) return ok({ bars: EMPTY_BARS, nowS, currentIndex, totalBars, complete: true });
    const { bars } = await drainSliced(scanForward(this.source, inst, s.tf, fromS, nowS, max), limits.historySliceMs);
    return ok({ bars, nowS, currentIndex, totalBars, complete: bars.length < max });
  }
}
