// Replay sessions: the one face the callers see (the families' routes, the hubs, the trading,
// payout and clock services). Each call is handed to the part that owns it:
// - registry.ts: the sessions this node holds and how a call finds its session (owner.ts decides,
//   in a cluster, whether this node runs it);
// - reads.ts: listings, which replay account an id stands for, statistics, chart-history start;
// - commands.ts: the command path (a trading command alone on its session), commit, reload, and a
//   session's last commit (`finalize`);
// - advancing.ts: step, jump, play, pause;
// - lifecycle.ts: start, restore, end, the idle sweep, shutdown.
// Every call that changes a session commits before it returns (persistence.ts), so what a client was
// told survives a crash; when a commit fails, the session is reloaded from the store.

import { type Config, limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { RunStats } from '../../engine/results.ts';
import type { Fill } from '../../engine/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Result } from '../../lib/result.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { ReplayStore } from '../../store/replay.ts';
import type { Sql } from '../../store/sql.ts';
import type { ChallengeService } from '../challenges.ts';
import type { Ownership } from '../cluster/ownership.ts';
import type { EventBus } from '../events/bus.ts';
import type { ReplayEvent } from '../events/types.ts';
import type { RateLimits } from '../rate-limit.ts';
import { SessionAdvancer } from './advancing.ts';
import { SessionCommands } from './commands.ts';
import { type Movement, SessionEvents } from './events.ts';
import { SessionLifecycle } from './lifecycle.ts';
import { type ChangeMark, SessionPersistence } from './persistence.ts';
import { SessionReads } from './reads.ts';
import { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';
import type { StartError, StartRequest } from './setup.ts';
import type { AdvanceError, AdvanceOutcome, PlaybackRate, PlayError, SessionError, StartPolicy, TradeSessionError } from './types.ts';

export type { AdvanceError, AdvanceOutcome, PlaybackRate, PlayError, SessionError, StartPolicy, TradeSessionError } from './types.ts';

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

export class ReplayService {
  readonly events: SessionEvents;
  private readonly registry: SessionRegistry;
  private readonly reads: SessionReads;
  private readonly commands: SessionCommands;
  private readonly advancer: SessionAdvancer;
  private readonly lifecycle: SessionLifecycle;

  constructor(d: ReplayDeps) {
    const persistence = new SessionPersistence(d);
    const streaming = d.rateLimits.streaming(d.clock);
    const startLimiter = d.rateLimits.limiter('replay_start', limits.replayStartsPerWindowMax, limits.replayStartWindowMs);
    this.registry = new SessionRegistry(d, persistence);
    this.reads = new SessionReads(d, this.registry);
    this.events = new SessionEvents({
      bus: d.bus,
      source: d.source,
      feedingSession: (userId, symbol) => this.reads.feedingSession(userId, symbol),
    });
    this.commands = new SessionCommands(d, this.registry, persistence, this.events, this.reads);
    this.advancer = new SessionAdvancer(d, this.registry, this.commands, streaming);
    this.lifecycle = new SessionLifecycle(d, this.registry, persistence, this.commands, this.reads, startLimiter);
  }

  // ---- lifecycle (lifecycle.ts) ----

  restoreLive(): Promise<void> {
    return this.lifecycle.restoreLive();
  }

  start(userId: number, req: StartRequest, policy: StartPolicy): Promise<Result<{ session: LiveSession }, StartError>> {
    return this.lifecycle.start(userId, req, policy);
  }

  end(userId: number, accountId: unknown): Promise<Result<{ session: LiveSession; fills: readonly Fill[] }, SessionError>> {
    return this.lifecycle.end(userId, accountId);
  }

  sweepIdle(): Promise<number> {
    return this.lifecycle.sweepIdle();
  }

  startIdleSweeper(): void {
    this.lifecycle.startIdleSweeper();
  }

  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  // ---- advancing (advancing.ts) ----

  step(userId: number, accountId: unknown, steps: unknown, stepsMax: number): Promise<Result<AdvanceOutcome, AdvanceError>> {
    return this.advancer.step(userId, accountId, steps, stepsMax);
  }

  jumpTo(userId: number, accountId: unknown, targetTime: unknown): Promise<Result<AdvanceOutcome, AdvanceError>> {
    return this.advancer.jumpTo(userId, accountId, targetTime);
  }

  play(userId: number, accountId: unknown, speed: unknown, rate: PlaybackRate): Promise<Result<{ session: LiveSession; speed: number }, PlayError>> {
    return this.advancer.play(userId, accountId, speed, rate);
  }

  pause(userId: number, accountId: unknown): Promise<Result<LiveSession, SessionError>> {
    return this.advancer.pause(userId, accountId);
  }

  // ---- finding a session (registry.ts) ----

  live(userId: number, accountId: unknown): Promise<Result<LiveSession, SessionError>> {
    return this.registry.live(userId, accountId);
  }

  resolve(userId: number, accountId: unknown): Promise<Result<LiveSession, TradeSessionError>> {
    return this.registry.resolve(userId, accountId);
  }

  liveOfChallenge(challengeId: number): Promise<LiveSession | undefined> {
    return this.registry.liveOfChallenge(challengeId);
  }

  liveSessionOfChallenge(challengeId: number): LiveSession | undefined {
    return this.registry.liveSessionOfChallenge(challengeId);
  }

  held(accountId: number): LiveSession | undefined {
    return this.registry.get(accountId);
  }

  // ---- reads (reads.ts) ----

  feedingSession(userId: number, symbol: string): LiveSession | undefined {
    return this.reads.feedingSession(userId, symbol);
  }

  liveSessionsOf(userId: number): LiveSession[] {
    return this.reads.liveSessionsOf(userId);
  }

  liveCount(userId: number): number {
    return this.reads.liveCount(userId);
  }

  challengeHasLiveSession(challengeId: number): Promise<boolean> {
    return this.reads.challengeHasLiveSession(challengeId);
  }

  tradingAccountOf(accountId: number): Promise<number> {
    return this.reads.tradingAccountOf(accountId);
  }

  instrumentOf(replayAccountId: number): Promise<Instrument | undefined> {
    return this.reads.instrumentOf(replayAccountId);
  }

  results(accountId: number): Promise<RunStats> {
    return this.reads.results(accountId);
  }

  historyStart(s: LiveSession): number | null {
    return this.reads.historyStart(s);
  }

  historyStartOf(inst: Instrument, timeframe: string, startS: number, historyBars: number): number | null {
    return this.reads.historyStartOf(inst, timeframe, startS, historyBars);
  }

  // ---- the command path (commands.ts) ----

  command<T, E>(s: LiveSession, run: (s: LiveSession) => Result<T, E> | Promise<Result<T, E>>): Promise<Result<T, E | SessionError>> {
    return this.commands.command(s, run);
  }

  mark(s: LiveSession): ChangeMark {
    return this.commands.mark(s);
  }

  commit(s: LiveSession, mark: ChangeMark, endReason: string | null = null, movement: Movement = { kind: 'none' }): Promise<void> {
    return this.commands.commit(s, mark, endReason, movement);
  }

  reload(s: LiveSession): Promise<void> {
    return this.commands.reload(s);
  }

  touch(s: LiveSession): Promise<void> {
    return this.commands.touch(s);
  }
}
