// WAL checkpoints off the event loop. SQLite's default has the connection that commits copy the WAL
// into the database file once the WAL passes 1,000 pages: on a serving node that is the event loop,
// held 5–120 ms by each such commit (the page copies and two fsyncs) every few hundred commits under
// load. A serving node instead raises its own connection's threshold to a backstop
// (`limits.sqliteWalBackstopPages`) and has a worker thread with a connection of its own checkpoint
// every `limits.sqliteCheckpointIntervalMs` (wal-checkpoint-worker.ts). What a commit makes durable
// is unchanged: a commit is in the WAL (synchronous=NORMAL) before its answer goes out, checkpointed
// or not. Should the worker fall behind or fail, the server's own commit checkpoints at the backstop,
// copying only what the worker has not.

import type { Db } from './db.ts';
import type { CheckpointReply, CheckpointRequest } from './wal-checkpoint-worker.ts';

/** SQLite's own threshold (pages), which the server's connection goes back to when the worker stops. */
export const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface WalCheckpointSettings {
  intervalMs: number;
  /** The server's connection checkpoints itself once the WAL holds this many pages. */
  backstopPages: number;
  /** How long a stop waits for the worker to close its connection before ending it. */
  stopWaitMs: number;
  /** A checkpoint the worker could not make (the backstop then does its part). */
  logError?: (message: string, fields: Record<string, unknown>) => void;
}

export class WalCheckpoints {
  private readonly waiting = new Map<number, { resolve: (r: { log: number; checkpointed: number }) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stopped: Promise<void> | null = null;

  private constructor(
    private readonly db: Db,
    private readonly worker: Worker,
    private readonly stopWaitMs: number,
  ) {}

  /** Starts the worker on `path` (the file `db` is open on); null for an in-memory database. */
  static start(db: Db, path: string, settings: WalCheckpointSettings): WalCheckpoints | null {
    if (path === ':memory:') return null;
    const worker = new Worker(new URL('./wal-checkpoint-worker.ts', import.meta.url).href);
    const c = new WalCheckpoints(db, worker, settings.stopWaitMs);
    worker.onmessage = (event: MessageEvent<CheckpointReply>) => c.received(event.data, settings);
    worker.unref();
    worker.postMessage({ kind: 'open', path, intervalMs: settings.intervalMs } satisfies CheckpointRequest);
    db.exec(`PRAGMA wal_autocheckpoint = ${settings.backstopPages}`);
    return c;
  }

  /** A checkpoint now, on the worker: the WAL's frames and how many of them are in the database file after it. */
  checkpointNow(): Promise<{ log: number; checkpointed: number }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'now', id } satisfies CheckpointRequest);
    });
  }

  /**
   * Stops the worker (its connection closed) and gives the server's connection SQLite's own threshold
   * back; a worker that does not answer within `stopWaitMs` (dead, stuck in a checkpoint) is ended.
   */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      this.onStopped = resolve;
      this.worker.addEventListener('close', () => resolve());
      setTimeout(resolve, this.stopWaitMs).unref();
      this.worker.postMessage({ kind: 'stop' } satisfies CheckpointRequest);
    }).then(() => {
      this.worker.terminate();
      this.db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
    });
    return this.stopped;
  }

  private onStopped: () => void = () => {};

  private received(m: CheckpointReply, settings: WalCheckpointSettings): void {
    if (m.kind === 'stopped') return this.onStopped();
    const waiter = m.id === null ? undefined : this.waiting.get(m.id);
    if (m.id !== null) this.waiting.delete(m.id);
    if (m.kind === 'done') waiter?.resolve({ log: m.log, checkpointed: m.checkpointed });
    else if (waiter) waiter.reject(new Error(m.message));
    else settings.logError?.('WAL checkpoint failed on the worker; the server checkpoints at the backstop', { error: m.message });
  }
}
