// Replay sessions: the registry of live sessions and their lifecycle (start, step, jump, play,
// pause, end, idle finalization). Every call that changes a session commits before it returns
// (persistence.ts), so what a client was told survives a crash; on start, live sessions are restored
// exactly where they stopped (playback comes back paused). When a commit fails, the session is
// reloaded from the store, so memory never runs ahead of what is on disk.

import { maxPositionQtyFor, type ChallengePlan } from '../../challenge/plans.ts';
import { ChallengeRule } from '../../challenge/rules.ts';
import { type ChallengeOutcome, type ChallengeState, prepareSession } from '../../challenge/state.ts';
import { type Config, limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import { SessionEngine } from '../../engine/engine.ts';
import type { Fill } from '../../engine/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { parseIsoMs } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { Sql } from '../../store/sql.ts';
import type { ReplayStore } from '../../store/replay.ts';
import type { ChallengeService } from '../challenges.ts';
import type { RateLimiter, RateLimits } from '../rate-limit.ts';
import type { StreamingBudget } from '../streaming-budget.ts';
import { ADVANCE_SLICE_MS, type AdvancePlan, joinPieces, jumpPlan, stepPlan } from './advance-plan.ts';
import { type ChangeMark, SessionPersistence, unitOf } from './persistence.ts';
import { type AdvanceResult, LiveSession } from './session.ts';
import { historyStartS, parseSessionTimeframe, planSession, resolveInstrument, type SpanPolicy, type StartError, type StartRequest } from './setup.ts';
import type { AllowanceRefusal } from './streaming.ts';
import type { RunStats } from '../../engine/results.ts';
import type { EventBus } from '../events/bus.ts';
import type { ReplayEvent } from '../events/types.ts';
import { type Movement, SessionEvents } from './events.ts';
import { foldStats, sessionStats } from './kept-results.ts';
import { replayAccountName } from '../account-names.ts';
import { type Ownership, OwnedElsewhere, SessionMoving } from '../cluster/ownership.ts';
import type { SessionRow } from '../../store/replay.ts';

export type SessionError = { kind: 'account_not_found' } | { kind: 'session_ended' };

/** For trading calls: the account's challenge is no longer active (the spec's "Account violation"). */
export type TradeSessionError = SessionError | { kind: 'challenge_inactive' };

export type AdvanceError =
  | SessionError
  | { kind: 'invalid_steps' }
  | { kind: 'invalid_target_time' }
  | { kind: 'busy'; cause: 'in_progress' | 'playing'; retryAfterS: number }
  | AllowanceRefusal;

export type PlayError = SessionError | { kind: 'invalid_speed' };

export interface AdvanceOutcome {
  session: LiveSession;
  advance: AdvanceResult;
  fills: readonly Fill[];
  /** The challenge violation or pass that halted this advance, its barIndex on the session's scale. */
  decided: ChallengeOutcome | null;
}

export interface ReplayDeps {
  db: Sql;
  config: Config;
  clock: Clock;
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
  challenges: ChallengeService;
  /** Where committed changes are published for the real-time hubs. */
  bus: EventBus<ReplayEvent>;
  /** Which node runs which session (one node, or leases in a cluster). */
  ownership: Ownership;
  /** Replay/start's rate and the streaming budget: per process, or shared by a cluster. */
  rateLimits: RateLimits;
  /** Where failures of background work (playback, idle sweep) are reported. */
  logError(message: string, fields: Record<string, unknown>): void;
}

/**
 * What a family decides about Replay/start (docs/architecture.md: family rules are values passed
 * down): how dates become a span, and how many live sessions a user may hold (all families count).
 */
export interface StartPolicy {
  readonly span: SpanPolicy;
  readonly liveSessionsMax: number;
}

/** Playback pace: timeframe bars a second at `speed` (each family's, in its policy.ts). */
export type PlaybackRate = (speed: number, s: LiveSession) => number;

/** The challenge a session inherits at Replay/start. */
interface InheritedChallenge {
  accountId: number;
  plan: ChallengePlan;
  state: ChallengeState;
}

export class ReplayService {
  private readonly sessions = new Map<number, LiveSession>();
  /** Sessions being loaded from the store by this node (a cluster's lazy restore), by account. */
  private readonly adopting = new Map<number, Promise<LiveSession | null>>();
  private readonly persistence: SessionPersistence;
  private readonly startLimiter: RateLimiter;
  private readonly streaming: StreamingBudget;
  readonly events: SessionEvents;
  /** Each live session's chart-history start, once found (`historyStart`). */
  private readonly historyStarts = new WeakMap<LiveSession, number | null>();
  private idleTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(private readonly d: ReplayDeps) {
    this.persistence = new SessionPersistence(d);
    this.streaming = d.rateLimits.streaming(d.clock);
    this.startLimiter = d.rateLimits.limiter('replay_start', limits.replayStartsPerWindowMax, limits.replayStartWindowMs);
    this.events = new SessionEvents({
      bus: d.bus,
      source: d.source,
      feedingSession: (userId, symbol) => this.feedingSession(userId, symbol),
    });
  }

  /**
   * The live session that feeds a user's market-hub subscriptions on an instrument: the one started
   * last (docs/decisions.md, "Real-time hubs").
   */
  feedingSession(userId: number, symbol: string): LiveSession | undefined {
    let found: LiveSession | undefined;
    for (const s of this.sessions.values()) {
      if (s.userId === userId && s.inst.symbol === symbol && (!found || s.accountId > found.accountId)) found = s;
    }
    return found;
  }

  /**
   * The answer to a call that waited for a session no longer in memory: it ended (`session_ended`),
   * or, in a cluster, its node let it go (the lease was lost, or a failed commit dropped it to be
   * loaded again): SessionMoving, so the call answers 503 (nothing was done) and its retry finds the
   * session where it runs now, rather than hearing that a live session ended.
   */
  private gone(s: LiveSession): Result<never, { kind: 'session_ended' }> {
    if (this.d.ownership.clustered && !s.finalized) throw new SessionMoving(s.accountId);
    return err({ kind: 'session_ended' });
  }

  /** Loads every live session from the store (the server does this once at start). */
  async restoreLive(): Promise<void> {
    // In a cluster a session is loaded by the node that takes its lease, when it is first needed.
    if (this.d.ownership.clustered) return this.d.ownership.startRenewing((lost) => this.dropLost(lost));
    for (const s of await this.persistence.restoreAll(this.d.clock.nowMs())) this.sessions.set(s.accountId, s);
  }

  /** Sessions whose lease this node lost (it stalled past the lease): another node may run them now. */
  private dropLost(accountIds: readonly number[]): void {
    for (const id of accountIds) {
      const s = this.sessions.get(id);
      if (!s) continue;
      this.stopPlayback(s);
      this.sessions.delete(id);
      this.d.logError('session lease lost; the session is left to the node that takes it', { accountId: id });
    }
  }

  /**
   * A live session this node does not hold yet (a cluster): takes its lease and loads it from the
   * store, or throws OwnedElsewhere naming the node that runs it. Null when the store says it ended.
   */
  private adopt(accountId: number): Promise<LiveSession | null> {
    const present = this.sessions.get(accountId);
    if (present) return Promise.resolve(present);
    let pending = this.adopting.get(accountId);
    if (!pending) {
      pending = this.adoptNow(accountId).finally(() => this.adopting.delete(accountId));
      this.adopting.set(accountId, pending);
    }
    return pending;
  }

  private async adoptNow(accountId: number): Promise<LiveSession | null> {
    const claim = await this.d.ownership.claim(accountId);
    if (claim.owner === 'other') throw new OwnedElsewhere(accountId, claim.nodeUrl, claim.commits);
    if (claim.owner === 'moving') throw new SessionMoving(accountId);
    // Read after the lease is ours: the last holder's commits are all in.
    const row = await this.d.store.session(accountId);
    if (row?.status !== 'active') {
      await this.d.ownership.release(accountId);
      return null;
    }
    const s = await this.persistence.restore(row, this.d.clock.nowMs());
    if (!s) {
      await this.persistence.endUnreadable(row, this.d.clock.nowMs());
      await this.d.ownership.release(accountId);
      return null;
    }
    this.sessions.set(s.accountId, s);
    return s;
  }

  /** In a cluster, the live session of a row the store holds as active (adopted, or owned elsewhere). */
  private async liveFromRow(row: SessionRow | null): Promise<LiveSession | undefined> {
    if (!this.d.ownership.clustered || row?.status !== 'active') return undefined;
    return (await this.adopt(row.accountId)) ?? undefined;
  }

  // ---- lookup ----

  /** The live session behind an account the user owns. */
  async live(userId: number, accountId: unknown): Promise<Result<LiveSession, SessionError>> {
    const r = await this.resolve(userId, accountId);
    return r.ok || r.error.kind !== 'challenge_inactive' ? (r as Result<LiveSession, SessionError>) : err({ kind: 'session_ended' });
  }

  /**
   * The live session an account trades in: a replay account's own session, or the live session of a
   * challenge account (bots may trade with the challenge account's id). When there is none and the
   * account's challenge has passed, failed or ended, the answer is `challenge_inactive`.
   */
  async resolve(userId: number, accountId: unknown): Promise<Result<LiveSession, TradeSessionError>> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const direct = this.sessions.get(accountId);
    if (direct) return direct.userId === userId ? ok(direct) : err({ kind: 'account_not_found' });
    const account = await this.d.accounts.byId(accountId);
    if (!account || account.userId !== userId) return err({ kind: 'account_not_found' });
    const row = account.kind === 'challenge' ? null : await this.d.store.session(accountId);
    const adopted = await this.liveFromRow(row);
    if (adopted) return ok(adopted);
    const challengeId = account.kind === 'challenge' ? accountId : (row?.challengeId ?? null);
    if (challengeId === null) return err({ kind: 'session_ended' });
    const live = this.liveSessionOfChallenge(challengeId) ?? (await this.liveFromRow(this.d.ownership.clustered ? await this.d.store.activeSessionOfChallenge(challengeId) : null));
    if (live) return ok(live);
    const c = await this.d.challenges.byId(challengeId);
    return c && c.state.status !== 'active' ? err({ kind: 'challenge_inactive' }) : err({ kind: 'session_ended' });
  }

  /**
   * The replay account whose orders and fills an account id stands for: itself, or for a challenge
   * account its live session's account (else its latest session's).
   */
  async tradingAccountOf(accountId: number): Promise<number> {
    if (this.sessions.has(accountId)) return accountId;
    const account = await this.d.accounts.byId(accountId);
    if (!account || account.kind !== 'challenge') return accountId;
    return this.liveSessionOfChallenge(accountId)?.accountId ?? (await this.d.store.latestSessionOfChallenge(accountId)) ?? accountId;
  }

  /** The instrument a replay account trades (live or ended); undefined for other accounts. */
  async instrumentOf(replayAccountId: number): Promise<Instrument | undefined> {
    const live = this.sessions.get(replayAccountId);
    if (live) return live.inst;
    const row = await this.d.store.session(replayAccountId);
    return row ? findInstrument(row.symbol) : undefined;
  }

  /**
   * The live session on a challenge wherever it runs: in a cluster one held by another node is taken
   * over when its lease is free, else OwnedElsewhere names the node (payouts go there).
   */
  async liveOfChallenge(challengeId: number): Promise<LiveSession | undefined> {
    const here = this.liveSessionOfChallenge(challengeId);
    if (here || !this.d.ownership.clustered) return here;
    return this.liveFromRow(await this.d.store.activeSessionOfChallenge(challengeId));
  }

  liveSessionOfChallenge(challengeId: number): LiveSession | undefined {
    for (const s of this.sessions.values()) if (s.challenge?.accountId === challengeId) return s;
    return undefined;
  }

  /** Whether the store records a live session on the challenge (also from another process). */
  async challengeHasLiveSession(challengeId: number): Promise<boolean> {
    return (await this.d.store.activeSessions()).some((row) => row.challengeId === challengeId);
  }

  /** The live session of a replay account when this node holds it (no store read, no adoption). */
  held(accountId: number): LiveSession | undefined {
    return this.sessions.get(accountId);
  }

  /** The user's live sessions, whichever family started them. */
  liveSessionsOf(userId: number): LiveSession[] {
    const out: LiveSession[] = [];
    for (const s of this.sessions.values()) if (s.userId === userId) out.push(s);
    return out;
  }

  /** The user's live sessions on every node (the store counts in a cluster). */
  async liveCountAll(userId: number): Promise<number> {
    return this.d.ownership.clustered ? this.d.store.activeCountOf(userId) : this.liveCount(userId);
  }

  liveCount(userId: number): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.userId === userId) n++;
    return n;
  }

  // ---- start ----

  async start(userId: number, req: StartRequest, policy: StartPolicy): Promise<Result<{ session: LiveSession }, StartError>> {
    const nowMs = this.d.clock.nowMs();
    const gate = await this.startLimiter.take(String(userId), nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const inst = resolveInstrument(req);
    if (!inst.ok) return inst;
    if (req.startDate === undefined || req.startDate === null || req.startDate === '') return err({ kind: 'start_date_required' });
    const tf = parseSessionTimeframe(req.timeframe, inst.value, this.d.config.customTimeframes);
    if (!tf.ok) return tf;
    if ((await this.liveCountAll(userId)) >= policy.liveSessionsMax) return err({ kind: 'too_many_sessions' });
    const plan = planSession(this.d.source, inst.value, tf.value, req.startDate, req.endDate, policy.span);
    if (!plan.ok) return plan;
    const p = plan.value;
    const challenge = await this.challengeFor(userId, req.accountId, p.startS);
    if (!challenge.ok) return challenge;
    const c = challenge.value;

    const engine = new SessionEngine(p.inst, {
      startingBalanceCents: c ? c.state.balanceCents : limits.startingBalanceCents,
      slippageTicks: this.d.config.slippageTicks,
      maxPositionQty: c ? maxPositionQtyFor(c.plan, p.inst) : null,
    });
    if (p.lastPrice) engine.setLastPrice(p.lastPrice.ticks, p.lastPrice.timeS);
    const binding = c ? { accountId: c.accountId, rule: new ChallengeRule(c.state, c.plan, engine) } : null;
    const session = await this.d.db.transaction(async () => {
      // The count above is a quick refusal; this one, under the user's lock, is the one that holds
      // when starts race through several nodes (or one): the count and the insert are one step.
      await this.d.store.lockStartsOf(userId);
      if ((await this.d.store.activeCountOf(userId)) >= policy.liveSessionsMax) return null;
      const account = await this.d.accounts.insert({ userId, kind: 'replay', name: 'Replay', balanceCents: engine.balanceCents, nowMs });
      await this.d.accounts.rename(account.id, replayAccountName(p.inst.symbol, p.tf.text, account.id));
      const init = { ...p, accountId: account.id, sessionId: `rs_${randomSecret(12)}`, userId, cursorS: p.startS, currentIndex: 0 };
      const s = new LiveSession(init, engine, this.d.source, binding, nowMs);
      // In a cluster the starting node holds the new session.
      await this.d.ownership.claim(account.id);
      // A performance phase opening at this start is part of the start.
      if (c) await this.d.challenges.save(c.accountId, c.state);
      await this.persistence.insert(s);
      return s;
    });
    if (session === null) return err({ kind: 'too_many_sessions' });
    this.sessions.set(session.accountId, session);
    await this.pruneEnded(userId);
    return ok({ session });
  }

  /**
   * Each start adds an account: the user's ended replay accounts beyond the newest
   * `endedReplayAccountsKeptPerUserMax` are deleted with their sessions, orders and fills
   * (docs/decisions.md, Hardening). Usually one per start, so the cost stays flat.
   */
  private async pruneEnded(userId: number): Promise<void> {
    const old = await this.d.store.endedBeyond(userId, limits.endedReplayAccountsKeptPerUserMax);
    if (old.length === 0) return;
    await this.d.db.transaction(async () => {
      for (const id of old) {
        await this.d.store.deleteEnded(id);
        await this.d.accounts.deleteReplay(id);
      }
    });
  }

  /**
   * The challenge a new session inherits through `accountId` (none when omitted): its plan and the
   * state the session starts from (a passed evaluation opens the performance phase here).
   */
  private async challengeFor(userId: number, accountId: unknown, startS: number): Promise<Result<InheritedChallenge | null, StartError>> {
    if (accountId === undefined || accountId === null) return ok(null);
    const owned = await this.d.challenges.owned(userId, accountId);
    if (!owned.ok) return err({ kind: 'challenge_not_found' });
    const ch = owned.value;
    if (this.liveSessionOfChallenge(ch.account.id) || (this.d.ownership.clustered && (await this.d.store.activeSessionOfChallenge(ch.account.id)))) {
      return err({ kind: 'challenge_busy' });
    }
    const prepared = prepareSession(ch.state, ch.plan, startS);
    if (!prepared.ok) {
      const e = prepared.error;
      return e.kind === 'challenge_inactive'
        ? err({ kind: 'challenge_inactive', challengeId: ch.account.id, status: ch.state.status })
        : err({ kind: 'challenge_time', challengeId: ch.account.id, lastSimTimeS: e.lastSimTimeS });
    }
    return ok({ accountId: ch.account.id, plan: ch.plan, state: prepared.value });
  }

  // ---- advancing ----

  /** Plays `steps` bars (default 1, at most `stepsMax`: the family's bound). */
  async step(userId: number, accountId: unknown, steps: unknown, stepsMax: number): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = await this.live(userId, accountId);
    if (!found.ok) return found;
    const n = steps === undefined || steps === null ? 1 : steps;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > stepsMax) return err({ kind: 'invalid_steps' });
    return this.advance(found.value, stepPlan(n), n);
  }

  async jumpTo(userId: number, accountId: unknown, targetTime: unknown): Promise<Result<AdvanceOutcome, AdvanceError>> {
    const found = await this.live(userId, accountId);
    if (!found.ok) return found;
    const ms = parseIsoMs(targetTime);
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
        if (this.sessions.get(s.accountId) !== s) return this.gone(s);
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
    if (this.stopped || this.sessions.get(s.accountId) !== s) return;
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
    const mark = this.persistence.mark(s);
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
      await this.reload(s);
      throw e;
    }
    return this.settle(s, mark, joinPieces(pieces));
  }

  /** Advances and commits; used by the playback timer (a few bars a tick). Call under the session's lock. */
  async advanceLocked(s: LiveSession, run: (s: LiveSession) => AdvanceResult): Promise<AdvanceOutcome> {
    const mark = this.persistence.mark(s);
    let advance: AdvanceResult;
    try {
      advance = run(s);
    } catch (e) {
      // A bug or a data read failed half-way: forget the half-walked state, keep what is stored.
      await this.reload(s);
      throw e;
    }
    return this.settle(s, mark, advance);
  }

  /** Finalizes (a challenge outcome) or commits what an advance did, then describes it. */
  private async settle(s: LiveSession, mark: ChangeMark, advance: AdvanceResult): Promise<AdvanceOutcome> {
    const movement: Movement = advance.bars ? { kind: 'bars', bars: advance.bars } : { kind: 'jump' };
    if (advance.halted) await this.finalize(s, advance.outcome?.kind ?? 'halted', mark, movement);
    else await this.commit(s, mark, null, movement);
    // The deciding bar is the last one played.
    const decided = advance.outcome ? { ...advance.outcome, barIndex: s.currentIndex - 1 } : null;
    return { session: s, advance, fills: s.engine.fills.slice(mark.fillsFrom), decided };
  }

  /**
   * After a trading command changed the engine (since `mark`): the challenge rule sees the
   * command's fills and checks its limits and the pass at the current price (a violation or pass
   * finalizes the session); then everything is committed.
   */
  private async afterCommand(s: LiveSession, mark: ChangeMark): Promise<void> {
    s.lastActivityMs = this.d.clock.nowMs();
    const outcome = s.challenge ? s.challenge.rule.afterCommand(s.nowS, Math.max(0, s.currentIndex - 1)) : null;
    if (outcome && outcome.kind !== 'soft_breach') await this.finalize(s, outcome.kind, mark);
    else await this.commit(s, mark);
  }

  /**
   * The one path of a trading command (Order/*, Position/*, a payout on a live challenge): alone on the
   * session, then `run` changes the engine and answers. A refusal (`ok: false`) changes nothing and
   * writes nothing; a success is committed, with the challenge's checks, before it resolves.
   */
  async command<T, E>(s: LiveSession, run: (s: LiveSession) => Result<T, E> | Promise<Result<T, E>>): Promise<Result<T, E | SessionError>> {
    return s.exclusive(async () => {
      if (this.sessions.get(s.accountId) !== s) return this.gone(s);
      const mark = this.persistence.mark(s);
      let r: Result<T, E>;
      try {
        r = await run(s);
      } catch (e) {
        await this.reload(s);
        throw e;
      }
      if (!r.ok) {
        s.engine.takeChanges();
        return r;
      }
      await this.afterCommand(s, mark);
      return r;
    });
  }

  // ---- playback ----

  async play(userId: number, accountId: unknown, speed: unknown, rate: PlaybackRate): Promise<Result<{ session: LiveSession; speed: number }, PlayError>> {
    const found = await this.live(userId, accountId);
    if (!found.ok) return found;
    const v = speed === undefined || speed === null ? 1 : speed;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < limits.replaySpeedMin || v > limits.replaySpeedMax) {
      return err({ kind: 'invalid_speed' });
    }
    const s = found.value;
    await this.touch(s);
    this.stopPlayback(s);
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
      const timer = s.playTimer;
      s.busy = true;
      s.exclusive(async () => {
        // Paused, ended or replaced while queued: this tick plays nothing.
        if (s.playTimer !== timer || this.sessions.get(s.accountId) !== s) return;
        const r = await this.advanceLocked(s, (x) => x.step(n));
        if (r.advance.halted || r.advance.played === 0) this.stopPlayback(s);
      })
        .catch((e) => {
          this.stopPlayback(s);
          this.d.logError('playback failed; session reloaded from the store', { accountId: s.accountId, error: String(e) });
        })
        .finally(() => {
          s.busy = false;
        });
    }, Math.min(this.d.config.replayPlayLookMsMax, Math.max(10, Math.floor(1000 / barsPerS))));
    return ok({ session: s, speed: v });
  }

  async pause(userId: number, accountId: unknown): Promise<Result<LiveSession, SessionError>> {
    const found = await this.live(userId, accountId);
    if (!found.ok) return found;
    this.stopPlayback(found.value);
    // A playback tick already under way finishes (and commits) before Pause answers: once paused,
    // nothing moves, and the next step or jump is not refused as busy.
    await found.value.exclusive(async () => {});
    await this.touch(found.value);
    return found;
  }

  private stopPlayback(s: LiveSession): void {
    if (s.playTimer !== null) clearInterval(s.playTimer);
    s.playTimer = null;
  }

  // ---- ending ----

  /** Replay/end: flattens at the current price, cancels working orders, persists, releases. */
  async end(userId: number, accountId: unknown): Promise<Result<{ session: LiveSession; fills: readonly Fill[] }, SessionError>> {
    const found = await this.live(userId, accountId);
    if (!found.ok) return found;
    const s = found.value;
    this.stopPlayback(s);
    return s.exclusive(async () => {
      if (this.sessions.get(s.accountId) !== s) return this.gone(s);
      const mark = this.persistence.mark(s);
      s.lastActivityMs = this.d.clock.nowMs();
      await this.finalize(s, 'ended', mark);
      return ok({ session: s, fills: s.engine.fills.slice(mark.fillsFrom) });
    });
  }

  /**
   * The results of an ended (or live) session from its stored fills: round-trip trades, win rate,
   * profit factor and drawdown as `src/engine/results.ts` defines them (see results.ts here).
   */
  async results(accountId: number): Promise<RunStats> {
    const row = await this.d.store.session(accountId);
    // An ended session's are kept (kept-results.ts); a live one's, or an account without a session, folded.
    return row ? sessionStats(this.d.store, this.d.accounts, row) : foldStats(this.d.store, this.d.accounts, accountId);
  }

  /**
   * Open time (epoch seconds) of a live session's first chart-history bar, or null without history:
   * found once per session, over the bars as they are then (setup.ts `historyStartS`).
   */
  historyStart(s: LiveSession): number | null {
    let v = this.historyStarts.get(s);
    if (v === undefined) {
      v = historyStartS(this.d.source, s.inst, s.tf, s.startS, s.historyBars);
      this.historyStarts.set(s, v);
    }
    return v;
  }

  /** The same for a session kept in the store (the journal): its instrument, timeframe, start and history count. */
  historyStartOf(inst: Instrument, timeframe: string, startS: number, historyBars: number): number | null {
    const tf = parseTimeframe(timeframe, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
    return tf.ok ? historyStartS(this.d.source, inst, tf.value, startS, historyBars) : null;
  }

  /** Ends sessions without API activity for an hour. Called by a timer (and by tests). */
  async sweepIdle(): Promise<number> {
    const cut = this.d.clock.nowMs() - limits.replayIdleMs;
    let n = 0;
    for (const s of [...this.sessions.values()]) {
      if (s.lastActivityMs > cut || s.busy) continue;
      try {
        const swept = await s.exclusive(async () => {
          if (this.sessions.get(s.accountId) !== s || s.lastActivityMs > cut) return false;
          await this.finalize(s, 'idle', this.persistence.mark(s));
          return true;
        });
        if (swept) n++;
      } catch (e) {
        this.d.logError('idle finalization failed; will retry', { accountId: s.accountId, error: String(e) });
      }
    }
    return n;
  }

  startIdleSweeper(): void {
    this.idleTimer ??= setInterval(() => void this.sweepIdle(), 60_000);
  }

  /** Stops timers; live sessions stay persisted as they are and are restored on the next start. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    for (const s of this.sessions.values()) this.stopPlayback(s);
    // Every command queued on a session finishes (and commits) before the leases are handed back.
    await Promise.all([...this.sessions.values()].map((s) => s.exclusive(async () => {})));
    this.sessions.clear();
    await this.d.ownership.stop();
  }

  private async finalize(s: LiveSession, reason: string, mark: ChangeMark, movement: Movement = { kind: 'none' }): Promise<void> {
    this.stopPlayback(s);
    // The session is over: what still works expires (a trader's cancel would be Canceled). A
    // position implies a fill, hence a last price: flatten can always price it.
    s.engine.expireWorking(s.nowS);
    s.engine.flatten(s.nowS);
    // The challenge sees the closing fill (a flat account may even reach its pass here).
    if (s.challenge && s.challenge.rule.state.status === 'active') s.challenge.rule.afterCommand(s.nowS, Math.max(0, s.currentIndex - 1));
    s.finalized = true;
    await this.commit(s, mark, reason, movement);
    this.sessions.delete(s.accountId);
    // Not inside a caller's transaction: a failed write there would fail the caller's whole commit.
    if (!this.d.db.inTransaction()) await this.keepResults(s.accountId);
  }

  /** Folds an ended session's fills once and keeps the statistics; a failure leaves it to the first read. */
  private async keepResults(accountId: number): Promise<void> {
    try {
      await this.results(accountId);
    } catch (e) {
      this.d.logError('keeping a replay session\'s statistics failed; its first read folds them', { accountId, error: String(e) });
    }
  }

  // ---- persistence ----

  async touch(s: LiveSession): Promise<void> {
    s.lastActivityMs = this.d.clock.nowMs();
    await this.d.store.touch(s.accountId, s.lastActivityMs);
  }

  /** Commits; on failure reloads the session from the store (dropping the unsaved change) and rethrows. */
  async commit(s: LiveSession, mark: ChangeMark, endReason: string | null = null, movement: Movement = { kind: 'none' }): Promise<void> {
    const changes = s.engine.takeChanges();
    try {
      await this.persistence.commit(s, unitOf(changes), endReason, this.d.clock.nowMs());
    } catch (e) {
      await this.reload(s);
      throw e;
    }
    // Told only once it is stored (after the caller's transaction, when this commit is part of one).
    this.d.db.afterCommit(() => {
      // The call succeeded and is stored: a failure to tell subscribers must not turn it into an error.
      try {
        this.events.published(s, changes, movement, endReason !== null);
      } catch (e) {
        this.d.logError('publishing replay events failed', { accountId: s.accountId, error: String(e) });
      }
    });
  }

  /** Replaces a session in memory by what the store holds for it. */
  async reload(s: LiveSession): Promise<void> {
    this.stopPlayback(s);
    this.sessions.delete(s.accountId);
    // In a cluster the next request loads it again, on whichever node then holds its lease.
    if (this.d.ownership.clustered) return;
    // Inside a failed transaction (a payout's), read what the store holds once it has rolled back.
    const row = this.d.db.inTransaction() ? null : await this.d.store.session(s.accountId);
    if (row?.status !== 'active') return;
    const fresh = await this.persistence.restore(row, this.d.clock.nowMs());
    if (fresh) this.sessions.set(fresh.accountId, fresh);
  }

  mark(s: LiveSession): ChangeMark {
    return this.persistence.mark(s);
  }
}
