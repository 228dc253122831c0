// Writing live sessions to SQLite and reading them back.
//
// A call marks the session before it changes anything (the working orders with their state, the
// length of the order and fill logs); `commit` then writes, in one transaction, the orders that are
// new or changed, the new fills, the cursor and the engine's core state (balance, open lots, working
// orders, id counters), the account balance, and the challenge's state. The engine's core state is
// the source for restoring; the orders and fills tables serve the searches.

import { maxPositionQtyFor } from '../../challenge/plans.ts';
import { ChallengeRule } from '../../challenge/rules.ts';
import type { Config } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { findInstrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import { type EngineState, type EngineStateV1, SessionEngine } from '../../engine/engine.ts';
import type { Order } from '../../engine/types.ts';
import type { AccountStore } from '../../store/accounts.ts';
import { type Db, inTransaction } from '../../store/db.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import type { ChallengeService } from '../challenges.ts';
import { LiveSession } from './session.ts';

/** Before a mutating call: the working orders as they were, and where the logs stood. */
export interface ChangeMark {
  working: readonly { order: Order; signature: string }[];
  ordersLen: number;
  fillsFrom: number;
}

export interface PersistenceDeps {
  db: Db;
  config: Config;
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
  challenges: ChallengeService;
}

/**
 * What of a working order can change without a new order: status, size (bracket legs, modify), prices
 * (modify), arming. Time priority lives in the engine's core state only.
 */
function signature(o: Order): string {
  return `${o.status}|${o.size}|${o.limitTicks}|${o.stopTicks}|${o.fillVolume}|${o.triggered}`;
}

export class SessionPersistence {
  constructor(private readonly d: PersistenceDeps) {}

  mark(s: LiveSession): ChangeMark {
    // The engine journals what the call changes, for the events published after the commit.
    s.engine.beginChanges();
    const working = s.engine.book.working.map((order) => ({ order, signature: signature(order) }));
    return { working, ordersLen: s.engine.orders.length, fillsFrom: s.engine.fillCount };
  }

  /** Writes what changed since `mark` in one transaction; `endReason` ends the session. */
  commit(s: LiveSession, mark: ChangeMark, endReason: string | null, nowMs: number): void {
    const changed: Order[] = [];
    for (const w of mark.working) if (signature(w.order) !== w.signature) changed.push(w.order);
    for (let i = mark.ordersLen; i < s.engine.orders.length; i++) changed.push(s.engine.orders[i]);
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
        lastActivityMs: s.lastActivityMs,
        endedMs: endReason ? nowMs : null,
      });
      this.d.accounts.setBalance(s.accountId, s.engine.balanceCents);
      if (endReason) this.d.accounts.setActive(s.accountId, false);
      if (s.challenge) this.d.challenges.save(s.challenge.accountId, s.challenge.rule.state);
    });
  }

  /** The row of a new session, written when it starts. */
  insert(s: LiveSession): void {
    this.d.store.insertSession({
      accountId: s.accountId,
      sessionId: s.sessionId,
      userId: s.userId,
      symbol: s.inst.symbol,
      timeframe: s.tf.text,
      startS: s.startS,
      endS: s.endS,
      cursorS: s.cursorS,
      currentIndex: s.currentIndex,
      totalBars: s.totalBars,
      historyBars: s.historyBars,
      status: 'active',
      endReason: null,
      challengeId: s.challenge ? s.challenge.accountId : null,
      engineCore: JSON.stringify(s.engine.coreState()),
      createdMs: s.lastActivityMs,
      lastActivityMs: s.lastActivityMs,
      endedMs: null,
    });
  }

  /**
   * Rebuilds a session from its row: the engine from its core state, the challenge rule over the
   * challenge's stored state. A restored session counts as active now, so a restart after a long
   * stop does not let the idle sweep end every session before its client is back.
   */
  restore(row: SessionRow, nowMs: number): LiveSession | null {
    const inst = findInstrument(row.symbol);
    const tf = inst && parseTimeframe(row.timeframe, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
    if (!inst || !tf || !tf.ok) return null;
    // Rows written before order modify hold version 1 states; restore reads both.
    const core = JSON.parse(row.engineCore) as EngineState | EngineStateV1;
    const c = row.challengeId === null ? null : this.d.challenges.byId(row.challengeId);
    const engine = SessionEngine.restore(
      inst,
      { startingBalanceCents: core.balanceCents, slippageTicks: this.d.config.slippageTicks, maxPositionQty: c ? maxPositionQtyFor(c.plan, inst) : null },
      core,
    );
    const binding = c ? { accountId: c.account.id, rule: new ChallengeRule(c.state, c.plan, engine) } : null;
    return new LiveSession({ ...row, inst, tf: tf.value }, engine, this.d.source, binding, Math.max(row.lastActivityMs, nowMs));
  }

  /** Every active session in the store; a row that cannot be read back is ended, not left dangling. */
  restoreAll(nowMs: number): LiveSession[] {
    const out: LiveSession[] = [];
    for (const row of this.d.store.activeSessions()) {
      const s = this.restore(row, nowMs);
      if (s) out.push(s);
      else this.endUnreadable(row, nowMs);
    }
    return out;
  }

  private endUnreadable(row: SessionRow, nowMs: number): void {
    inTransaction(this.d.db, () => {
      this.d.store.updateSession({ ...row, status: 'ended', endReason: 'unrestorable', endedMs: nowMs });
      this.d.accounts.setActive(row.accountId, false);
    });
  }
}
