// The clock of a request under the live profile (docs/decisions.md, "Live profile"): bots live on the wall
// clock, the replay does not, so a bot's "now" is read as the simulated time of the replay it works
// with.
// - A request naming an account takes that account's replay session's time: the end of the last bar
//   played (`LiveSession.nowS` when this node holds it, else the store's cursor, also for a session
//   another node runs or one that has ended). A challenge account stands for its live session, else
//   its latest (ReplayService.tradingAccountOf).
// - A request naming none (Contract, History), or an account without a session, takes the time of
//   the user's live session acted on last: the latest `replay_sessions.last_activity_ms`, written by
//   Replay/start and by every command, step, jump, play, pause and trade, and by the reads that keep
//   a session from idling (Order/searchOpen, Position/searchOpen), by any of the user's tokens or the
//   console; not by playback. Read from the store, so every node of a cluster agrees. A tie (two
//   sessions acted on in the same millisecond) goes to the one started later.
// - With no live session: the wall clock.

import type { Clock } from '../lib/clock.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { ReplayStore } from '../store/replay.ts';
import type { ReplayService } from './replay/service.ts';

export interface ClockReading {
  /** The request's "now" in epoch ms: a replay session's simulated time, or the wall clock. */
  readonly nowMs: number;
  /** The wall clock when it was read. */
  readonly wallMs: number;
  /** nowMs is a session's simulated time (false: the wall clock). */
  readonly simulated: boolean;
}

export interface ReplayClockDeps {
  replay: ReplayService;
  store: ReplayStore;
  accounts: AccountStore;
  clock: Clock;
}

export class ReplayClock {
  constructor(private readonly d: ReplayClockDeps) {}

  /** The clock of a request that names no account: the user's live session acted on last. */
  async ofUser(userId: number): Promise<ClockReading> {
    const wallMs = this.d.clock.nowMs();
    const row = await this.d.store.lastActedLiveOf(userId);
    if (!row) return { nowMs: wallMs, wallMs, simulated: false };
    const here = this.d.replay.held(row.accountId);
    return { nowMs: (here?.nowS ?? row.cursorS) * 1000, wallMs, simulated: true };
  }

  /** The clock of a request naming `accountId`: its session's time, else the user's clock. */
  async ofAccount(userId: number, accountId: number): Promise<ClockReading> {
    if (!Number.isInteger(accountId)) return this.ofUser(userId);
    const account = await this.d.accounts.byId(accountId);
    if (!account || account.userId !== userId) return this.ofUser(userId);
    const replayAccountId = await this.d.replay.tradingAccountOf(accountId);
    const wallMs = this.d.clock.nowMs();
    const here = this.d.replay.held(replayAccountId);
    if (here) return { nowMs: here.nowS * 1000, wallMs, simulated: true };
    const row = await this.d.store.session(replayAccountId);
    return row ? { nowMs: row.cursorS * 1000, wallMs, simulated: true } : this.ofUser(userId);
  }
}
