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
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { AccountLedger } from '../../engine/ledger.ts';
import { parseTimeframe, type Timeframe } from '../../domain/timeframe.ts';
import type { EngineChange } from '../../engine/changes.ts';
import { type EngineState, type EngineStateV1, type EngineStateV2, SessionEngine } from '../../engine/engine.ts';
import type { Fill, Order } from '../../engine/types.ts';
import type { AccountStore } from '../../store/accounts.ts';
import { BranchStore, type Checkpoint } from '../../store/branches.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import type { Sql } from '../../store/sql.ts';
import type { ChallengeService } from '../challenges.ts';
import { LiveSession } from './session.ts';
import type { Ownership } from '../cluster/ownership.ts';

/** Before a mutating call: where the fill logs stood (the call's own fills are those after it). */
export interface ChangeMark {
  /** The first instrument's fill log. */
  fillsFrom: number;
  /** Each instrument's, in the session's order (a one-instrument session: [fillsFrom]). */
  legFillsFrom: number[];
}

/** An instrument's fills since a mark: the fills a call made on it. */
export interface LegFills {
  readonly inst: Instrument;
  readonly fills: readonly Fill[];
}

/** The fills a call made since `mark`, instrument by instrument (instruments added since have none before it). */
export function fillsSince(s: LiveSession, mark: ChangeMark): LegFills[] {
  return s.legs.map((l, k) => ({ inst: l.inst, fills: l.engine.fills.slice(mark.legFillsFrom[k] ?? 0) }));
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

/**
 * The engine_core column: the first instrument's engine state; a session over several adds `legs`,
 * the other instruments' symbols and states (the ledger's balance and id counters are in each).
 */
type StoredCore = (EngineState | EngineStateV2 | EngineStateV1) & { legs?: { symbol: string; core: EngineState }[] };

export function engineCoreText(s: LiveSession): string {
  const core: StoredCore = s.engine.coreState();
  if (s.multi) core.legs = s.legs.slice(1).map((l) => ({ symbol: l.inst.symbol, core: l.engine.coreState() }));
  return JSON.stringify(core);
}

/** The session's checkpoint now (store/branches.ts): its core state, the rule's, its cursor; never its bars. */
export function checkpointOf(s: LiveSession): Checkpoint {
  const ruleState = s.challenge ? JSON.stringify(s.challenge.rule.state) : null;
  return { cursorS: s.cursorS, currentIndex: s.currentIndex, totalBars: s.totalBars, engineCore: engineCoreText(s), ruleState };
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
  readonly branches: BranchStore;

  constructor(private readonly d: PersistenceDeps) {
    this.branches = new BranchStore(d.db);
  }

  mark(s: LiveSession): ChangeMark {
    for (const l of s.legs) l.engine.beginChanges();
    return { fillsFrom: s.engine.fillCount, legFillsFrom: s.legs.map((l) => l.engine.fillCount) };
  }

  /**
   * Writes one command's unit of work in one transaction; `endReason` ends the session. `units`
   * are the session's instruments' in order; a session over several stores each order's and fill's
   * symbol (null: the session's one instrument). `checkpoint`: a trading command's commit (not an
   * advance's) also keeps the session's checkpoint at its cursor (docs/decisions.md, "Branching").
   */
  async commit(s: LiveSession, units: readonly SessionUnit[], endReason: string | null, nowMs: number, checkpoint = false): Promise<void> {
    await this.d.db.transaction(async () => {
      // In a cluster: nothing is written unless this node still holds the session.
      await this.d.ownership.fence(s.accountId);
      for (let k = 0; k < units.length; k++) {
        const symbol = s.multi ? s.legs[k].inst.symbol : null;
        if (units[k].orders.length > 0) await this.d.store.upsertOrders(s.accountId, units[k].orders, symbol);
        if (units[k].fills.length > 0) await this.d.store.insertFills(s.accountId, units[k].fills, symbol);
      }
      await this.d.store.updateSession({
        accountId: s.accountId,
        cursorS: s.cursorS,
        currentIndex: s.currentIndex,
        totalBars: s.totalBars,
        engineCore: engineCoreText(s),
        status: endReason ? 'ended' : 'active',
        endReason,
        lastActivityMs: s.lastActivityMs,
        endedMs: endReason ? nowMs : null,
      });
      await this.d.accounts.setBalance(s.accountId, s.engine.balanceCents);
      if (endReason) await this.d.accounts.setActive(s.accountId, false);
      if (s.challenge?.practice) await this.branches.savePracticeState(s.accountId, JSON.stringify(s.challenge.rule.state));
      else if (s.challenge) await this.d.challenges.save(s.challenge.accountId, s.challenge.rule.state);
      if (checkpoint) await this.branches.putCheckpoint(s.accountId, checkpointOf(s));
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
      // A practice branch is no session of its challenge (branching.ts): its row names it as practice_of.
      challengeId: s.challenge && !s.challenge.practice ? s.challenge.accountId : null,
      engineCore: engineCoreText(s),
      createdMs: s.lastActivityMs,
      lastActivityMs: s.lastActivityMs,
      endedMs: null,
    });
    await this.branches.putCheckpoint(s.accountId, checkpointOf(s));
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
    const core = JSON.parse(row.engineCore) as StoredCore;
    // A practice branch runs its challenge's rules over its own state (branching.ts).
    const practiceOf = row.practiceOf ?? null;
    const c = await this.challengeOf(row.challengeId ?? practiceOf, practiceOf === null ? null : row.practiceState ?? null);
    const cfg = (i: Instrument, ledger?: AccountLedger) => ({
      startingBalanceCents: core.balanceCents, slippageTicks: this.d.config.slippageTicks, maxPositionQty: c ? maxPositionQtyFor(c.plan, i) : null, ledger,
    });
    const nowActive = Math.max(row.lastActivityMs, nowMs);
    if (core.legs === undefined) {
      const engine = SessionEngine.restore(inst, cfg(inst), core);
      const binding = c ? { accountId: c.account.id, rule: new ChallengeRule(c.state, c.plan, engine), practice: practiceOf !== null } : null;
      return new LiveSession({ ...row, inst, tf: tf.value }, engine, this.d.source, binding, nowActive);
    }
    // A session over several instruments: one engine per instrument on one ledger (engine/ledger.ts).
    const ledger = new AccountLedger(core.balanceCents, core.nextOrderId, core.nextFillId, true);
    const engines = [SessionEngine.restore(inst, cfg(inst, ledger), core)];
    for (const leg of core.legs) {
      const li = findInstrument(leg.symbol, 'all');
      if (!li) return null;
      engines.push(SessionEngine.restore(li, cfg(li, ledger), leg.core));
    }
    const legs = engines.map((e) => ({ inst: e.inst, engine: e }));
    const binding = c ? { accountId: c.account.id, rule: new ChallengeRule(c.state, c.plan, engines[0]), practice: practiceOf !== null } : null;
    return new LiveSession({ ...row, inst, tf: tf.value }, engines[0], this.d.source, binding, nowActive, legs);
  }

  /** A stored session's timeframe (null when its row cannot be read back). */
  timeframeOf(row: SessionRow): Timeframe | null {
    const inst = findInstrument(row.symbol, 'all');
    const tf = inst && parseTimeframe(row.timeframe, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
    return tf && tf.ok ? tf.value : null;
  }

  /** The challenge a session's rule runs for, over `practiceState` (JSON) when it is a practice branch's. */
  private async challengeOf(challengeId: number | null, practiceState: string | null) {
    const c = challengeId === null ? null : await this.d.challenges.byId(challengeId);
    if (!c || practiceState === null) return c;
    return { ...c, state: JSON.parse(practiceState) as typeof c.state };
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
