// Writing live sessions to the store and reading them back: one unit of work per session command.
//
// A call marks the session before it changes anything (the engine starts its change journal,
// engine/changes.ts); `commit` then writes, in one transaction, exactly what the journal says changed
// (each order in its last state, each new fill), the cursor and the engine's core state (balance,
// open lots, working orders, id counters), the account balance, and the challenge's state. Nothing is
// found by comparing: a field the engine changes is journaled with its order, or it is in the core
// state. The core state is the source for restoring; the orders and fills tables serve the searches.

import { maxPositionQtyFor } from '../../challenge/plans.ts';
import { ChallengeRule } from '../../challenge/rules.ts';
import type { Config } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { findInstrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import type { EngineChange } from '../../engine/changes.ts';
import { type EngineState, type EngineStateV1, type EngineStateV2, SessionEngine } from '../../engine/engine.ts';
import type { Fill, Order } from '../../engine/types.ts';
import type { AccountStore } from '../../store/accounts.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import type { Sql } from '../../store/sql.ts';
import type { ChallengeService } from '../challenges.ts';
import { LiveSession } from './session.ts';
import type { Ownership } from '../cluster/ownership.ts';

/** Before a mutating call: where the fill log stood (the call's own fills are those after it). */
export interface ChangeMark {
  fillsFrom: number;
}

/** What one command changed, from the engine's journal: the rows to write. */
export interface SessionUnit {
  /** Each changed order once, in its last state, in the order first changed. */
  orders: Order[];
  fills: Fill[];
}

export function unitOf(changes: readonly EngineChange[]): SessionUnit {
  const orders = new Map<number, Order>();
  const fills: Fill[] = [];
  for (const c of changes) {
    if (c.kind === 'order') orders.set(c.order.id, c.order as Order);
    else fills.push(c.fill);
  }
  return { orders: [...orders.values()], fills };
}

export interface PersistenceDeps {
  db: Sql;
  config: Config;
  source: BarSource;
  accounts: AccountStore;
  store: ReplayStore;
  challenges: ChallengeService;
  ownership: Ownership;
}

export class SessionPersistence {
  constructor(private readonly d: PersistenceDeps) {}

  mark(s: LiveSession): ChangeMark {
    s.engine.beginChanges();
    return { fillsFrom: s.engine.fillCount };
  }

  /** Writes one command's unit of work in one transaction; `endReason` ends the session. */
  async commit(s: LiveSession, unit: SessionUnit, endReason: string | null, nowMs: number): Promise<void> {
    await this.d.db.transaction(async () => {
      // In a cluster: nothing is written unless this node still holds the session.
      await this.d.ownership.fence(s.accountId);
      await this.d.store.upsertOrders(s.accountId, unit.orders);
      await this.d.store.insertFills(s.accountId, unit.fills);
      await this.d.store.updateSession({
        accountId: s.accountId,
        cursorS: s.cursorS,
        currentIndex: s.currentIndex,
        engineCore: JSON.stringify(s.engine.coreState()),
        status: endReason ? 'ended' : 'active',
        endReason,
        lastActivityMs: s.lastActivityMs,
        endedMs: endReason ? nowMs : null,
      });
      await this.d.accounts.setBalance(s.accountId, s.engine.balanceCents);
      if (endReason) await this.d.accounts.setActive(s.accountId, false);
      if (s.challenge) await this.d.challenges.save(s.challenge.accountId, s.challenge.rule.state);
      if (endReason) await this.d.ownership.release(s.accountId);
    });
  }

  /** The row of a new session, written when it starts. */
  async insert(s: LiveSession): Promise<void> {
    await this.d.store.insertSession({
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
  async restore(row: SessionRow, nowMs: number): Promise<LiveSession | null> {
    const inst = findInstrument(row.symbol, 'all');
    const tf = inst && parseTimeframe(row.timeframe, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
    if (!inst || !tf || !tf.ok) return null;
    // Rows written before order modify hold version 1 states, before the gateway's order model
    // version 2; restore reads every version.
    const core = JSON.parse(row.engineCore) as EngineState | EngineStateV2 | EngineStateV1;
    const c = row.challengeId === null ? null : await this.d.challenges.byId(row.challengeId);
    const engine = SessionEngine.restore(
      inst,
      { startingBalanceCents: core.balanceCents, slippageTicks: this.d.config.slippageTicks, maxPositionQty: c ? maxPositionQtyFor(c.plan, inst) : null },
      core,
    );
    const binding = c ? { accountId: c.account.id, rule: new ChallengeRule(c.state, c.plan, engine) } : null;
    return new LiveSession({ ...row, inst, tf: tf.value }, engine, this.d.source, binding, Math.max(row.lastActivityMs, nowMs));
  }

  /** Every active session in the store; a row that cannot be read back is ended, not left dangling. */
  async restoreAll(nowMs: number): Promise<LiveSession[]> {
    const out: LiveSession[] = [];
    for (const row of await this.d.store.activeSessions()) {
      const s = await this.restore(row, nowMs);
      if (s) out.push(s);
      else await this.endUnreadable(row, nowMs);
    }
    return out;
  }

  async endUnreadable(row: SessionRow, nowMs: number): Promise<void> {
    await this.d.db.transaction(async () => {
      await this.d.store.updateSession({ ...row, status: 'ended', endReason: 'unrestorable', endedMs: nowMs });
      await this.d.accounts.setActive(row.accountId, false);
    });
  }
}
