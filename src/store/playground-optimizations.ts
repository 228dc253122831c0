// Playground optimisations (migration 13): a row per optimisation (its checked request, its state,
// the combinations it queues in all) and, for each combination, an ordinary run row in
// playground_runs carrying optimization_id (queued as a job any node claims: run-queue.ts).
// Admission (one running optimisation per user, combinations per user per UTC day) is counted under
// one lock, as runs' is: SQLite's write transaction, a transaction-level advisory lock on PostgreSQL,
// which also serialises an optimisation's advance (queueing a walk-forward window's out-of-sample run)
// between the nodes whose combinations end at once.

import type { ParamMap, RunStatus } from './strategies.ts';
import { inSeqOrder, nextSeq } from './seq.ts';
import type { Columns } from './columns.ts';
import type { Sql } from './sql.ts';

export type OptimizationStatus = 'running' | 'completed' | 'stopped' | 'failed';

export interface NewOptimization {
  id: string;
  userId: number;
  request: unknown;
  state: unknown;
  /** Combinations queued over its life (walk-forward: its out-of-sample runs included). */
  total: number;
  createdMs: number;
}

export interface OptimizationRow extends NewOptimization {
  status: OptimizationStatus;
  error: string | null;
  completedMs: number | null;
}

/** A combination's run row, as the optimisation reads it. */
export interface ComboRow {
  runId: string;
  status: RunStatus;
  error: string | null;
  /** Checked (validateParams) before the run was queued. */
  params: ParamMap;
  optWindow: number | null;
  optCombo: number | null;
  summary: unknown;
}

export type OptimizationAdmission = { kind: 'queued' } | { kind: 'already_running'; optimizationId: string } | { kind: 'daily_limit'; left: number };

const OPTIMIZE_LOCK_KEY = 0x5244_6f70;

type Raw = Columns<Omit<OptimizationRow, 'request' | 'state'>, { request_json: string; state_json: string }>;

function toRow(r: Raw): OptimizationRow {
  return {
    id: r.id, userId: Number(r.user_id), status: r.status, error: r.error, request: JSON.parse(r.request_json), state: JSON.parse(r.state_json),
    total: Number(r.total), createdMs: Number(r.created_ms), completedMs: r.completed_ms === null ? null : Number(r.completed_ms),
  };
}

export class PlaygroundOptimizationStore {
  constructor(private readonly db: Sql) {}

  /** Runs `fn` in a transaction holding the optimisations' lock. No network or child process inside. */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(async () => {
      if (this.db.dialect === 'postgres') await this.db.get(`SELECT pg_advisory_xact_lock(${OPTIMIZE_LOCK_KEY})`);
      return fn();
    });
  }

  /**
   * Writes an optimisation if its user has no optimisation running and `day`'s combinations stay
   * within `perDayMax` (its whole total counted). Its combinations are the job queue's to queue, in
   * the caller's transaction (`locked`).
   */
  async create(o: NewOptimization, day: number, perDayMax: number): Promise<OptimizationAdmission> {
    return this.locked(async () => {
      const mine = await this.db.get<{ id: string }>(`SELECT id FROM playground_optimizations WHERE user_id = $u AND status = 'running'`, { u: o.userId });
      if (mine !== null) return { kind: 'already_running', optimizationId: mine.id } as OptimizationAdmission;
      const used = await this.db.get<{ n: number }>(`SELECT combinations AS n FROM playground_optimize_usage WHERE user_id = $u AND day = $d`, { u: o.userId, d: day });
      const left = perDayMax - Number(used?.n ?? 0);
      if (o.total > left) return { kind: 'daily_limit', left: Math.max(0, left) } as OptimizationAdmission;
      await this.db.run(`INSERT INTO playground_optimize_usage (user_id, day, combinations) VALUES ($u, $d, $n)
         ON CONFLICT (user_id, day) DO UPDATE SET combinations = playground_optimize_usage.combinations + excluded.combinations`, { u: o.userId, d: day, n: o.total });
      await inSeqOrder(this.db, 'playground_optimizations', () => this.db.run(`INSERT INTO playground_optimizations (id, user_id, status, request_json, state_json, total, created_ms, seq)
         VALUES ($id, $u, 'running', $req, $state, $total, $now, ${nextSeq('playground_optimizations')})`,
        { id: o.id, u: o.userId, req: JSON.stringify(o.request), state: JSON.stringify(o.state), total: o.total, now: o.createdMs }));
      return { kind: 'queued' } as OptimizationAdmission;
    });
  }

  /** The user's optimisation, or null (another user's reads as absent). */
  async get(userId: number, id: string): Promise<OptimizationRow | null> {
    const r = await this.db.get<Raw>(`SELECT * FROM playground_optimizations WHERE id = $id AND user_id = $u`, { id, u: userId });
    return r === null ? null : toRow(r);
  }

  /** A page of the user's optimisations, newest first, and how many the user has. */
  async listByUser(userId: number, offset: number, limit: number): Promise<{ rows: OptimizationRow[]; total: number }> {
    const rows = await this.db.all<Raw>(`SELECT * FROM playground_optimizations WHERE user_id = $u ORDER BY created_ms DESC, seq DESC LIMIT $limit OFFSET $offset`,
      { u: userId, limit, offset });
    const n = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM playground_optimizations WHERE user_id = $u`, { u: userId });
    return { rows: rows.map(toRow), total: Number(n?.n ?? 0) };
  }

  async getAny(id: string): Promise<OptimizationRow | null> {
    const r = await this.db.get<Raw>(`SELECT * FROM playground_optimizations WHERE id = $id`, { id });
    return r === null ? null : toRow(r);
  }

  /** Ids of the optimisations still running (all users). */
  async runningIds(): Promise<string[]> {
    return (await this.db.all<{ id: string }>(`SELECT id FROM playground_optimizations WHERE status = 'running'`)).map((r) => r.id);
  }

  /** Every combination's run row, in window and index order. */
  async combos(id: string): Promise<ComboRow[]> {
    const rows = await this.db.all<{ id: string; status: RunStatus; error: string | null; params_json: string; opt_window: number | null; opt_combo: number | null; summary_json: string | null }>(
      `SELECT id, status, error, params_json, opt_window, opt_combo, summary_json FROM playground_runs WHERE optimization_id = $id
       ORDER BY opt_window, opt_combo`, { id });
    return rows.map((r) => ({
      runId: r.id, status: r.status, error: r.error, params: JSON.parse(r.params_json), optWindow: r.opt_window === null ? null : Number(r.opt_window),
      optCombo: r.opt_combo === null ? null : Number(r.opt_combo), summary: r.summary_json === null ? null : JSON.parse(r.summary_json),
    }));
  }

  /** A combination's stored result (its equity curve, for the walk-forward's stitched curve). */
  async result(runId: string): Promise<unknown> {
    const r = await this.db.get<{ result_json: string | null }>(`SELECT result_json FROM playground_runs WHERE id = $id`, { id: runId });
    return r?.result_json ? JSON.parse(r.result_json) : null;
  }

  async setState(id: string, state: unknown): Promise<void> {
    await this.db.run(`UPDATE playground_optimizations SET state_json = $s WHERE id = $id`, { id, s: JSON.stringify(state) });
  }

  /** Ends a running optimisation; false when it had ended already. */
  async finish(id: string, status: Exclude<OptimizationStatus, 'running'>, error: string | null, nowMs: number): Promise<boolean> {
    const n = await this.db.run(`UPDATE playground_optimizations SET status = $s, error = $e, completed_ms = $now WHERE id = $id AND status = 'running'`,
      { id, s: status, e: error, now: nowMs });
    return n > 0;
  }

  /** Keeps the user's newest `keep` optimisations: deletes older ended ones with their runs; returns how many. */
  async pruneUser(userId: number, keep: number): Promise<number> {
    return this.db.transaction(async () => {
      const old = `SELECT id FROM playground_optimizations WHERE user_id = $u AND status != 'running' AND id NOT IN (
         SELECT id FROM playground_optimizations WHERE user_id = $u ORDER BY created_ms DESC, seq DESC LIMIT $keep)`;
      await this.db.run(`DELETE FROM playground_run_trades WHERE run_id IN (SELECT id FROM playground_runs WHERE optimization_id IN (${old}))`, { u: userId, keep });
      await this.db.run(`DELETE FROM playground_runs WHERE optimization_id IN (${old})`, { u: userId, keep });
      return this.db.run(`DELETE FROM playground_optimizations WHERE id IN (${old})`, { u: userId, keep });
    });
  }
}
