// What the two job queues share: every verb is the store's (store/run-queue.ts, the run records of
// store/playground-runs.ts), with this node's name and the clock put in, and the queue's two kinds
// of news passed on: ended jobs to the listeners, cancelled ones and waiting work to the worker.
// What differs by deployment (start, shutdown, silent nodes) is the subclasses'.

import type { Clock } from '../../lib/clock.ts';
import type { NewRun, PlaygroundRunStore, RunEndFields, RunJob } from '../../store/playground-runs.ts';
import type { Admission, ClaimedRun, ClaimRoom, QueuedRun, RunControl, RunQueueStore, RunRef, ShareCaps, SpeedChange } from '../../store/run-queue.ts';
import { type JobQueue, type JobWorker, type RunProgress, STOPPED_MESSAGE } from './queue.ts';

export type LogError = (message: string, fields: Record<string, unknown>) => void;

export interface QueueDeps {
  queue: RunQueueStore;
  records: PlaygroundRunStore;
  nodeId: string;
  clock: Clock;
  logError: LogError;
}

export abstract class StoreJobQueue implements JobQueue {
  abstract readonly requeuesAtShutdown: boolean;
  readonly nodeId: string;
  protected worker: JobWorker | null = null;
  private readonly listeners = new Set<(job: RunRef) => void>();

  constructor(protected readonly d: QueueDeps) {
    this.nodeId = d.nodeId;
  }

  abstract recover(): Promise<void>;
  abstract open(): void;
  abstract close(): void;

  serve(worker: JobWorker): void {
    this.worker = worker;
  }

  onEnded(listener: (job: RunRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  enqueue(run: NewRun, job: RunJob, paced: boolean, caps: ShareCaps): Promise<Admission> {
    return this.d.queue.enqueue(run, job, paced, caps);
  }

  add(runs: readonly QueuedRun[]): Promise<void> {
    return this.d.queue.add(runs);
  }

  async wake(): Promise<void> {
    await this.worker?.claim();
  }

  cancel(userId: number): Promise<{ id: string; nodeId: string | null } | null> {
    return this.d.queue.requestStop(userId, STOPPED_MESSAGE, this.d.clock.nowMs());
  }

  async cancelOptimization(optimizationId: string, status: 'stopped' | 'failed', message: string): Promise<string[]> {
    const ids = await this.d.queue.cancelOptimization(optimizationId, status, message, this.d.clock.nowMs());
    this.d.queue.afterCommit(() => this.worker?.stop(ids));
    return ids;
  }

  pace(userId: number, speed: number | null, caps: ShareCaps): Promise<SpeedChange> {
    return this.d.queue.changeSpeed(userId, speed, caps);
  }

  claim(room: ClaimRoom): Promise<ClaimedRun | null> {
    return this.d.queue.claim(this.nodeId, room, this.d.clock.nowMs());
  }

  heartbeat(id: string, barsDone: number, progress: RunProgress): Promise<RunControl | null> {
    return this.d.queue.heartbeat(id, this.nodeId, this.d.clock.nowMs(), barsDone, progress);
  }

  async complete(job: RunRef, end: RunEndFields): Promise<void> {
    try {
      await this.d.records.end(job.id, end);
    } finally {
      // Told even when the write failed: a listener reads the row and finds it as it is.
      this.announce([job]);
    }
  }

  requeue(ids: readonly string[]): Promise<void> {
    return this.d.queue.handBack(ids, this.nodeId, STOPPED_MESSAGE, this.d.clock.nowMs());
  }

  fail(id: string, reason: string): Promise<void> {
    return this.d.records.failRunning(id, reason, this.d.clock.nowMs());
  }

  /** Tells the listeners of jobs that ended; a failing listener is logged, the others still hear. */
  protected announce(jobs: readonly RunRef[]): void {
    for (const job of jobs) {
      for (const l of this.listeners) {
        try {
          l(job);
        } catch (e) {
          this.d.logError('playground job listener failed', { executionId: job.id, error: String(e) });
        }
      }
    }
  }
}
