// Replay sessions: the one face the callers see (the families' routes, the hubs, the trading,
// payout and clock services). Each call is handed to the part that owns it:
// - registry.ts: the sessions this node holds, who runs the session a request names (the HTTP
//   edge asks, owner.ts decides) and how a call finds its session;
// - reads.ts: listings, which replay account an id stands for, statistics, chart-history start;
// - commands.ts: the command path (a trading command alone on its session), commit, reload, and a
//   session's last commit (`finalize`);
// - advancing.ts: step, jump, play, pause;
// - lifecycle.ts: start, restore, end, the idle sweep, shutdown.
// The facade only hands calls on: each method takes its part's parameters and answers its part's
// result (`Parameters`/`ReturnType`), so a signature is written once, where its work is done.
// Every call that changes a session commits before it returns (persistence.ts), so what a client was
// told survives a crash; when a commit fails, the session is reloaded from the store.

import { limits } from '../../config.ts';
import type { Result } from '../../lib/result.ts';
import type { SessionOwners } from '../cluster/ownership.ts';
import type { EventBus } from '../events/bus.ts';
import type { ReplayEvent } from '../events/types.ts';
import type { RateLimits } from '../rate-limit.ts';
import type { StreamingBudget } from '../streaming-budget.ts';
import { SessionAdvancer } from './advancing.ts';
import { SessionCommands } from './commands.ts';
import { SessionEvents } from './events.ts';
import { type LifecycleDeps, SessionLifecycle } from './lifecycle.ts';
import { SessionPersistence } from './persistence.ts';
import { SessionReads } from './reads.ts';
import { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';
import type { SessionError } from './types.ts';

export type { AdvanceError, AdvanceOutcome, PlaybackRate, PlayError, SessionError, StartPolicy, TradeSessionError } from './types.ts';

/** What the service is built from: what its widest part (lifecycle.ts) takes, and the bus, rates and streaming budget. */
export interface ReplayDeps extends LifecycleDeps {
  /** Where committed changes are published for the real-time hubs. */
  bus: EventBus<ReplayEvent>;
  /** Replay/start's rate: per process, or shared by a cluster. */
  rateLimits: RateLimits;
  /** Replay/step's bars per user (the topology's: the day shared by a cluster). */
  streaming: StreamingBudget;
}

export class ReplayService implements SessionOwners {
  readonly events: SessionEvents;
  private readonly registry: SessionRegistry;
  private readonly reads: SessionReads;
  private readonly commands: SessionCommands;
  private readonly advancer: SessionAdvancer;
  private readonly lifecycle: SessionLifecycle;

  constructor(d: ReplayDeps) {
    const persistence = new SessionPersistence(d);
    const startLimiter = d.rateLimits.limiter('replay_start', limits.replayStartsPerWindowMax, limits.replayStartWindowMs);
    this.registry = new SessionRegistry(d, persistence);
    this.reads = new SessionReads(d, this.registry);
    this.events = new SessionEvents({
      bus: d.bus,
      source: d.source,
      feedingSession: (userId, symbol) => this.reads.feedingSession(userId, symbol),
    });
    this.commands = new SessionCommands(d, this.registry, persistence, this.events, this.reads);
    this.advancer = new SessionAdvancer(d, this.registry, this.commands, d.streaming);
    this.lifecycle = new SessionLifecycle(d, this.registry, persistence, this.commands, this.reads, startLimiter);
  }

  // ---- lifecycle (lifecycle.ts) ----

  restoreLive(): Promise<void> {
    return this.lifecycle.restoreLive();
  }

  start(...a: Parameters<SessionLifecycle['start']>): ReturnType<SessionLifecycle['start']> {
    return this.lifecycle.start(...a);
  }

  end(...a: Parameters<SessionLifecycle['end']>): ReturnType<SessionLifecycle['end']> {
    return this.lifecycle.end(...a);
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

  step(...a: Parameters<SessionAdvancer['step']>): ReturnType<SessionAdvancer['step']> {
    return this.advancer.step(...a);
  }

  jumpTo(...a: Parameters<SessionAdvancer['jumpTo']>): ReturnType<SessionAdvancer['jumpTo']> {
    return this.advancer.jumpTo(...a);
  }

  play(...a: Parameters<SessionAdvancer['play']>): ReturnType<SessionAdvancer['play']> {
    return this.advancer.play(...a);
  }

  pause(...a: Parameters<SessionAdvancer['pause']>): ReturnType<SessionAdvancer['pause']> {
    return this.advancer.pause(...a);
  }

  // ---- finding a session (registry.ts) ----

  live(...a: Parameters<SessionRegistry['live']>): ReturnType<SessionRegistry['live']> {
    return this.registry.live(...a);
  }

  resolve(...a: Parameters<SessionRegistry['resolve']>): ReturnType<SessionRegistry['resolve']> {
    return this.registry.resolve(...a);
  }

  liveOfChallenge(...a: Parameters<SessionRegistry['liveOfChallenge']>): ReturnType<SessionRegistry['liveOfChallenge']> {
    return this.registry.liveOfChallenge(...a);
  }

  liveSessionOfChallenge(...a: Parameters<SessionRegistry['liveSessionOfChallenge']>): ReturnType<SessionRegistry['liveSessionOfChallenge']> {
    return this.registry.liveSessionOfChallenge(...a);
  }

  held(...a: Parameters<SessionRegistry['get']>): ReturnType<SessionRegistry['get']> {
    return this.registry.get(...a);
  }

  ownerOf(...a: Parameters<SessionRegistry['ownerOf']>): ReturnType<SessionRegistry['ownerOf']> {
    return this.registry.ownerOf(...a);
  }

  // ---- reads (reads.ts) ----

  feedingSession(...a: Parameters<SessionReads['feedingSession']>): ReturnType<SessionReads['feedingSession']> {
    return this.reads.feedingSession(...a);
  }

  liveSessionsOf(...a: Parameters<SessionReads['liveSessionsOf']>): ReturnType<SessionReads['liveSessionsOf']> {
    return this.reads.liveSessionsOf(...a);
  }

  liveCount(...a: Parameters<SessionReads['liveCount']>): ReturnType<SessionReads['liveCount']> {
    return this.reads.liveCount(...a);
  }

  challengeHasLiveSession(...a: Parameters<SessionReads['challengeHasLiveSession']>): ReturnType<SessionReads['challengeHasLiveSession']> {
    return this.reads.challengeHasLiveSession(...a);
  }

  tradingAccountOf(...a: Parameters<SessionReads['tradingAccountOf']>): ReturnType<SessionReads['tradingAccountOf']> {
    return this.reads.tradingAccountOf(...a);
  }

  instrumentOf(...a: Parameters<SessionReads['instrumentOf']>): ReturnType<SessionReads['instrumentOf']> {
    return this.reads.instrumentOf(...a);
  }

  results(...a: Parameters<SessionReads['results']>): ReturnType<SessionReads['results']> {
    return this.reads.results(...a);
  }

  historyStart(...a: Parameters<SessionReads['historyStart']>): ReturnType<SessionReads['historyStart']> {
    return this.reads.historyStart(...a);
  }

  historyStartOf(...a: Parameters<SessionReads['historyStartOf']>): ReturnType<SessionReads['historyStartOf']> {
    return this.reads.historyStartOf(...a);
  }

  // ---- the command path (commands.ts) ----

  command<T, E>(s: LiveSession, run: (s: LiveSession) => Result<T, E> | Promise<Result<T, E>>): Promise<Result<T, E | SessionError>> {
    return this.commands.command(s, run);
  }

  mark(...a: Parameters<SessionCommands['mark']>): ReturnType<SessionCommands['mark']> {
    return this.commands.mark(...a);
  }

  commit(...a: Parameters<SessionCommands['commit']>): ReturnType<SessionCommands['commit']> {
    return this.commands.commit(...a);
  }

  reload(...a: Parameters<SessionCommands['reload']>): ReturnType<SessionCommands['reload']> {
    return this.commands.reload(...a);
  }

  touch(...a: Parameters<SessionCommands['touch']>): ReturnType<SessionCommands['touch']> {
    return this.commands.touch(...a);
  }
}
