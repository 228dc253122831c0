// The playground's job queue: runs (single runs and optimisations' combinations) waiting for a
// runner, claimed by whichever node has one free, heart-beaten while they run, completed once. One
// interface over the store's queue (store/run-queue.ts), two implementations by deployment, chosen
// once by the composition root (service/topology.ts):
// - `LocalJobQueue` (local-queue.ts): one node holds the store (its SQLite file). Nothing else can
//   run a job, so a job still running at start was left by this node's previous life and fails, a
//   job running at shutdown fails (a restart would fail it anyway), and the node claims as it
//   queues and as runs end, with no timer.
// - `SharedJobQueue` (shared-queue.ts): the store is shared with other nodes (PostgreSQL). A job
//   running at shutdown goes back to the queue for any node; every node looks for silent nodes'
//   jobs and for jobs other nodes queued on a timer; a silent node's combination is queued again
//   from the start (a few times at most), any other job it held fails.
// Either way the queue tells its listeners of every claimed job that ended: completed by its node,
// or failed by the queue because its node went silent, so an optimisation moves on wherever its
// combination ended, without looking for it.

import type { RunStats } from '../../engine/results.ts';
import type { NewRun, RunEndFields, RunJob } from '../../store/playground-runs.ts';
import type { Admission, ClaimedRun, ClaimRoom, QueuedRun, RunControl, RunRef, ShareCaps, SpeedChange } from '../../store/run-queue.ts';

export type { Admission, ClaimedRun, ClaimRoom, QueuedRun, RunControl, RunRef, ShareCaps, SpeedChange };

/** The reason a run reads failed when its server went away mid-run (a restart, or a silent node). */
export const INTERRUPTED_MESSAGE = 'The server restarted while the run was in progress';
/** The reason a run reads stopped when its user (or its optimisation's) stopped it. */
export const STOPPED_MESSAGE = 'Stopped by the user';

/** What the running node writes of a job's progress beside its bars done, for the other nodes to show. */
export interface RunProgress {
  balanceCents: number;
  equityCents: number;
  stats: RunStats;
  /** A run over several instruments: every symbol, the main one first. */
  instrumentSymbols?: string[];
}

/** What runs the claimed jobs on this node (service/playground/run-worker.ts). */
export interface JobWorker {
  /** Claims queued jobs while this node has room; resolves once it has claimed what fits. */
  claim(): Promise<void>;
  /** Stops the jobs of `ids` running on this node at once (their rows are flagged for the others). */
  stop(ids: readonly string[]): void;
}

export interface JobQueue {
  /** This node's name: the jobs it claims carry it. */
  readonly nodeId: string;
  /** Whether a job this node lets go at shutdown goes back to the queue (another node runs it) rather than failing. */
  readonly requeuesAtShutdown: boolean;

  /** The worker of this node: told when jobs may wait (`wake`, the timer) and when some are cancelled. */
  serve(worker: JobWorker): void;
  /** Hears every claimed job that ended (completed, or failed for a silent node); returns the unsubscribe. */
  onEnded(listener: (job: RunRef) => void): () => void;

  /** Queues a single run if its user has none and its runner share has room (cluster-wide). */
  enqueue(run: NewRun, job: RunJob, paced: boolean, caps: ShareCaps): Promise<Admission>;
  /** Queues runs their caller admitted (an optimisation's combinations), in the caller's transaction. */
  add(runs: readonly QueuedRun[]): Promise<void>;
  /** Jobs were added: this node's worker claims what it has room for (resolves once it has). */
  wake(): Promise<void>;
  /** Stops the user's single run: a queued one ends at once, a running one is flagged for its node. */
  cancel(userId: number): Promise<{ id: string; nodeId: string | null } | null>;
  /**
   * Ends an optimisation's queued combinations and flags its running ones (in the caller's
   * transaction); once that commits, those running on this node stop at once. Returns their ids.
   */
  cancelOptimization(optimizationId: string, status: 'stopped' | 'failed', message: string): Promise<string[]>;
  /** Sets the pace of the user's single run, moving it between the runner shares as they allow. */
  pace(userId: number, speed: number | null, caps: ShareCaps): Promise<SpeedChange>;

  /** Takes the oldest queued job the room allows for this node; null when none waits. */
  claim(room: ClaimRoom): Promise<ClaimedRun | null>;
  /** The running job's progress and liveness; reads back its stop and pace. Null: no longer this node's. */
  heartbeat(id: string, barsDone: number, progress: RunProgress): Promise<RunControl | null>;
  /** Records the job's end once (a job ended already stays as it is), then tells the listeners. */
  complete(job: RunRef, end: RunEndFields): Promise<void>;
  /** Gives jobs this node claimed back to the queue from the start (its shutdown); a stop asked meanwhile ends them stopped. */
  requeue(ids: readonly string[]): Promise<void>;
  /** Ends a job as failed with `reason`, if it is still running. */
  fail(id: string, reason: string): Promise<void>;

  /** At start, before any claim: what a dead node (this one's previous life, or another) left running. */
  recover(): Promise<void>;
  /** Starts looking for work and silent nodes (a timer on a shared queue; nothing on a local one). */
  open(): void;
  /** This node claims no more: the timer stops. Idempotent. */
  close(): void;
}
