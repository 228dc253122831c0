// Replay sessions: the registry of live sessions, their lifecycle (start, step, jump, play, pause,
// end, idle finalization), and persistence. Every call that changes a session writes the changed
// orders, the new fills, the cursor, the engine's core state and the balance in one transaction
// before it returns, so what a client was told survives a crash; on start, live sessions are
// restored from the store exactly where they stopped (playback comes back paused).

import { limits, type Config } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { type EngineState, SessionEngine } from '../../engine/engine.ts';
import type { Fill, Order } from '../../engine/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { parseIsoMs } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import type { AccountStore } from '../../store/accounts.ts';
import { type Db, inTransaction } from '../../store/db.ts';
import type { ReplayStore } from '../../store/replay.ts';
import { SlidingWindowLimiter } from '../rate-limit.ts';
import { type AdvanceResult, LiveSession } from './session.ts';
import { parseSessionTimeframe, planSession, resolveInstrument, type StartError, type StartRequest } from './setup.ts';
import { StreamingAllowance } from './streaming.ts';

export type SessionError =
  | { kind: 'account_not_found' }
  | { kind: 'session_ended' };

export type AdvanceError =
  | SessionError
  | { kind: 'invalid_steps' }
  | { kind: 'invalid_target_time' }
  | { kind: 'busy'; retryAfterS: number; message: string }
  | { kind: 'rate_limited'; retryAfterS: number; message: string };

export type PlayError = SessionError | { kind: 'invalid_speed' };

export interface StartResult {
  session: LiveSession;
}

export interface AdvanceOutcome {
  session: LiveSession;
  advance: AdvanceResult;
  fills: readonly Fill[];
}

export interface ReplayDeps {
  db: Db;
  config: Config;
  clock: Clock;
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
}

/** Before a mutating call: the orders that may change and where the fill log stood. */
interface ChangeMark {
  working: Order[];
  ordersLen: number;
  fillsFrom: number;
}

export class ReplayService {
  private readonly sessions = new Map<number, LiveSession>();
  private readonly startLimiter = new SlidingWindowLimiter(limits.replayStartsPerWindowMax, limits.replayStartWindowMs);
  private readonly streaming: StreamingAllowance;
  private idleTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly d: ReplayDeps) {
    this.streaming = new StreamingAllowance(d.clock);
    this.restoreLive();
  }

  // ---- lookup ----

  /** The live session behind an account the user owns. */
  live(userId: number, accountId: unknown): Result<LiveSession, SessionError> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const account = this.d.accounts.byId(accountId);
    if (!account || account.userId !== userId) return err({ kind: 'account_not_found' });
    const session = this.sessions.get(accountId);
    return session ? ok(session) : err({ kind: 'session_ended' });
  }

  /** The instrument a replay account trades (live or ended); undefined for other accounts. */
  instrumentOf(accountId: number): Instrument | undefined {
    const live = this.sessions.get(accountId);
    if (live) return live.inst;
    const row = this.d.store.session(accountId);
    return row ? findInstrument(row.symbol) : undefined;
  }

  liveCount(userId: number): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.userId === userId) n++;
    return n;
  }

  // ---- start ----

  start(userId: number, req: StartRequest): Result<StartResult, StartError> {
    const nowMs = this.d.clock.nowMs();
    const gate = this.startLimiter.take(String(userId), nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const inst = resolveInstrument(req);
    if (!inst.ok) return inst;
    if (req.startDate === undefined || req.startDate === null || req.startDate === '') return err({ kind: 'start_date_required' });
    const tf = parseSessionTimeframe(req.timeframe, inst.value, this.d.config.customTimeframes);
    if (!tf.ok) return tf;
    if (this.liveCount(userId) >= limits.replaySessionsPerAccountMax) return err({ kind: 'too_many_sessions' });
    const plan = planSession(this.d.source, inst.value, tf.value, req.startDate, req.endDate);
    if (!plan.ok) return plan;
    const p = plan.value;

    const engine = new SessionEngine(p.inst, { startingBalanceCents: limits.startingBalanceCents, slippageTicks: this.d.config.slippageTicks });
    if (p.lastPrice) engine.setLastPrice(p.lastPrice.ticks, p.lastPrice.timeS);
    const session = inTransaction(this.d.db, () => {
      const account = this.d.accounts.insert({ userId, kind: 'replay', name: 'Replay', balanceCents: engine.balanceCents, nowMs });
      this.d.accounts.rename(account.id, `REPLAY-${p.inst.symbol}-${p.tf.text}-${account.id}`);
      const s = new LiveSession(
        {
          accountId: account.id,
          sessionId: `rs_${randomSecret(12)}`,
          userId,
          inst: p.inst,
          tf: p.tf,
          startS: p.startS,
          endS: p.endS,
          cursorS: p.startS,
          currentIndex: 0,
          totalBars: p.totalBars,
          historyBars: p.historyBars,
          challengeId: null,
          createdMs: nowMs,
        },
        engine,
        this.d.source,
        null,
        nowMs,
      );
      this.d.store.insertSession({
        accountId: s.accountId,
        sessionId: s.sessionId,
        userId,
        symbol: p.inst.symbol,
        timeframe: p.tf.text,
        startS: p.startS,
        endS: p.endS,
        cursorS: s.cursorS,
        currentIndex: 0,
        totalBars: p.totalBars,
        historyBars: p.historyBars,
        status: 'active',
        endReason: null,
        challengeId: null,
        engineCore: JSON.stringify(engine.coreState()),
        createdMs: nowMs,
        lastActivityMs: nowMs,
        endedMs: null,
      });
      return s;
    });
    this.sessions.set(session.accountId, session);
    return ok({ session });
  }

  // ---- advancing ----

  async step(userId: number, accountId: unknown, steps: unknown): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const n = steps === undefined || steps === null ? 1 : steps;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > limits.replayStepsMax) {
      const found = this.live(userId, accountId);
      return found.ok ? err({ kind: 'invalid_steps' }) : found;
    }
    return this.advance(userId, accountId, (s) => s.step(n), n);
  }

  async jumpTo(userId: number, accountId: unknown, targetTime: unknown): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = this.live(userId, accountId);
    if (!found.ok) return found;
    const ms = parseIsoMs(targetTime);
    if (ms === undefined) return err({ kind: 'invalid_target_time' });
    return this.advance(userId, accountId, (s) => s.jumpTo(Math.floor(ms / 1000)), 0);
  }

  /**
   * Runs one advance under the session's lock. The lock spans an event-loop yield, so a second call
   * arriving meanwhile is refused with 503 instead of being queued, and nothing is processed twice.
   */
  private async advance(
    userId: number,
    accountId: unknown,
    run: (s: LiveSession) => AdvanceResult,
    streamedBars: number,
  ): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = this.live(userId, accountId);
    if (!found.ok) return found;
    const s = found.value;
    if (s.busy || s.playTimer !== null) {
      return err({ kind: 'busy', retryAfterS: 1, message: s.busy ? 'Session busy with another operation' : 'Session is playing; pause it first' });
    }
    const allowance = this.streaming.take(userId, streamedBars);
    if (!allowance.ok) return err({ kind: 'rate_limited', retryAfterS: allowance.retryAfterS, message: allowance.message });
    s.busy = true;
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.sessions.get(s.accountId) !== s) return err({ kind: 'session_ended' });
      const outcome = this.advanceLocked(s, run);
      s.prefetch();
      return ok(outcome);
    } finally {
      s.busy = false;
    }
  }

  /** Advances and commits; used by step, jump and the playback timer (which holds no lock). */
  advanceLocked(s: LiveSession, run: (s: LiveSession) => AdvanceResult): AdvanceOutcome {
    const mark = this.mark(s);
    const advance = run(s);
    if (advance.halted) this.finalize(s, 'challenge_outcome', mark);
    else this.commit(s, mark);
    return { session: s, advance, fills: s.engine.fills.slice(mark.fillsFrom) };
  }

  // ---- playback ----

  play(userId: number, accountId: unknown, speed: unknown): Result<{ session: LiveSession; speed: number }, PlayError> {
    const found = this.live(userId, accountId);
    if (!found.ok) return found;
    const v = speed === undefined || speed === null ? 1 : speed;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < limits.replaySpeedMin || v > limits.replaySpeedMax) {
      return err({ kind: 'invalid_speed' });
    }
    const s = found.value;
    this.touch(s);
    this.stopPlayback(s);
    s.playSpeed = v;
    // Speed 1 = two bars a second; the timer ticks at that rate up to 100 Hz and catches up
    // by playing several bars in a tick when the event loop was late.
    const barsPerS = 2 * v;
    const startedMs = this.d.clock.nowMs();
    let played = 0;
    s.playTimer = setInterval(() => {
      if (s.busy) return;
      const due = Math.floor(((this.d.clock.nowMs() - startedMs) * barsPerS) / 1000) - played;
      if (due <= 0) return;
      const n = Math.min(due, limits.replayStepsMax);
      played += n;
      const r = this.advanceLocked(s, (x) => x.step(n));
      if (r.advance.halted || r.advance.played === 0) this.stopPlayback(s);
    }, Math.max(10, Math.floor(1000 / barsPerS)));
    return ok({ session: s, speed: v });
  }

  pause(userId: number, accountId: unknown): Result<LiveSession, SessionError> {
    const found = this.live(userId, accountId);
    if (!found.ok) return found;
    this.stopPlayback(found.value);
    this.touch(found.value);
    return found;
  }

  private stopPlayback(s: LiveSession): void {
    if (s.playTimer !== null) clearInterval(s.playTimer);
    s.playTimer = null;
    s.playSpeed = null;
  }

  // ---- ending ----

  /** Replay/end: flattens at the current price, cancels working orders, persists, releases. */
  end(userId: number, accountId: unknown): Result<{ session: LiveSession; fills: readonly Fill[] }, SessionError> {
    const found = this.live(userId, accountId);
    if (!found.ok) return found;
    const s = found.value;
    const mark = this.mark(s);
    this.finalize(s, 'ended', mark);
    return ok({ session: s, fills: s.engine.fills.slice(mark.fillsFrom) });
  }

  /** Ends sessions without API activity for an hour. Called by a timer (and by tests). */
  sweepIdle(): number {
    const cut = this.d.clock.nowMs() - limits.replayIdleMs;
    let n = 0;
    for (const s of [...this.sessions.values()]) {
      if (s.lastActivityMs <= cut) {
        this.finalize(s, 'idle', this.mark(s));
        n++;
      }
    }
    return n;
  }

  startIdleSweeper(): void {
    this.idleTimer ??= setInterval(() => this.sweepIdle(), 60_000);
  }

  /** Stops timers; live sessions stay persisted as they are and are restored on the next start. */
  shutdown(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    for (const s of this.sessions.values()) this.stopPlayback(s);
  }

  private finalize(s: LiveSession, reason: string, mark: ChangeMark): void {
    this.stopPlayback(s);
    // A position implies a fill, hence a last price: flatten can always price it.
    s.engine.flatten(s.nowS);
    s.finalized = true;
    this.commit(s, mark, reason);
    this.sessions.delete(s.accountId);
  }

  // ---- persistence ----

  mark(s: LiveSession): ChangeMark {
    return { working: s.engine.book.working.slice(), ordersLen: s.engine.orders.length, fillsFrom: s.engine.fillCount };
  }

  touch(s: LiveSession): void {
    s.lastActivityMs = this.d.clock.nowMs();
    this.d.store.touch(s.accountId, s.lastActivityMs);
  }

  /** Writes what changed since `mark` in one transaction; `endReason` ends the session. */
  commit(s: LiveSession, mark: ChangeMark, endReason: string | null = null): void {
    const nowMs = this.d.clock.nowMs();
    s.lastActivityMs = nowMs;
    const changed = new Set<Order>(mark.working);
    for (let i = mark.ordersLen; i < s.engine.orders.length; i++) changed.add(s.engine.orders[i]);
    inTransaction(this.d.db, () => {
      this.d.store.upsertOrders(s.accountId, changed);
      this.d.store.insertFills(s.accountId, s.engine.fills.slice(mark.fillsFrom));
      this.d.store.updateSession({
        accountId: s.accountId,
        cursorS: s.cursorS,
        currentIndex: s.currentIndex,
        engineCore: JSON.stringify(s.engine.coreState()),
        status: endReason ? 'ended' : 'active',
        endReason,
        lastActivityMs: nowMs,
        endedMs: endReason ? nowMs : null,
      });
      this.d.accounts.setBalance(s.accountId, s.engine.balanceCents);
      if (endReason) this.d.accounts.setActive(s.accountId, false);
    });
  }

  private restoreLive(): void {
    for (const row of this.d.store.activeSessions()) {
      const inst = findInstrument(row.symbol);
      const tf = inst && parseTimeframe(row.timeframe, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
      if (!inst || !tf || !tf.ok) continue;
      const core = JSON.parse(row.engineCore) as EngineState;
      const engine = SessionEngine.restore(inst, { startingBalanceCents: core.balanceCents, slippageTicks: this.d.config.slippageTicks }, core);
      const s = new LiveSession({ ...row, inst, tf: tf.value }, engine, this.d.source, null, row.lastActivityMs);
      this.sessions.set(s.accountId, s);
    }
  }
}
