// What the replay service answers without changing a session: the listings of the sessions this
// node holds (a user's, the one feeding a user's market subscriptions, counts), which replay
// account an account id stands for, a session's statistics and where its chart history starts.

import type { BarSource } from '../../data/bar-source.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import type { RunStats } from '../../engine/results.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { ReplayStore } from '../../store/replay.ts';
import type { Ownership } from '../cluster/ownership.ts';
import { foldStats, sessionStats } from './kept-results.ts';
import type { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';
import { historyStartS } from './setup.ts';

export interface ReadsDeps {
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
  ownership: Ownership;
}

export class SessionReads {
  /** Each live session's chart-history start, once found (`historyStart`). */
  private readonly historyStarts = new WeakMap<LiveSession, number | null>();

  constructor(
    private readonly d: ReadsDeps,
    private readonly registry: SessionRegistry,
  ) {}

  // ---- listings ----

  /**
   * The live session that feeds a user's market-hub subscriptions on an instrument: the one started
   * last (docs/decisions.md, "Hubs") among those trading it (alone or among several).
   */
  feedingSession(userId: number, symbol: string): LiveSession | undefined {
    let found: LiveSession | undefined;
    for (const s of this.registry.all()) {
      if (s.userId === userId && s.legs.some((l) => l.inst.symbol === symbol) && (!found || s.accountId > found.accountId)) found = s;
    }
    return found;
  }

  /** The user's live sessions, whichever family started them. */
  liveSessionsOf(userId: number): LiveSession[] {
    const out: LiveSession[] = [];
    for (const s of this.registry.all()) if (s.userId === userId) out.push(s);
    return out;
  }

  /** The user's live sessions on every node (the store counts in a cluster). */
  async liveCountAll(userId: number): Promise<number> {
    return this.d.ownership.clustered ? this.d.store.activeCountOf(userId) : this.liveCount(userId);
  }

  liveCount(userId: number): number {
    let n = 0;
    for (const s of this.registry.all()) if (s.userId === userId) n++;
    return n;
  }

  /** Whether the store records a live session on the challenge (also from another process). */
  async challengeHasLiveSession(challengeId: number): Promise<boolean> {
    return (await this.d.store.activeSessions()).some((row) => row.challengeId === challengeId);
  }

  // ---- accounts ----

  /**
   * The replay account whose orders and fills an account id stands for: itself, or for a challenge
   * account its live session's account (else its latest session's).
   */
  async tradingAccountOf(accountId: number): Promise<number> {
    if (this.registry.get(accountId)) return accountId;
    const account = await this.d.accounts.byId(accountId);
    if (!account || account.kind !== 'challenge') return accountId;
    return this.registry.liveSessionOfChallenge(accountId)?.accountId ?? (await this.d.store.latestSessionOfChallenge(accountId)) ?? accountId;
  }

  /** The challenge whose rules a user's replay account shows as a practice branch (Replay/branch), else null. */
  async practiceOf(userId: number, accountId: number): Promise<number | null> {
    const row = await this.d.store.session(accountId);
    return row && row.userId === userId ? (row.practiceOf ?? null) : null;
  }

  /** The instrument a replay account trades (live or ended); undefined for other accounts. */
  async instrumentOf(replayAccountId: number): Promise<Instrument | undefined> {
    const live = this.registry.get(replayAccountId);
    if (live) return live.inst;
    const row = await this.d.store.session(replayAccountId);
    return row ? findInstrument(row.symbol, 'all') : undefined;
  }

  // ---- results and chart history ----

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
}
