// Playground optimisations: a search over a strategy's params, each combination a normal run (the
// same checks, engine, fills and single-use sandbox) queued as a job (service/jobs/queue.ts), so any
// node with a free runner claims it. Family-agnostic; the playground adapter maps the error kinds.
// This file runs them; optimize-request.ts plans them, optimize-reads.ts reads them.
//
// - Checked whole before anything is queued (optimize-request.ts), after the user's rate of starts
//   (every POST counts); then the limits: combinations per user per UTC day, one optimisation
//   running per user (single runs go on beside it).
// - Fair share: combinations yield to single runs (a free runner takes a queued single run first)
//   and hold at most `optimizeMaxConcurrent` of a node's full-speed runners together (run-worker.ts).
// - Advance: the job queue tells this service of every combination that ended, on whichever node ran
//   it (or failed by the queue when its node went silent); the optimisation is advanced under the
//   optimisations' lock: a walk-forward window whose in-sample combinations all ended queues its
//   out-of-sample run; once nothing is left it completes. A combination the server's end interrupted
//   fails the optimisation (its finished combinations kept, the rest cancelled): after a restart a
//   running optimisation reads failed, as a run does.

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Clock } from '../../lib/clock.ts';
import { handOn } from '../../lib/hand-on.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { ComboRow, OptimizationRow, PlaygroundOptimizationStore } from '../../store/playground-optimizations.ts';
import { INTERRUPTED_MESSAGE, type JobQueue, type QueuedRun, STOPPED_MESSAGE } from '../jobs/queue.ts';
import type { RateLimiter, RateLimits } from '../rate-limit.ts';
import { SHUTDOWN_MESSAGE } from './execution.ts';
import {
  type CombinationsError, type CombinationsPage, type CombinationView, type HeatmapError, type HeatmapView, type ListError, type OptimizationNotFound,
  OptimizationReads, type OptimizationsPage, type OptimizationView, type OptimizeStopError, toCombination, type WindowView,
} from './optimize-reads.ts';
import { type OptimizeError, type OptimizeInput, OptimizePlanner, type OptimizeRequest, type OptimizeState, type Span } from './optimize-request.ts';
import { bestOf } from './optimize-space.ts';
import type { RunService } from './runs.ts';

export type {
  CombinationsError, CombinationsPage, CombinationView, HeatmapError, HeatmapView, ListError, OptimizationNotFound, OptimizationsPage, OptimizationView,
  OptimizeError, OptimizeInput, OptimizeRequest, OptimizeStopError, Span, WindowView,
};

/** What the optimisation service is built from besides the job queue. */
export interface OptimizeDeps {
  store: PlaygroundOptimizationStore;
  runs: RunService;
  source: BarSource;
  clock: Clock;
  rateLimits: RateLimits;
  logError: (message: string, fields: Record<string, unknown>) => void;
}

/** Reads (optimize-reads.ts), handed on: one as its user sees it, a page of the user's, its combinations, the heatmap. */
const READS = ['get', 'list', 'combinations', 'heatmap'] as const;

export interface OptimizationService extends Pick<OptimizationReads, (typeof READS)[number]> {}

export class OptimizationService {
  static {
    handOn(OptimizationService, (s) => s.reads, READS);
  }

  private readonly reads: OptimizationReads;
  private readonly store: PlaygroundOptimizationStore;
  private readonly clock: Clock;
  private readonly planner: OptimizePlanner;
  private readonly startLimiter: RateLimiter;
  private readonly stopListening: () => void;
  /** Advances under way (a combination's end heard from the queue), awaited at shutdown. */
  private readonly advancing = new Set<Promise<void>>();

  constructor(
    private readonly jobs: JobQueue,
    d: OptimizeDeps,
  ) {
    this.store = d.store;
    this.clock = d.clock;
    this.planner = new OptimizePlanner(d.runs, d.source, d.clock);
    this.reads = new OptimizationReads(d.store, d.runs);
    this.startLimiter = d.rateLimits.limiter('optimize_start', limits.playgroundOptimizeStartsPerWindowMax, limits.playgroundOptimizeStartWindowMs);
    this.stopListening = jobs.onEnded((job) => {
      const id = job.optimizationId;
      if (id === null) return;
      const p = this.advance(id).catch((e) => d.logError('optimisation advance', { optimizationId: id, error: String(e) }));
      this.advancing.add(p);
      void p.finally(() => this.advancing.delete(p));
    });
  }

  /**
   * At server start (after the job queue's recovery): advances every running optimisation, which
   * fails those a restart interrupted (and moves on any whose last combination ended just before).
   */
  async recover(): Promise<void> {
    for (const id of await this.store.runningIds()) await this.advance(id);
  }

  /** Stops listening to the queue and waits for the advances under way. */
  async shutdown(): Promise<void> {
    this.stopListening();
    await Promise.all([...this.advancing]);
  }

  async start(userId: number, body: OptimizeInput): Promise<Result<{ optimizationId: string }, OptimizeError>> {
    // Every start counts, refused or not, as a strategy save does: it bounds the checking work too.
    const gate = await this.startLimiter.take(String(userId), this.clock.nowMs());
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const req = await this.planner.check(userId, body);
    if (!req.ok) return req;
    const r = req.value;
    const id = `opt_${randomSecret(12)}`;
    const windows = r.walkForward?.windows.length ?? 0;
    const total = r.walkForward ? windows * (r.points + 1) : r.points;
    const combos = this.planner.combosOf(userId, id, r);
    const nowMs = this.clock.nowMs();
    const state: OptimizeState = { windows: Array.from({ length: windows }, () => ({ resolved: false, bestRunId: null, outOfSampleRunId: null })) };
    const day = Math.floor(nowMs / 1000 / DAY_S);
    // The optimisation and its combinations are written together, under the optimisations' lock.
    const admitted = await this.store.locked(async () => {
      const a = await this.store.create({ id, userId, request: r, state, total, createdMs: nowMs }, day, limits.playgroundOptimizeCombinationsPerDayMax);
      if (a.kind === 'queued') await this.jobs.add(combos);
      return a;
    });
    if (admitted.kind === 'already_running') return err({ kind: 'optimization_running', optimizationId: admitted.optimizationId });
    if (admitted.kind === 'daily_limit') return err({ kind: 'daily_limit', left: admitted.left, max: limits.playgroundOptimizeCombinationsPerDayMax });
    await this.store.pruneUser(userId, limits.playgroundOptimizationsKeptPerUserMax);
    await this.jobs.wake();
    return ok({ optimizationId: id });
  }

  /** Moves a running optimisation on after a combination ended (see the top of the file). */
  async advance(id: string): Promise<void> {
    let queued = false;
    await this.store.locked(async () => {
      const o = await this.store.getAny(id);
      if (o === null || o.status !== 'running') return;
      const rows = await this.store.combos(id);
      const now = this.clock.nowMs();
      if (rows.some((c) => c.status === 'failed' && (c.error === INTERRUPTED_MESSAGE || c.error === SHUTDOWN_MESSAGE))) {
        // Its running combinations stop once this commits (those on this node at once).
        await this.jobs.cancelOptimization(id, 'failed', INTERRUPTED_MESSAGE);
        await this.store.finish(id, 'failed', INTERRUPTED_MESSAGE, now);
        return;
      }
      const req = o.request as OptimizeRequest;
      const state = o.state as OptimizeState;
      if (req.walkForward) queued = await this.resolveWindows(o, req, state, rows);
      const open = rows.some((c) => c.status === 'running') || queued || state.windows.some((w) => !w.resolved);
      if (!open) await this.store.finish(id, 'completed', null, now);
    });
    if (queued) await this.jobs.wake();
  }

  /** Queues the out-of-sample run of each window whose in-sample search ended; true when it queued any. */
  private async resolveWindows(o: OptimizationRow, req: OptimizeRequest, state: OptimizeState, rows: ComboRow[]): Promise<boolean> {
    const wf = req.walkForward!;
    const queue: QueuedRun[] = [];
    state.windows.forEach((w, k) => {
      if (w.resolved) return;
      const inSample = rows.filter((c) => c.optWindow === k && c.optCombo !== null);
      if (inSample.length < req.points || inSample.some((c) => c.status === 'running')) return;
      const best = bestOf(inSample.map(toCombination), req.objective, req.constraints);
      w.resolved = true;
      w.bestRunId = best?.runId ?? null;
      if (best === null) return;
      const c = this.planner.combo(o.userId, o.id, req, wf.windows[k].outOfSample, best.params, k, null);
      w.outOfSampleRunId = c.run.id;
      queue.push(c);
    });
    await this.jobs.add(queue);
    await this.store.setState(o.id, state);
    return queue.length > 0;
  }

  async stop(userId: number, id: string): Promise<Result<{ optimizationId: string }, OptimizeStopError>> {
    const r = await this.store.locked(async () => {
      const o = await this.store.get(userId, id);
      if (o === null) return 'optimization_not_found' as const;
      if (o.status !== 'running') return 'not_running' as const;
      const now = this.clock.nowMs();
      await this.jobs.cancelOptimization(id, 'stopped', STOPPED_MESSAGE);
      await this.store.finish(id, 'stopped', STOPPED_MESSAGE, now);
      return null;
    });
    if (r !== null) return err({ kind: r });
    return ok({ optimizationId: id });
  }
}
