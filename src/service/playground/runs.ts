// Playground runs: what a client does with a run (start, stop, pace, read), family-agnostic; the
// playground adapter maps the error kinds. The work is split by responsibility:
// - run-request.ts checks a request whole before any runner child is used;
// - the job queue (service/jobs/queue.ts) holds an accepted run as a `running` row without a node
//   and answers at once; one run per user and the runner shares' caps are counted there, so they
//   hold across nodes (docs/decisions.md, "Playground");
// - run-worker.ts is this node's side of the queue: any node with a free runner claims the run and a
//   child from its pool runs it in the background (execution.ts); the running node writes progress
//   and a heartbeat to the row, applies the stop and pace any node set there, and writes the end
//   (completed, failed, stopped, timeout) once, with the ledger's results;
// - run-reads.ts and run-views.ts read a run: from memory on the node running it, from its row on
//   every other.
//
// A paced run (speed 1–50) beyond the paced share waits its turn, `queued` until a paced runner
// frees, instead of being refused (docs/decisions.md, "Playground"): four users' `speed: 1`
// runs held a 2-core node's share for ten minutes, every other paced run refused meanwhile. A run
// changing pace changes share: to full speed only when a full-speed slot is free (else POST speed
// answers busy and the run keeps its pace); to a pace when the paced share has room, waiting runs
// counted (else it keeps its slot).

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Clock } from '../../lib/clock.ts';
import { handOn } from '../../lib/hand-on.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import type { NewRun, PlaygroundRunStore } from '../../store/playground-runs.ts';
import type { RunnerPool } from '../../../runner/host/pool.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { parseSpeed, type PlannedRun, RunPlanner, type RunError, type RunInput } from './run-request.ts';
import { type ExecutionNotFound, RunReads, type TradesPage, type TradesPageError } from './run-reads.ts';
import type { ExecutionView } from './run-views.ts';
import { RunWorker, type RunSettings } from './run-worker.ts';
import type { StrategyService } from './strategies.ts';

export type { ExecutionNotFound, ExecutionView, PlannedRun, RunError, RunInput, RunSettings, TradesPage, TradesPageError };

export type StopError = { kind: 'not_running' };
export type SpeedError = { kind: 'not_running' } | { kind: 'invalid_speed' } | { kind: 'capacity'; retryAfterS: number };

/** What the run service is built from besides the job queue. */
export interface RunDeps {
  records: PlaygroundRunStore;
  strategies: StrategyService;
  source: BarSource;
  pool: () => RunnerPool;
  settings: RunSettings;
  clock: Clock;
  logError: (message: string, fields: Record<string, unknown>) => void;
}

/** Reads of an execution (run-reads.ts), handed on: its view, its trades, its progress as it goes. */
const READS = ['get', 'tradesPage', 'allTrades', 'subscribe'] as const;

export interface RunService extends Pick<RunReads, (typeof READS)[number]> {}

export class RunService {
  static {
    handOn(RunService, (s) => s.reads, READS);
  }

  private readonly reads: RunReads;
  private readonly planner: RunPlanner;
  private readonly worker: RunWorker;
  private readonly records: PlaygroundRunStore;
  private readonly clock: Clock;

  constructor(
    private readonly jobs: JobQueue,
    d: RunDeps,
  ) {
    this.clock = d.clock;
    this.records = d.records;
    this.planner = new RunPlanner(d.strategies, d.source, d.settings.customTimeframes);
    this.worker = new RunWorker(jobs, d.source, d.pool, d.settings, d.clock, d.logError);
    this.reads = new RunReads(d.records, this.worker);
  }

  /** At server start: what a dead node left is recovered (the queue's), then queued runs are claimed. */
  async startQueue(): Promise<void> {
    await this.jobs.recover();
    this.jobs.open();
    await this.worker.poke();
  }

  /** `queued`: accepted but waiting for a runner (a paced run beyond the paced share, or one another node has yet to claim). */
  async start(userId: number, body: RunInput): Promise<Result<{ executionId: string; queued: boolean }, RunError>> {
    const planned = await this.planner.plan(userId, body);
    if (!planned.ok) return planned;
    const p = planned.value;
    const id = `exe_${randomSecret(12)}`;
    const run: NewRun = {
      id, userId, strategyId: p.strategyId, templateId: p.templateId, instrument: p.inst.symbol, timeframe: p.tf.text,
      startDate: p.startDate, endDate: p.endDate, params: p.params, contextTimeframes: p.ctx.map((c) => c.text), speed: p.speed,
      barsTotal: p.totalBars, startedMs: this.clock.nowMs(),
    };
    // Queued in the store: one per user and the shares' caps hold across every node.
    const job = { code: p.code, startS: p.startS, endS: p.endS, ...(p.multi ? { symbols: [p.inst, ...p.legs].map((i) => i.symbol) } : {}) };
    const admitted = await this.jobs.enqueue(run, job, p.speed !== null, this.worker.caps());
    if (admitted.kind === 'already_running') return err({ kind: 'already_running', executionId: admitted.executionId });
    if (admitted.kind === 'capacity') return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });
    // Each run's record holds up to about a megabyte of results and logs: keep the newest only.
    await this.records.pruneUser(userId, limits.playgroundRunsKeptPerUserMax);
    await this.worker.poke();
    return ok({ executionId: id, queued: this.worker.get(id) === undefined });
  }

  /** Checks a run request whole (no runner used): the source, instrument, span, timeframes, params and pace. */
  plan(userId: number, body: RunInput): Promise<Result<PlannedRun, RunError>> {
    return this.planner.plan(userId, body);
  }

  /** Stops the user's run wherever it is: here at once, on another node at its next heartbeat, queued at once. */
  async stop(userId: number): Promise<Result<{ executionId: string }, StopError>> {
    const l = this.worker.runningOf(userId);
    if (l) {
      l.exec.stop();
      return ok({ executionId: l.exec.id });
    }
    const r = await this.jobs.cancel(userId);
    return r === null ? err({ kind: 'not_running' }) : ok({ executionId: r.id });
  }

  /** 1–50 paces the user's running execution like Replay/play; null runs it at full speed (the wire's "max"). */
  async setSpeed(userId: number, speed: number | null): Promise<Result<{ executionId: string }, SpeedError>> {
    const s = parseSpeed(speed, true);
    if (s === undefined) return err({ kind: 'invalid_speed' });
    const r = await this.jobs.pace(userId, s, this.worker.caps());
    if (r.kind === 'not_running') return err({ kind: 'not_running' });
    if (r.kind === 'capacity') return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });
    // A run that left the paced share frees a paced runner here: a paced run waiting for one starts.
    if (this.worker.paceLocal(r.executionId, s, r.paced).leftPacedShare) await this.worker.poke();
    return ok({ executionId: r.executionId });
  }

  /** Ends this process's part in its executions in flight (run-worker.ts). */
  shutdown(): Promise<void> {
    return this.worker.shutdown();
  }
}
