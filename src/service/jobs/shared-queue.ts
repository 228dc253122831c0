// The job queue of a node among others on a shared store (PostgreSQL). Every
// `playgroundClaimIntervalMs` each node looks for jobs whose node went silent (no heartbeat within
// `playgroundRunStaleMs`): an optimisation's combination goes back to the queue from the start, up
// to `playgroundCombinationRequeuesMax` times, any other job fails; the listeners hear of each that
// failed, wherever it ran. Then its worker claims what other nodes queued meanwhile. A job this node
// lets go at shutdown goes back to the queue for any node (queue.ts).

import { limits } from '../../config.ts';
import type { RunRef } from '../../store/run-queue.ts';
import { INTERRUPTED_MESSAGE } from './queue.ts';
import { StoreJobQueue } from './store-queue.ts';

export class SharedJobQueue extends StoreJobQueue {
  readonly requeuesAtShutdown = true;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  /**
   * Only silent nodes' jobs: the others' go on. Their listeners are not told here: at start the
   * optimisations advance every running one anyway (service/playground/optimize.ts, `recover`).
   */
  async recover(): Promise<void> {
    await this.failStale();
  }

  open(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setInterval(() => void this.tick(), limits.playgroundClaimIntervalMs);
    this.timer.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    try {
      this.announce(await this.failStale());
      await this.worker?.claim();
    } catch (e) {
      // A store closed under a queue never closed (a test's app): nothing more to do here.
      if (/closed/i.test(String((e as Error)?.message))) this.close();
      else if (!this.closed) this.d.logError('playground run queue', { error: String(e) });
    }
  }

  /** Silent nodes' jobs: combinations queued again (a few times), the others failed; returns those failed. */
  private failStale(): Promise<RunRef[]> {
    const now = this.d.clock.nowMs();
    return this.d.queue.failStale(this.nodeId, INTERRUPTED_MESSAGE, now - limits.playgroundRunStaleMs, now, limits.playgroundCombinationRequeuesMax);
  }
}
