// Building synthetic days' rollups off the main thread. A cold Replay/step of 100 × 1 d bars needs
// the rollups of ~140 days nobody has read yet; each is a generated day of 1 s bars (~2 ms) rolled
// up (~0.4 ms). Done on the main thread, that held the server for 0.7-0.9 s per step for the first
// minute after a start (defect 12). Here a small pool of Workers (rollup-worker.ts) does it and the
// main thread only keeps the results (BarSource.prepareRollups, the start-up warm-up).
//
// - Requests for the same instrument-day share one build; requests are served in arrival order.
// - A worker holds the process open only while it has work (ref while busy, unref when idle).
// - Bounded: at most `workersMax` workers and coreLimits.rollupBuildsQueuedMax waiting requests (beyond it a request is
//   refused and the caller builds on the main thread, as without a builder).
// - A worker that fails is replaced; its request is refused (the caller builds it itself).

import { coreLimits } from '../core-limits.ts';
import type { Instrument } from '../domain/instrument.ts';
import { type BarColumns, unpackBars } from './bar-columns.ts';


/** The instrument travels whole (plain data): the generator reads its session and parameters. */
export interface RollupRequest {
  id: number;
  inst: Instrument;
  day: number;
}

export type RollupReply =
  | { id: number; rollups: { widthS: number; packed: Uint8Array | null }[] }
  | { id: number; error: string };

/** One rollup built off-thread: null when the day has no exact rollup at that width (see rollup.ts). */
export interface BuiltRollup {
  widthS: number;
  bars: BarColumns | null;
}

interface Job {
  id: number;
  inst: Instrument;
  day: number;
  resolve: (r: BuiltRollup[]) => void;
  reject: (e: Error) => void;
}

export class RollupBuilder {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private readonly shared = new Map<string, Promise<BuiltRollup[]>>();
  private nextId = 1;
  private closed = false;
  /** Instrument-days built so far (tests and benches read it). */
  built = 0;

  constructor(private readonly workersMax: number) {}

  /** The rollups of a synthetic day at every width the instrument keeps, built in a worker. */
  build(inst: Instrument, day: number): Promise<BuiltRollup[]> {
    const key = `${inst.symbol}:${day}`;
    const pending = this.shared.get(key);
    if (pending) return pending;
    if (this.closed) return Promise.reject(new Error('rollup builder closed'));
    if (this.queue.length >= coreLimits.rollupBuildsQueuedMax) return Promise.reject(new Error('rollup builder queue full'));
    const p = new Promise<BuiltRollup[]>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, inst, day, resolve, reject });
    });
    const settled = () => this.shared.delete(key);
    p.then(settled, settled);
    this.shared.set(key, p);
    this.dispatch();
    return p;
  }

  /** Ends the workers; waiting and running requests are refused. */
  close(): void {
    this.closed = true;
    const error = new Error('rollup builder closed');
    for (const job of this.queue.splice(0)) job.reject(error);
    for (const [worker, job] of this.busy) {
      job.reject(error);
      worker.terminate();
    }
    this.busy.clear();
    for (const worker of this.idle.splice(0)) worker.terminate();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.workersMax ? this.spawn() : null);
      if (worker === null) return;
      const job = this.queue.shift() as Job;
      try {
        worker.postMessage({ id: job.id, inst: job.inst, day: job.day } satisfies RollupRequest);
      } catch (e) {
        // Not cloneable (never for catalog instruments): refused, the caller builds it itself.
        this.idle.push(worker);
        job.reject(e instanceof Error ? e : new Error(String(e)));
        continue;
      }
      this.busy.set(worker, job);
      worker.ref();
    }
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./rollup-worker.ts', import.meta.url).href);
    worker.onmessage = (event: MessageEvent<RollupReply>) => this.settle(worker, event.data);
    worker.onerror = (event: ErrorEvent) => this.fail(worker, new Error(`rollup worker failed: ${event.message}`));
    return worker;
  }

  private settle(worker: Worker, reply: RollupReply): void {
    const job = this.busy.get(worker);
    if (job === undefined || job.id !== reply.id) return;
    this.busy.delete(worker);
    worker.unref();
    this.idle.push(worker);
    if ('error' in reply) job.reject(new Error(reply.error));
    else {
      this.built++;
      job.resolve(reply.rollups.map((r) => ({ widthS: r.widthS, bars: r.packed && unpackBars(r.packed) })));
    }
    this.dispatch();
  }

  private fail(worker: Worker, error: Error): void {
    this.busy.get(worker)?.reject(error);
    this.busy.delete(worker);
    worker.terminate();
    if (!this.closed) this.dispatch();
  }
}
