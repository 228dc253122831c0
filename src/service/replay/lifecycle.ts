// A live session's life: Replay/start (checks, the inherited challenge, one transaction that counts
// the user's sessions and inserts the new one), the restore of live sessions when the server starts
// (playback comes back paused; in a cluster each is loaded when first needed), Replay/end, the idle
// sweep, and shutdown, which leaves every live session stored as it is for the next start.

import { maxPositionQtyFor, type ChallengePlan } from '../../challenge/plans.ts';
import { ChallengeRule } from '../../challenge/rules.ts';
import { type ChallengeState, prepareSession } from '../../challenge/state.ts';
import { type Config, limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { SessionEngine } from '../../engine/engine.ts';
import { AccountLedger } from '../../engine/ledger.ts';
import { countUnionBuckets } from '../../data/bucket-count.ts';
import type { Fill } from '../../engine/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Invalid } from '../../lib/invalid.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { ReplayStore } from '../../store/replay.ts';
import type { Sql } from '../../store/sql.ts';
import { replayAccountName } from '../account-names.ts';
import type { ChallengeService } from '../challenges.ts';
import type { Ownership } from '../cluster/ownership.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { SessionCommands } from './commands.ts';
import { fillsSince, type LegFills, type SessionPersistence } from './persistence.ts';
import type { SessionReads } from './reads.ts';
import type { SessionRegistry } from './registry.ts';
import { LiveSession } from './session.ts';
import {
  lastPriceBefore, parseSessionTimeframe, planSession, resolveInstrument, resolveInstruments, type StartError, type StartRequest,
} from './setup.ts';
import type { LogError, SessionError, StartPolicy } from './types.ts';

export interface LifecycleDeps {
  db: Sql;
  config: Config;
  clock: Clock;
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
  challenges: ChallengeService;
  /** Which node runs which session (one node, or leases in a cluster). */
  ownership: Ownership;
  /** Where failures of background work (playback, idle sweep) are reported. */
  logError: LogError;
}

/** The challenge a session inherits at Replay/start. */
interface InheritedChallenge {
  accountId: number;
  plan: ChallengePlan;
  state: ChallengeState;
}

export class SessionLifecycle {
  private idleTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly d: LifecycleDeps,
    private readonly registry: SessionRegistry,
    private readonly persistence: SessionPersistence,
    private readonly commands: SessionCommands,
    private readonly reads: SessionReads,
    /** Replay/start's rate, per user. */
    private readonly startLimiter: RateLimiter,
  ) {}

  // ---- restore ----

  /** Loads every live session from the store (the server does this once at start). */
  async restoreLive(): Promise<void> {
    // In a cluster a session is loaded by the node that takes its lease, when it is first needed.
    if (this.d.ownership.clustered) return this.d.ownership.startRenewing((lost) => this.dropLost(lost));
    for (const s of await this.persistence.restoreAll(this.d.clock.nowMs())) this.registry.add(s);
  }

  /** Sessions whose lease this node lost (it stalled past the lease): another node may run them now. */
  private dropLost(accountIds: readonly number[]): void {
    for (const id of accountIds) {
      const s = this.registry.get(id);
      if (!s) continue;
      s.stopPlayback();
      this.registry.remove(id);
      this.d.logError('session lease lost; the session is left to the node that takes it', { accountId: id });
    }
  }

  // ---- start ----

  async start(userId: number, req: StartRequest, policy: StartPolicy): Promise<Result<{ session: LiveSession }, StartError>> {
    const nowMs = this.d.clock.nowMs();
    const gate = await this.startLimiter.take(String(userId), nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const many = resolveInstruments(req);
    if (!many.ok) return many;
    const inst = many.value ? ok(many.value[0]) : resolveInstrument(req);
    if (!inst.ok) return inst;
    const insts = many.value ?? [inst.value];
    if (req.startDate === undefined || req.startDate === null || req.startDate === '') return err({ kind: 'start_date_required' });
    const tf = parseSessionTimeframe(req.timeframe, inst.value, this.d.config.customTimeframes);
    if (!tf.ok) return tf;
    // Every instrument's stored resolution must divide the timeframe.
    for (const other of insts.slice(1)) {
      const t = parseSessionTimeframe(req.timeframe, other, this.d.config.customTimeframes);
      if (!t.ok) return t;
    }
    if ((await this.reads.liveCountAll(userId)) >= policy.liveSessionsMax) return err({ kind: 'too_many_sessions' });
    const plan = planSession(this.d.source, inst.value, tf.value, req.startDate, req.endDate, policy.span);
    if (!plan.ok) return plan;
    const p = plan.value;
    if (insts.length > 1) p.totalBars = countUnionBuckets(this.d.source, insts, p.tf, p.startS, p.endS);
    const challenge = await this.challengeFor(userId, req.accountId, p.startS);
    if (!challenge.ok) return challenge;
    const c = challenge.value;

    const startingBalanceCents = c ? c.state.balanceCents : limits.startingBalanceCents;
    const ledger = many.value ? new AccountLedger(startingBalanceCents, 1, 1, true) : undefined;
    const engines = insts.map((i) => {
      const e = new SessionEngine(i, {
        startingBalanceCents, slippageTicks: this.d.config.slippageTicks, maxPositionQty: c ? maxPositionQtyFor(c.plan, i) : null, ledger,
      });
      const last = i === p.inst ? p.lastPrice : lastPriceBefore(this.d.source, i, p.startS);
      if (last) e.setLastPrice(last.ticks, last.timeS);
      return e;
    });
    const engine = engines[0];
    const legs = many.value ? engines.map((e) => ({ inst: e.inst, engine: e })) : null;
    const binding = c ? { accountId: c.accountId, rule: new ChallengeRule(c.state, c.plan, engine) } : null;
    const session = await this.d.db.transaction(async () => {
      // The count above is a quick refusal; this one, under the user's lock, is the one that holds
      // when starts race through several nodes (or one): the count and the insert are one step.
      await this.d.store.lockStartsOf(userId);
      if ((await this.d.store.activeCountOf(userId)) >= policy.liveSessionsMax) return null;
      const account = await this.d.accounts.insert({ userId, kind: 'replay', name: 'Replay', balanceCents: engine.balanceCents, nowMs });
      await this.d.accounts.rename(account.id, replayAccountName(p.inst.symbol, p.tf.text, account.id));
      const init = { ...p, accountId: account.id, sessionId: `rs_${randomSecret(12)}`, userId, cursorS: p.startS, currentIndex: 0 };
      const s = new LiveSession(init, engine, this.d.source, binding, nowMs, legs);
      // In a cluster the starting node holds the new session (a new account: nobody else can).
      await this.d.ownership.claim(account.id);
      // A performance phase opening at this start is part of the start.
      if (c) await this.d.challenges.save(c.accountId, c.state);
      await this.persistence.insert(s);
      return s;
    });
    if (session === null) return err({ kind: 'too_many_sessions' });
    this.registry.add(session);
    await this.pruneEnded(userId);
    return ok({ session });
  }

  /**
   * Each start adds an account: the user's ended replay accounts beyond the newest
   * `endedReplayAccountsKeptPerUserMax` are deleted with their sessions, orders and fills
   * (docs/decisions.md, "Replay"). Usually one per start, so the cost stays flat.
   */
  async pruneEnded(userId: number): Promise<void> {
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
  private async challengeFor(userId: number, accountId: StartRequest['accountId'], startS: number): Promise<Result<InheritedChallenge | null, StartError>> {
    if (accountId === undefined || accountId === null) return ok(null);
    const owned = await this.d.challenges.owned(userId, accountId);
    if (!owned.ok) return err({ kind: 'challenge_not_found' });
    const ch = owned.value;
    if (this.registry.liveSessionOfChallenge(ch.account.id) || (this.d.ownership.clustered && (await this.d.store.activeSessionOfChallenge(ch.account.id)))) {
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

  // ---- ending ----

  /** Replay/end: flattens at the current price, cancels working orders, persists, releases. */
  async end(userId: number, accountId: number | Invalid): Promise<Result<{ session: LiveSession; fills: readonly Fill[]; legFills: readonly LegFills[] }, SessionError>> {
    const found = await this.registry.live(userId, accountId);
    if (!found.ok) return found;
    const s = found.value;
    s.stopPlayback();
    return s.exclusive(async () => {
      if (!this.registry.holds(s)) return this.registry.gone(s);
      const mark = this.commands.mark(s);
      s.lastActivityMs = this.d.clock.nowMs();
      await this.commands.finalize(s, 'ended', mark);
      return ok({ session: s, fills: s.engine.fills.slice(mark.fillsFrom), legFills: fillsSince(s, mark) });
    });
  }

  /** Ends sessions without API activity for an hour. Called by a timer (and by tests). */
  async sweepIdle(): Promise<number> {
    const cut = this.d.clock.nowMs() - limits.replayIdleMs;
    let n = 0;
    for (const s of [...this.registry.all()]) {
      if (s.lastActivityMs > cut || s.busy) continue;
      try {
        const swept = await s.exclusive(async () => {
          if (!this.registry.holds(s) || s.lastActivityMs > cut) return false;
          await this.commands.finalize(s, 'idle', this.commands.mark(s));
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
    this.registry.closing = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    for (const s of this.registry.all()) s.stopPlayback();
    // Every command queued on a session finishes (and commits) before the leases are handed back.
    await Promise.all([...this.registry.all()].map((s) => s.exclusive(async () => {})));
    this.registry.clear();
    await this.d.ownership.stop();
  }
}
