// Moving a live session through time: Replay/step and jumpTo (one advance under the session's lock,
// walked in slices that yield to the event loop, committed once), and playback (a timer playing a
// few bars a tick until paused, halted or out of data). An advance that meets a challenge's
// violation or pass ends the session there (commands.ts `finalize`).

import type { Config } from '../../config.ts';
import { limits } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import { parseIsoMs } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { StreamingBudget } from '../streaming-budget.ts';
import { ADVANCE_SLICE_MS, type AdvancePlan, joinPieces, jumpPlan, stepPlan } from './advance-plan.ts';
import type { SessionCommands } from './commands.ts';
import type { Movement } from './events.ts';
import { type ChangeMark, fillsSince } from './persistence.ts';
import type { SessionRegistry } from './registry.ts';
import type { AdvanceResult, LiveSession } from './session.ts';
import type { AdvanceError, AdvanceOutcome, LogError, PlaybackRate, PlayError, SessionError } from './types.ts';

export interface AdvancingDeps {
  config: Config;
  clock: Clock;
  logError: LogError;
}

export class SessionAdvancer {
  constructor(
    private readonly d: AdvancingDeps,
    private readonly registry: SessionRegistry,
    private readonly commands: SessionCommands,
    /** Replay/step's bars against the streaming rate and daily allowance. */
    private readonly streaming: StreamingBudget,
  ) {}

  /** Plays `steps` bars (default 1, at most `stepsMax`: the family's bound). */
  async step(userId: number, accountId: number | Invalid, steps: number | null | undefined | Invalid, stepsMax: number): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = await this.registry.live(userId, accountId);
    if (!found.ok) return found;
    const n = steps === undefined || steps === null ? 1 : steps;
    if (isInvalid(n) || !Number.isInteger(n) || n < 1 || n > stepsMax) return err({ kind: 'invalid_steps' });
    return this.advance(found.value, stepPlan(n), n);
  }

  async jumpTo(userId: number, accountId: number | Invalid, targetTime: string | Invalid): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = await this.registry.live(userId, accountId);
    if (!found.ok) return found;
    const ms = isInvalid(targetTime) ? undefined : parseIsoMs(targetTime);
    if (ms === undefined) return err({ kind: 'invalid_target_time' });
    return this.advance(found.value, jumpPlan(Math.floor(ms / 1000)), 0);
  }

  /**
   * Runs one advance under the session's lock. The lock spans an event-loop yield, so a second
   * advance arriving meanwhile is refused with 503 instead of being queued, and nothing is processed
   * twice; trading commands queue behind it (LiveSession.exclusive).
   */
  private async advance(s: LiveSession, plan: AdvancePlan, streamedBars: number): Promise<Result<AdvanceOutcome, AdvanceError>> {
    if (s.busy || s.playTimer !== null) return err({ kind: 'busy', cause: s.busy ? 'in_progress' : 'playing', retryAfterS: 1 });
    s.busy = true;
    try {
      // Counted while the session is held: a concurrent advance gets its 503 first.
      const refusal = await this.streaming.take(s.userId, streamedBars);
      if (refusal) return err(refusal);
      return await s.exclusive(async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!this.registry.holds(s)) return this.registry.gone(s);
        s.lastActivityMs = this.d.clock.nowMs();
        const outcome = await this.advanceSliced(s, plan);
        // Read the next day after the answer has gone out, so steady stepping never waits for data.
        if (!s.finalized) setImmediate(() => this.prefetch(s));
        return ok(outcome);
      });
    } finally {
      s.busy = false;
    }
  }

  /**
   * Best effort: a day that cannot be read now (say, the database closed during shutdown) is read by
   * the step that needs it, so a failure here is not worth more than a skipped prefetch.
   */
  private prefetch(s: LiveSession): void {
    if (this.registry.closing || !this.registry.holds(s)) return;
    try {
      s.prefetch();
    } catch {
      // Skipped; see above.
    }
  }

  /**
   * Advances in pieces (a step of n bars is steps of fewer bars; a jump is jumps to nearer
   * targets: the same walk, cut at bar boundaries), yielding to the event loop whenever a slice
   * has taken ADVANCE_SLICE_MS, so a long advance on cold data never holds the server; the lock
   * stays held, so this session answers 503 meanwhile. Commits once, at the end.
   */
  private async advanceSliced(s: LiveSession, plan: AdvancePlan): Promise<AdvanceOutcome> {
    const mark = this.commands.mark(s);
    const pieces: AdvanceResult[] = [];
    // Pieces start a day long and double while they are quick, up to limits.replayAdvancePieceDaysMax: a warm jump
    // of years takes a few dozen pieces, a cold one never does more than a day between yields.
    let spanDays = 1;
    let sliceFrom = performance.now();
    try {
      // Days nobody has read yet are generated and rolled up off the main thread first (defect 12).
      const ready = s.prepare(plan.horizonS(s));
      if (ready) {
        await ready;
        sliceFrom = performance.now();
      }
      for (;;) {
        const t0 = performance.now();
        const piece = plan(s, spanDays);
        if (piece === null) break;
        pieces.push(piece);
        if (piece.halted) break;
        // A slow piece (days to generate or rollups to build) makes the next ones a day long.
        const took = performance.now() - t0;
        spanDays = took > ADVANCE_SLICE_MS / 2 ? 1 : took < 1 ? Math.min(limits.replayAdvancePieceDaysMax, spanDays * 2) : spanDays;
        if (performance.now() - sliceFrom > ADVANCE_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceFrom = performance.now();
        }
      }
    } catch (e) {
      // A bug or a data read failed half-way: forget the half-walked state, keep what is stored.
      await this.commands.reload(s);
      throw e;
    }
    return this.settle(s, mark, joinPieces(pieces));
  }

  /** Advances and commits; used by the playback timer (a few bars a tick). Call under the session's lock. */
  async advanceLocked(s: LiveSession, run: (s: LiveSession) => AdvanceResult): Promise<AdvanceOutcome> {
    const mark = this.commands.mark(s);
    let advance: AdvanceResult;
    try {
      advance = run(s);
    } catch (e) {
      // A bug or a data read failed half-way: forget the half-walked state, keep what is stored.
      await this.commands.reload(s);
      throw e;
    }
    return this.settle(s, mark, advance);
  }

  /** Finalizes (a challenge outcome) or commits what an advance did, then describes it. */
  private async settle(s: LiveSession, mark: ChangeMark, advance: AdvanceResult): Promise<AdvanceOutcome> {
    const movement: Movement = advance.bars ? { kind: 'bars', bars: advance.bars, byLeg: advance.barsByLeg } : { kind: 'jump' };
    if (advance.halted) await this.commands.finalize(s, advance.outcome?.kind ?? 'halted', mark, movement);
    else await this.commands.commit(s, mark, null, movement);
    // The deciding bar is the last one played.
    const decided = advance.outcome ? { ...advance.outcome, barIndex: s.currentIndex - 1 } : null;
    const fills = s.engine.fills.slice(mark.fillsFrom);
    return { session: s, advance, fills, legFills: s.multi ? fillsSince(s, mark) : [{ inst: s.inst, fills }], decided };
  }

  // ---- playback ----

  async play(userId: number, accountId: number | Invalid, speed: number | null | undefined | Invalid, rate: PlaybackRate): Promise<Result<{ session: LiveSession; speed: number }, PlayError>> {
    const found = await this.registry.live(userId, accountId);
    if (!found.ok) return found;
    const v = speed === undefined || speed === null ? 1 : speed;
    if (isInvalid(v) || !Number.isFinite(v) || v < limits.replaySpeedMin || v > limits.replaySpeedMax) {
      return err({ kind: 'invalid_speed' });
    }
    const s = found.value;
    await this.commands.touch(s);
    s.stopPlayback();
    // The family's rate (current: speed 1 = two bars a second); the timer ticks at that rate up to
    // 100 Hz and catches up by playing several bars in a tick when the event loop was late.
    // Playback is not API activity.
    const barsPerS = rate(v, s);
    const startedMs = this.d.clock.nowMs();
    let played = 0;
    // Slow rates (a bar a minute) still look once a second (replayPlayLookMsMax), so a bar is never
    // more than a second late.
    s.playTimer = setInterval(() => {
      if (s.busy) return;
      const due = Math.floor(((this.d.clock.nowMs() - startedMs) * barsPerS) / 1000) - played;
      if (due <= 0) return;
      const n = Math.min(due, limits.replayStepsMax);
      played += n;
      this.playTick(s, n);
    }, Math.min(this.d.config.replayPlayLookMsMax, Math.max(10, Math.floor(1000 / barsPerS))));
    return ok({ session: s, speed: v });
  }

  /** One playback tick: `n` bars under the session's lock, unless paused, ended or replaced meanwhile. */
  private playTick(s: LiveSession, n: number): void {
    const timer = s.playTimer;
    s.busy = true;
    s.exclusive(async () => {
      // Paused, ended or replaced while queued: this tick plays nothing.
      if (s.playTimer !== timer || !this.registry.holds(s)) return;
      const r = await this.advanceLocked(s, (x) => x.step(n));
      if (r.advance.halted || r.advance.played === 0) s.stopPlayback();
    })
      .catch((e) => {
        s.stopPlayback();
        this.d.logError('playback failed; session reloaded from the store', { accountId: s.accountId, error: String(e) });
      })
      .finally(() => {
        s.busy = false;
      });
  }

  async pause(userId: number, accountId: number | Invalid): Promise<Result<LiveSession, SessionError>> {
    const found = await this.registry.live(userId, accountId);
    if (!found.ok) return found;
    found.value.stopPlayback();
    // A playback tick already under way finishes (and commits) before Pause answers: once paused,
    // nothing moves, and the next step or jump is not refused as busy.
    await found.value.exclusive(async () => {});
    await this.commands.touch(found.value);
    return found;
  }
}
