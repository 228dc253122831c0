// The job queue of one node holding its store alone (a SQLite file): no other node can run a job,
// so what was running when this node stopped failed with it, and work is claimed as it is queued
// and as runs end (queue.ts).

import { INTERRUPTED_MESSAGE } from './queue.ts';
import { StoreJobQueue } from './store-queue.ts';

export class LocalJobQueue extends StoreJobQueue {
  /** Nobody else could take a job up: one running at shutdown fails (a restart would fail it anyway). */
  readonly requeuesAtShutdown = false;

  /** Every job left running (or queued) by this node's previous life reads failed, with the reason. */
  async recover(): Promise<void> {
    await this.d.queue.failInterrupted(INTERRUPTED_MESSAGE, this.d.clock.nowMs());
  }

  open(): void {}

  close(): void {}
}
