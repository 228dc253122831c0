// History's large answers encoded off the event loop (issue 32, docs/decisions.md "History off the
// loop"): a small pool of workers (`limits.barsWorkers`, bars-worker-thread.ts) turns the bar columns
// of an answer over `SLICE_BARS` bars into the answer's body, the same bytes `barsResponseSliced` writes;
// the main thread only copies the columns in (~0.5 MB for 20,000 bars) and builds the envelope's parts
// before and after the bars, and the body comes back as one buffer the response takes as it is.
// Whenever the pool cannot answer (a worker died or failed, every worker already holds
// `limits.barsWorkerQueuedMax` answers, or none came within `limits.barsWorkerAnswerMsMax`) the answer
// is encoded by the sliced path instead, so none is lost; a dead or silent worker is replaced on the
// next answer. Workers run at a lower CPU priority (bars-worker-thread.ts), are unref'd (they never
// keep a process alive), and `closeBarsWorkers` ends them (the server's shutdown, src/main.ts).

import { allocBars, type BarColumns } from '../../data/bar-columns.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { limits } from '../../config.ts';
import { barsResponseSliced, JSON_TYPE, jsonEnvelope, MSGPACK, packedAround, wantsMsgpack } from './bars.ts';
import { type Around, SLICE_BARS } from './bars-worker-encode.ts';
import type { BarsAnswer, BarsJob } from './bars-worker-thread.ts';

interface Slot {
  worker: Worker;
  pending: Map<number, (bytes: Uint8Array | null) => void>;
}

/** What the pool did since the process started (tests and benches read it). */
export interface BarsWorkerStats {
  encoded: number;
  fallbacks: number;
  started: number;
  died: number;
}

export class BarsWorkerPool {
  private slots: Slot[] = [];
  private nextId = 1;
  readonly stats: BarsWorkerStats = { encoded: 0, fallbacks: 0, started: 0, died: 0 };

  constructor(
    private readonly size: number,
    private readonly queuedMax: number,
    private readonly answerMsMax: number,
  ) {}

  /** The workers running now. */
  workers(): readonly Worker[] {
    return this.slots.map((s) => s.worker);
  }

  /** The answer's body from a worker (the bars inside `around`), or null when the caller must encode it itself. */
  encode(ticksPerPoint: number, bars: BarColumns, around: Around): Promise<Uint8Array | null> {
    const slot = this.slotFor();
    if (slot === null) return this.fellBack();
    const id = this.nextId++;
    // A copy of exactly the answer's bars: the columns may be a cache's, never hand their buffer over.
    const copy = allocBars(bars.length);
    for (const k of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) copy[k].set(bars[k].subarray(0, bars.length));
    const job: BarsJob = { id, ticksPerPoint, around, columns: copy.time.buffer as ArrayBuffer, length: bars.length };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // Silent this long: the answer goes the sliced way and the worker is replaced.
        if (slot.pending.has(id)) this.retire(slot);
      }, this.answerMsMax);
      slot.pending.set(id, (bytes) => {
        clearTimeout(timer);
        slot.pending.delete(id);
        if (bytes === null) this.stats.fallbacks++;
        else this.stats.encoded++;
        resolve(bytes);
      });
      slot.worker.postMessage(job, [job.columns]);
    });
  }

  /** Ends every worker; answers they held go the sliced way. A later `encode` starts new ones. */
  close(): void {
    for (const slot of [...this.slots]) this.retire(slot);
  }

  private fellBack(): Promise<null> {
    this.stats.fallbacks++;
    return Promise.resolve(null);
  }

  /** The least busy worker (starting one while the pool is short), or null when all are full. */
  private slotFor(): Slot | null {
    if (this.slots.length < this.size) {
      try {
        this.slots.push(this.start());
      } catch {
        return null;
      }
    }
    let best: Slot | null = null;
    for (const s of this.slots) if (s.pending.size < this.queuedMax && (best === null || s.pending.size < best.pending.size)) best = s;
    return best;
  }

  private start(): Slot {
    const worker = new Worker(new URL('./bars-worker-thread.ts', import.meta.url).href);
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    this.stats.started++;
    worker.onmessage = (event: MessageEvent<BarsAnswer>) => slot.pending.get(event.data.id)?.(event.data.bytes ?? null);
    // A worker that fails outside a job, or ends unasked (killed, out of memory): its answers go the sliced way.
    worker.onerror = () => this.retire(slot);
    worker.addEventListener('close', () => {
      if (this.slots.includes(slot)) this.stats.died++;
      this.retire(slot);
    });
    return slot;
  }

  /** Drops the worker from the pool, ends it, and sends the answers it held the sliced way. */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    slot.worker.terminate();
    for (const done of [...slot.pending.values()]) done(null);
  }
}

/** The process's pool: History answers of every app in the process share its workers. */
export const barsWorkers = new BarsWorkerPool(limits.barsWorkers, limits.barsWorkerQueuedMax, limits.barsWorkerAnswerMsMax);

/** Ends the pool's workers (the server's shutdown). */
export function closeBarsWorkers(): void {
  barsWorkers.close();
}

/**
 * `barsResponseSliced`'s answer, byte for byte: over `SLICE_BARS` bars the bars are encoded by the
 * pool's worker, the main thread building only the envelope around them; otherwise, or when the pool
 * cannot answer, by the sliced path.
 */
export async function barsResponseOffLoop(request: Request, inst: Instrument, bars: BarColumns, sliceMs: number, fields: Record<string, unknown> = {}, pool = barsWorkers): Promise<Response> {
  if (bars.length <= SLICE_BARS) return barsResponseSliced(request, inst, bars, sliceMs, fields);
  const msgpack = wantsMsgpack(request);
  const body = await pool.encode(inst.ticksPerPoint, bars, envelopeAround(msgpack, fields, bars.length));
  if (body === null) return barsResponseSliced(request, inst, bars, sliceMs, fields);
  return new Response(body, { headers: { 'content-type': msgpack ? MSGPACK : JSON_TYPE } });
}

/** The success envelope's parts before and after `count` bars, in the answer's encoding (the worker writes the bars between them). */
export function envelopeAround(msgpack: boolean, fields: Record<string, unknown>, count: number): Around {
  return msgpack ? packedAround(fields, count) : jsonEnvelope(fields);
}
