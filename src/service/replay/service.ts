// Replay sessions: the one face the callers see (the families' routes, the hubs, the trading,
// payout and clock services). Each call is handed to the part that owns it:
// - registry.ts: the sessions this node holds, who runs the session a request names (the HTTP
//   edge asks, owner.ts decides) and how a call finds its session;
// - reads.ts: listings, which replay account an id stands for, statistics, chart-history start;
// - commands.ts: the command path (a trading command alone on its session), commit, reload, and a
//   session's last commit (`finalize`);
// - advancing.ts: step, jump, play, pause;
// - lifecycle.ts: start, restore, end, the idle sweep, shutdown;
// - instruments.ts: a session over several instruments gains or loses one;
// - branching.ts: Replay/branch, a new session from a session's state at a bar it has played.
// The facade only hands calls on: the names each part answers are listed below, the class's merged
// interface picks them from the part's type and lib/hand-on.ts defines them on the class, so a
// signature is written once, where its work is done.
// Every call that changes a session commits before it returns (persistence.ts), so what a client was
// told survives a crash; when a commit fails, the session is reloaded from the store.

import { limits } from '../../config.ts';
import { handOn } from '../../lib/hand-on.ts';
import type { SessionOwners } from '../cluster/ownership.ts';
import type { EventBus } from '../events/bus.ts';
import type { ReplayEvent } from '../events/types.ts';
import type { RateLimits } from '../rate-limit.ts';
import type { StreamingBudget } from '../streaming-budget.ts';
import { SessionAdvancer } from './advancing.ts';
import { SessionBranching } from './branching.ts';
import { SessionCommands } from './commands.ts';
import { SessionEvents } from './events.ts';
import { SessionInstruments } from './instruments.ts';
import { type LifecycleDeps, SessionLifecycle } from './lifecycle.ts';
import { SessionPersistence } from './persistence.ts';
import { SessionReads } from './reads.ts';
import { SessionRegistry } from './registry.ts';

export type { InstrumentChangeError } from './instruments.ts';
export type { BranchError } from './branching.ts';
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

/** The calls handed on to each part, by name: the facade answers each with the part's own method. */
const LIFECYCLE = ['restoreLive', 'start', 'end', 'sweepIdle', 'startIdleSweeper', 'shutdown'] as const;
const ADVANCING = ['step', 'jumpTo', 'play', 'pause'] as const;
const FINDING = ['live', 'resolve', 'liveOfChallenge', 'liveSessionOfChallenge', 'ownerOf'] as const;
const READS = [
  'feedingSession', 'liveSessionsOf', 'liveCount', 'challengeHasLiveSession', 'tradingAccountOf', 'instrumentOf',
  'results', 'historyStart', 'historyStartOf', 'practiceOf',
] as const;
const COMMANDS = ['command', 'mark', 'commit', 'reload', 'touch'] as const;
const INSTRUMENTS = ['addInstrument', 'removeInstrument'] as const;
const BRANCHING = ['branch'] as const;

type Names<T extends readonly string[]> = T[number];

export interface ReplayService
  extends Pick<SessionLifecycle, Names<typeof LIFECYCLE>>, Pick<SessionAdvancer, Names<typeof ADVANCING>>,
  Pick<SessionRegistry, Names<typeof FINDING>>, Pick<SessionReads, Names<typeof READS>>, Pick<SessionCommands, Names<typeof COMMANDS>>,
  Pick<SessionInstruments, Names<typeof INSTRUMENTS>>, Pick<SessionBranching, Names<typeof BRANCHING>> {}

// One class, one merged interface: the interface names the calls the class hands on (handOn).
export class ReplayService implements SessionOwners {
  static {
    handOn(ReplayService, (s) => s.lifecycle, LIFECYCLE);
    handOn(ReplayService, (s) => s.advancer, ADVANCING);
    handOn(ReplayService, (s) => s.registry, FINDING);
    handOn(ReplayService, (s) => s.reads, READS);
    handOn(ReplayService, (s) => s.commands, COMMANDS);
    handOn(ReplayService, (s) => s.instruments, INSTRUMENTS);
    handOn(ReplayService, (s) => s.branching, BRANCHING);
  }

  readonly events: SessionEvents;
  private readonly registry: SessionRegistry;
  private readonly reads: SessionReads;
  private readonly commands: SessionCommands;
  private readonly advancer: SessionAdvancer;
  private readonly lifecycle: SessionLifecycle;
  private readonly instruments: SessionInstruments;
  private readonly branching: SessionBranching;

  constructor(d: ReplayDeps) {
    const persistence = new SessionPersistence(d);
    const startLimiter = d.rateLimits.limiter('replay_start', limits.replayStartsPerWindowMax, limits.replayStartWindowMs);
    this.registry = new SessionRegistry(d, persistence);
    this.reads = new SessionReads(d, this.registry);
    this.events = new SessionEvents({
      bus: d.bus,
      source: d.source,
      feedingSession: (userId, symbol) => this.reads.feedingSession(userId, symbol),
      onError: (e) => d.logError('publishing replay events failed', { error: String(e) }),
    });
    this.commands = new SessionCommands(d, this.registry, persistence, this.events, this.reads);
    this.advancer = new SessionAdvancer(d, this.registry, this.commands, d.streaming);
    this.lifecycle = new SessionLifecycle(d, this.registry, persistence, this.commands, this.reads, startLimiter);
    this.instruments = new SessionInstruments(d, this.registry, this.commands);
    this.branching = new SessionBranching(d, this.registry, persistence, this.reads, startLimiter, (userId) => this.lifecycle.pruneEnded(userId));
  }

  /** The live session this node holds for an account (the registry's `get`). */
  held(...a: Parameters<SessionRegistry['get']>): ReturnType<SessionRegistry['get']> {
    return this.registry.get(...a);
  }
}
