// The command path of a live session: a trading command runs alone on the session, and whatever
// changes a session (a command, an advance, its end) is committed before the call returns
// (persistence.ts), so what a client was told survives a crash. When a commit fails, the session is
// reloaded from the store, so memory never runs ahead of what is on disk; only once a commit is
// stored are the hubs told (events.ts). `finalize` is a session's last commit (Replay/end, the idle
// sweep, a challenge's violation or pass): it flattens, expires what still works, and releases it.

import type { Clock } from '../../lib/clock.ts';
import type { Result } from '../../lib/result.ts';
import type { ReplayStore } from '../../store/replay.ts';
import type { Sql } from '../../store/sql.ts';
import type { Ownership } from '../cluster/ownership.ts';
import type { Movement, SessionEvents } from './events.ts';
import { type ChangeMark, type SessionPersistence, unitOf } from './persistence.ts';
import type { SessionReads } from './reads.ts';
import type { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';
import type { LogError, SessionError } from './types.ts';

export interface CommandDeps {
  db: Sql;
  clock: Clock;
  store: ReplayStore;
  ownership: Ownership;
  logError: LogError;
}

export class SessionCommands {
  constructor(
    private readonly d: CommandDeps,
    private readonly registry: SessionRegistry,
    private readonly persistence: SessionPersistence,
    private readonly events: SessionEvents,
    private readonly reads: SessionReads,
  ) {}

  /**
   * The one path of a trading command (Order/*, Position/*, a payout on a live challenge): alone on the
   * session, then `run` changes the engine and answers. A refusal (`ok: false`) changes nothing and
   * writes nothing; a success is committed, with the challenge's checks, before it resolves.
   */
  async command<T, E>(s: LiveSession, run: (s: LiveSession) => Result<T, E> | Promise<Result<T, E>>): Promise<Result<T, E | SessionError>> {
    return s.exclusive(async () => {
      if (!this.registry.holds(s)) return this.registry.gone(s);
      const mark = this.persistence.mark(s);
      let r: Result<T, E>;
      try {
        r = await run(s);
      } catch (e) {
        await this.reload(s);
        throw e;
      }
      if (!r.ok) {
        for (const l of s.legs) l.engine.takeChanges();
        return r;
      }
      await this.afterCommand(s, mark);
      return r;
    });
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

  /** Before a change: the engine starts its change journal; the call's own fills are those after the mark. */
  mark(s: LiveSession): ChangeMark {
    return this.persistence.mark(s);
  }

  /** API activity on the session (it keeps the session from the idle sweep), written at once. */
  async touch(s: LiveSession): Promise<void> {
    s.lastActivityMs = this.d.clock.nowMs();
    await this.d.store.touch(s.accountId, s.lastActivityMs);
  }

  /** Commits; on failure reloads the session from the store (dropping the unsaved change) and rethrows. */
  async commit(s: LiveSession, mark: ChangeMark, endReason: string | null = null, movement: Movement = { kind: 'none' }): Promise<void> {
    const changes = s.legs.map((leg) => ({ leg, changes: leg.engine.takeChanges() }));
    try {
      // Whatever is not an advance (a trading command, a payout, an instrument change, an end) keeps a checkpoint.
      await this.persistence.commit(s, changes.map((c) => unitOf(c.changes)), endReason, this.d.clock.nowMs(), movement.kind === 'none');
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
    s.stopPlayback();
    this.registry.remove(s.accountId);
    // In a cluster the next request loads it again, on whichever node then holds its lease.
    if (this.d.ownership.clustered) return;
    // Inside a failed transaction (a payout's), read what the store holds once it has rolled back.
    const row = this.d.db.inTransaction() ? null : await this.d.store.session(s.accountId);
    if (row?.status !== 'active') return;
    const fresh = await this.persistence.restore(row, this.d.clock.nowMs());
    if (fresh) this.registry.add(fresh);
  }

  /** The session's last commit, `reason` its end reason ('ended', 'idle', a challenge outcome's kind). */
  async finalize(s: LiveSession, reason: string, mark: ChangeMark, movement: Movement = { kind: 'none' }): Promise<void> {
    s.stopPlayback();
    // The session is over: what still works expires (a trader's cancel would be Canceled). A
    // position implies a fill, hence a last price: flatten can always price it.
    for (const l of s.legs) {
      l.engine.expireWorking(s.nowS);
      l.engine.flatten(s.nowS);
    }
    // The challenge sees the closing fill (a flat account may even reach its pass here).
    if (s.challenge && s.challenge.rule.state.status === 'active') s.challenge.rule.afterCommand(s.nowS, Math.max(0, s.currentIndex - 1));
    s.finalized = true;
    await this.commit(s, mark, reason, movement);
    this.registry.remove(s.accountId);
    // Not inside a caller's transaction: a failed write there would fail the caller's whole commit.
    if (!this.d.db.inTransaction()) await this.keepResults(s.accountId);
  }

  /** Folds an ended session's fills once and keeps the statistics; a failure leaves it to the first read. */
  private async keepResults(accountId: number): Promise<void> {
    try {
      await this.reads.results(accountId);
    } catch (e) {
      this.d.logError('keeping a replay session\'s statistics failed; its first read folds them', { accountId, error: String(e) });
    }
  }
}
