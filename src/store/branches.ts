// Branching a replay session (src/service/replay/branching.ts): a session's checkpoints (its core
// state after the last trading command at each cursor, and at its start; never its bars), a branch's
// parent and time, a practice branch's own copy of its challenge rule's state, and the copy of a
// parent's order and fill rows up to the branch's bar. Written inside the callers' transactions.

import type { Sql } from './sql.ts';

/** A session's core state at a cursor: what a branch restores before walking the bars to its time. */
export interface Checkpoint {
  cursorS: number;
  currentIndex: number;
  totalBars: number;
  /** The replay_sessions.engine_core text of that moment (every instrument's engine). */
  engineCore: string;
  /** The challenge rule's state (JSON) of a challenge or practice session; null for a plain one. */
  ruleState: string | null;
}

interface RawCheckpoint {
  cursor_s: number;
  current_index: number;
  total_bars: number;
  engine_core: string;
  rule_state: string | null;
}

export class BranchStore {
  constructor(private readonly db: Sql) {}

  /** Keeps `c` as the session's checkpoint at its cursor (a later command at the same cursor replaces it). */
  async putCheckpoint(accountId: number, c: Checkpoint): Promise<void> {
    await this.db.run(
      `INSERT INTO replay_checkpoints (account_id, cursor_s, current_index, total_bars, engine_core, rule_state)
         VALUES ($a, $cursor, $index, $total, $core, $rule)
         ON CONFLICT (account_id, cursor_s) DO UPDATE SET current_index = excluded.current_index, total_bars = excluded.total_bars,
           engine_core = excluded.engine_core, rule_state = excluded.rule_state`,
      { a: accountId, cursor: c.cursorS, index: c.currentIndex, total: c.totalBars, core: c.engineCore, rule: c.ruleState },
    );
  }

  /** The session's last checkpoint strictly before `timeS` (its start's, at least, for a time after its start). */
  async checkpointBefore(accountId: number, timeS: number): Promise<Checkpoint | null> {
    const r = await this.db.get<RawCheckpoint>(
      'SELECT * FROM replay_checkpoints WHERE account_id = $a AND cursor_s < $t ORDER BY cursor_s DESC LIMIT 1',
      { a: accountId, t: timeS },
    );
    return r ? { cursorS: Number(r.cursor_s), currentIndex: Number(r.current_index), totalBars: Number(r.total_bars), engineCore: r.engine_core, ruleState: r.rule_state } : null;
  }

  /** A new branch inherits its parent's checkpoints before its time: a branch of it may go further back. */
  async copyCheckpointsBefore(fromAccountId: number, toAccountId: number, timeS: number): Promise<void> {
    await this.db.run(
      `INSERT INTO replay_checkpoints (account_id, cursor_s, current_index, total_bars, engine_core, rule_state)
         SELECT $to, cursor_s, current_index, total_bars, engine_core, rule_state FROM replay_checkpoints WHERE account_id = $from AND cursor_s < $t`,
      { from: fromAccountId, to: toAccountId, t: timeS },
    );
  }

  async deleteCheckpoints(accountId: number): Promise<void> {
    await this.db.run('DELETE FROM replay_checkpoints WHERE account_id = $a', { a: accountId });
  }

  /** Marks a new session as a branch of `parentAccountId` at `branchS`; `practiceOf`: the challenge whose rules a practice branch shows. */
  async markBranch(accountId: number, parentAccountId: number, branchS: number, practiceOf: number | null, practiceState: string | null): Promise<void> {
    await this.db.run(
      'UPDATE replay_sessions SET parent_account_id = $p, branch_s = $b, practice_of = $po, practice_state = $ps WHERE account_id = $a',
      { a: accountId, p: parentAccountId, b: branchS, po: practiceOf, ps: practiceState },
    );
  }

  /** A practice branch's rule state, written with each of its commits (never the challenge's). */
  async savePracticeState(accountId: number, state: string): Promise<void> {
    await this.db.run('UPDATE replay_sessions SET practice_state = $s WHERE account_id = $a', { a: accountId, s: state });
  }

  /**
   * The parent's orders and fills as they stood at the branch's bar: every order with an id below
   * `nextOrderId` in its stored state (the caller then writes the states the walk and the engines
   * hold for those still working or changed on the way) and every fill with an id below `nextFillId`
   * (fills never change). Ids are the engines' counters, so they follow time.
   */
  async copyRowsBefore(fromAccountId: number, toAccountId: number, nextOrderId: number, nextFillId: number): Promise<void> {
    await this.db.run(
      `INSERT INTO orders (account_id, id, type, side, size, limit_ticks, stop_ticks, status, fill_volume, filled_price_ticks,
         created_s, updated_s, sl_ticks, tp_ticks, parent_id, oco_id, triggered, trail_ticks, trail_extreme_ticks, sl_type, custom_tag, link_id, symbol)
       SELECT $to, id, type, side, size, limit_ticks, stop_ticks, status, fill_volume, filled_price_ticks,
         created_s, updated_s, sl_ticks, tp_ticks, parent_id, oco_id, triggered, trail_ticks, trail_extreme_ticks, sl_type, custom_tag, link_id, symbol
       FROM orders WHERE account_id = $from AND id < $n`,
      { from: fromAccountId, to: toAccountId, n: nextOrderId },
    );
    await this.db.run(
      `INSERT INTO fills (account_id, id, order_id, side, size, price_ticks, time_s, fee_cents, realized_cents, closed_qty, symbol)
       SELECT $to, id, order_id, side, size, price_ticks, time_s, fee_cents, realized_cents, closed_qty, symbol
       FROM fills WHERE account_id = $from AND id < $n`,
      { from: fromAccountId, to: toAccountId, n: nextFillId },
    );
  }

  /** Drops an account's rows of these orders (a branch then writes them as they stood at its time). */
  async deleteOrders(accountId: number, ids: readonly number[]): Promise<void> {
    for (const id of ids) await this.db.run('DELETE FROM orders WHERE account_id = $a AND id = $id', { a: accountId, id });
  }

  /** The parent's drawings, copied whole (the branch then keeps its own). */
  async copyDrawings(fromAccountId: number, toAccountId: number, nowMs: number): Promise<void> {
    await this.db.run(
      'INSERT INTO replay_drawings (account_id, drawings, updated_ms) SELECT $to, drawings, $now FROM replay_drawings WHERE account_id = $from',
      { from: fromAccountId, to: toAccountId, now: nowMs },
    );
  }
}
