// The playground's job queue in the store (migration 11): a `running` row of playground_runs without
// node_id is queued with its job (job_json); a node claims it (`claim`: FOR UPDATE SKIP LOCKED on
// PostgreSQL), writes its progress and heartbeat (`heartbeat`) and reads back the stop and pace any
// node set. Admission (one per user, the runner shares' caps) is counted here under one lock:
// SQLite's write transaction, a transaction-level advisory lock on PostgreSQL. What becomes of a
// claimed row whose node stops (`handBack`) or goes silent (`failStale`) is decided here too. The
// rows themselves (their record, results and trades) are playground-runs.ts's.

import { isUniqueViolation, type NewRun, type PlaygroundRunStore, ROW_COLUMNS, type RunJob, type RunRaw, type RunRow, runRowOf, SINGLE } from './playground-runs.ts';
import type { Sql } from './sql.ts';

/** A run to queue with its job, outside admission (an optimisation's combination: its own admission). */
export interface QueuedRun {
  run: NewRun;
  job: RunJob;
}

/** A run a node claimed: its row and its job. */
export interface ClaimedRun {
  row: RunRow;
  job: RunJob;
}

/** Runs at once per runner share, cluster-wide. */
export interface ShareCaps {
  full: number;
  paced: number;
  /** Paced runs that may wait for the paced share, beyond it (default none; full-speed runs never wait: refused). */
  pacedWaiting?: number;
}

export type Admission = { kind: 'queued' } | { kind: 'already_running'; executionId: string } | { kind: 'capacity' };

/** What the owner of a running run reads back at each heartbeat. */
export interface RunControl {
  speed: number | null;
  stopRequested: boolean;
  paced: boolean;
}

export type SpeedChange = { kind: 'changed'; executionId: string; nodeId: string | null; paced: boolean } | { kind: 'not_running' } | { kind: 'capacity' };

/** The advisory lock key of run admission on PostgreSQL ("RDrun" would not fit: any constant does). */
const ADMISSION_LOCK_KEY = 0x5244_7275;

/** A run by its id and, for an optimisation's combination, its optimisation. */
export interface RunRef {
  id: string;
  optimizationId: string | null;
}

/** Which of a node's runner shares have room: full speed, paced, and its share for optimisations' combinations. */
export interface ClaimRoom {
  full: boolean;
  paced: boolean;
  optimizations?: boolean;
}

export class RunQueueStore {
  constructor(
    private readonly db: Sql,
    private readonly runs: PlaygroundRunStore,
  ) {}

  /** Runs `fn` once what is written now is committed (at once outside a transaction). */
  afterCommit(fn: () => void): void {
    this.db.afterCommit(fn);
  }

  /**
   * Queues a run if its user has none queued or running and its runner share has room, atomically;
   * else says which refusal applies. A full-speed run needs a place under its share's cluster cap
   * (queued and running rows counted); a paced run may wait beyond the paced share, up to
   * `pacedWaiting` more, and starts when a node's paced runner frees (`claim`, oldest first).
   */
  async enqueue(r: NewRun, job: RunJob, paced: boolean, caps: ShareCaps): Promise<Admission> {
    try {
      return await this.db.transaction(async () => {
        await this.lockAdmission();
        const mine = await this.liveOf(r.userId);
        if (mine !== null) return { kind: 'already_running', executionId: mine.id };
        if (await this.countShare(paced) >= (paced ? caps.paced + (caps.pacedWaiting ?? 0) : caps.full)) return { kind: 'capacity' };
        await this.runs.insert(r, job, paced);
        return { kind: 'queued' };
      });
    } catch (e) {
      // The unique index is the last word (a row written outside admission, e.g. by an older node).
      if (!isUniqueViolation(e)) throw e;
      const mine = await this.liveOf(r.userId);
      if (mine === null) throw e;
      return { kind: 'already_running', executionId: mine.id };
    }
  }

  /** Queues full-speed runs admitted by their caller (in the caller's transaction, if any). */
  async add(runs: readonly QueuedRun[]): Promise<void> {
    for (const c of runs) await this.runs.insert(c.run, c.job, false);
  }

  /** The user's queued or running run: its id and node (null while queued). */
  async liveOf(userId: number): Promise<{ id: string; nodeId: string | null } | null> {
    const r = await this.db.get<{ id: string; node_id: string | null }>(`SELECT id, node_id FROM playground_runs WHERE user_id = $u AND status = 'running' AND ${SINGLE}`, { u: userId });
    return r === null ? null : { id: r.id, nodeId: r.node_id };
  }

  /**
   * Claims the oldest queued run of the given shares for `nodeId`: PostgreSQL skips rows another
   * node is claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer. Null when none is queued.
   * Single runs go before optimisations' combinations, which are taken only when `optimizations`
   * (this node's combinations are under their share of its runners).
   */
  async claim(nodeId: string, shares: ClaimRoom, nowMs: number): Promise<ClaimedRun | null> {
    if (!shares.full && !shares.paced) return null;
    const paced = (shares.full && shares.paced ? '' : `AND paced = ${shares.paced ? 1 : 0}`) + (shares.optimizations === false ? ` AND ${SINGLE}` : '');
    const lock = this.db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const r = await this.db.get<RunRaw & { job_json: string }>(
      `UPDATE playground_runs SET node_id = $node, claimed_ms = $now, heartbeat_ms = $now
       WHERE id = (SELECT id FROM playground_runs WHERE status = 'running' AND node_id IS NULL AND job_json IS NOT NULL ${paced}
                   ORDER BY (optimization_id IS NOT NULL), seq LIMIT 1 ${lock})
         AND status = 'running' AND node_id IS NULL
       RETURNING ${ROW_COLUMNS}, job_json`,
      { node: nodeId, now: nowMs },
    );
    return r === null ? null : { row: runRowOf(r), job: JSON.parse(r.job_json) as RunJob };
  }

  /**
   * The owner's heartbeat: writes progress and the time, reads back the pace, share and stop any
   * node set. Null when the run is no longer this node's and running (another node failed it as stale).
   */
  async heartbeat(id: string, nodeId: string, nowMs: number, barsDone: number, progress: unknown): Promise<RunControl | null> {
    const r = await this.db.get<{ speed: number | null; stop_requested: number; paced: number }>(
      `UPDATE playground_runs SET heartbeat_ms = $now, bars_done = $done, progress_json = $progress
       WHERE id = $id AND node_id = $node AND status = 'running' RETURNING speed, stop_requested, paced`,
      { id, node: nodeId, now: nowMs, done: barsDone, progress: JSON.stringify(progress) },
    );
    return r === null ? null : { speed: r.speed, stopRequested: r.stop_requested === 1, paced: r.paced === 1 };
  }

  /**
   * Asks the user's run to stop: a queued one ends here as stopped, a running one is flagged for
   * its node. Returns its id, or null when the user has none.
   */
  async requestStop(userId: number, message: string, nowMs: number): Promise<{ id: string; nodeId: string | null } | null> {
    return this.db.transaction(async () => {
      const mine = await this.liveOf(userId);
      if (mine === null) return null;
      if (mine.nodeId === null) {
        await this.db.run(`UPDATE playground_runs SET status = 'stopped', error = $m, completed_ms = $now, job_json = NULL WHERE id = $id AND status = 'running'`,
          { id: mine.id, m: message, now: nowMs });
      } else await this.db.run(`UPDATE playground_runs SET stop_requested = 1 WHERE id = $id`, { id: mine.id });
      return mine;
    });
  }

  /**
   * Sets the pace of the user's run (null: full speed). Going to full speed needs a full-speed place
   * (else capacity, pace unchanged); going paced moves it to the paced share when that has room.
   */
  async changeSpeed(userId: number, speed: number | null, caps: ShareCaps): Promise<SpeedChange> {
    return this.db.transaction(async () => {
      await this.lockAdmission();
      const r = await this.db.get<{ id: string; node_id: string | null; paced: number }>(
        `SELECT id, node_id, paced FROM playground_runs WHERE user_id = $u AND status = 'running' AND ${SINGLE}`, { u: userId });
      if (r === null) return { kind: 'not_running' } as SpeedChange;
      let paced = r.paced === 1;
      if (speed === null && paced) {
        if (await this.countShare(false) >= caps.full) return { kind: 'capacity' } as SpeedChange;
        paced = false;
      } else if (speed !== null && !paced && await this.countShare(true) < caps.paced) paced = true;
      await this.db.run('UPDATE playground_runs SET speed = $speed, paced = $paced WHERE id = $id', { id: r.id, speed, paced: paced ? 1 : 0 });
      return { kind: 'changed', executionId: r.id, nodeId: r.node_id, paced } as SpeedChange;
    });
  }

  /**
   * Runs of other nodes whose heartbeat is older than `beforeMs`: an optimisation's combination goes
   * back to the queue from the start (the same job, the same fills wherever it runs) up to
   * `requeuesMax` times; any other is failed with `reason`. Returns the runs failed. The silent node's
   * next heartbeat finds the row no longer its own either way, and lets the run go.
   */
  async failStale(nodeId: string, reason: string, beforeMs: number, nowMs: number, requeuesMax = 0): Promise<RunRef[]> {
    const stale = { node: nodeId, before: beforeMs };
    return this.db.transaction(async () => {
      await this.db.run(`UPDATE playground_runs SET node_id = NULL, claimed_ms = NULL, heartbeat_ms = NULL, bars_done = 0, progress_json = NULL,
             requeues = requeues + 1
           WHERE status = 'running' AND node_id IS NOT NULL AND node_id != $node AND heartbeat_ms < $before
             AND optimization_id IS NOT NULL AND job_json IS NOT NULL AND stop_requested = 0 AND requeues < $max`, { ...stale, max: requeuesMax });
      const rows = await this.db.all<{ id: string; optimization_id: string | null }>(
        `UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now, job_json = NULL
         WHERE status = 'running' AND node_id IS NOT NULL AND node_id != $node AND heartbeat_ms < $before RETURNING id, optimization_id`,
        { ...stale, reason, now: nowMs },
      );
      return rows.map((r) => ({ id: r.id, optimizationId: r.optimization_id }));
    });
  }

  private async lockAdmission(): Promise<void> {
    if (this.db.dialect === 'postgres') await this.db.get(`SELECT pg_advisory_xact_lock(${ADMISSION_LOCK_KEY})`);
  }

  private async countShare(paced: boolean): Promise<number> {
    const r = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM playground_runs WHERE status = 'running' AND paced = $p AND ${SINGLE}`, { p: paced ? 1 : 0 });
    return Number(r?.n ?? 0);
  }

  /**
   * Gives runs of a node that is shutting down back to the queue: each still running there is queued
   * again (node, heartbeat and progress cleared, its job kept) for any node to run from the start;
   * one whose stop was asked meanwhile ends as stopped instead.
   */
  async handBack(ids: readonly string[], nodeId: string, stoppedMessage: string, nowMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction(async () => {
      for (const id of ids) {
        const mine = { id, node: nodeId };
        await this.db.run(`UPDATE playground_runs SET status = 'stopped', error = $m, completed_ms = $now, job_json = NULL, progress_json = NULL
           WHERE id = $id AND node_id = $node AND status = 'running' AND stop_requested = 1`, { ...mine, m: stoppedMessage, now: nowMs });
        await this.db.run(`UPDATE playground_runs SET node_id = NULL, claimed_ms = NULL, heartbeat_ms = NULL, bars_done = 0, progress_json = NULL
           WHERE id = $id AND node_id = $node AND status = 'running' AND job_json IS NOT NULL`, mine);
      }
    });
  }

  /**
   * Ends an optimisation's queued combinations as `status` (with `message`) and asks its running ones
   * to stop (their nodes apply it at the next heartbeat); returns the running ones' ids.
   */
  async cancelOptimization(optimizationId: string, status: 'stopped' | 'failed', message: string, nowMs: number): Promise<string[]> {
    const id = optimizationId;
    await this.db.run(`UPDATE playground_runs SET status = $s, error = $m, completed_ms = $now, job_json = NULL
       WHERE optimization_id = $id AND status = 'running' AND node_id IS NULL`, { id, s: status, m: message, now: nowMs });
    const rows = await this.db.all<{ id: string }>(`UPDATE playground_runs SET stop_requested = 1 WHERE optimization_id = $id AND status = 'running' RETURNING id`, { id });
    return rows.map((r) => r.id);
  }

  /** Marks runs left `running` by a stopped server as failed; returns how many. */
  async failInterrupted(reason: string, nowMs: number): Promise<number> {
    return (await this.db.run(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now, job_json = NULL WHERE status = 'running'`, { reason, now: nowMs }));
  }
}
