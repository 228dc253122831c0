// The History encoding worker (bars-worker.ts runs it): takes a History answer's bar columns (one
// buffer, six columns laid out as data/bar-columns.ts `viewBars` lays them, transferred) and the
// envelope's parts before and after the bars, and answers the whole body (bars-worker-encode.ts
// `encodeAnswer`, transferred), off the server's event loop.

import { dlopen, FFIType } from 'bun:ffi';
import { coreLimits } from '../../core-limits.ts';
import { viewBars } from '../../data/bar-columns.ts';
import { type Around, encodeAnswer } from './bars-worker-encode.ts';

declare const self: Worker;

/**
 * Lowers this thread's CPU priority (nice `barsWorkerNice`; Linux keeps a nice value per thread, and
 * `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's), so that on a busy machine the event
 * loop and the server's clients are scheduled before the encoding, as a database's background
 * compaction threads are. Where libc cannot be opened the worker runs at the process's priority.
 */
function lowerPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    const libc = dlopen('libc.so.6', { setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 } });
    libc.symbols.setpriority(0, 0, coreLimits.barsWorkerNice);
    libc.close();
  } catch {
    // another libc: the default priority
  }
}

lowerPriority();

/** One answer to encode: `length` bars in `columns`, each column `length` long, inside the envelope's two parts. */
export interface BarsJob {
  id: number;
  ticksPerPoint: number;
  around: Around;
  columns: ArrayBuffer;
  length: number;
}

/** The answer's body (`bytes`), or why it could not be encoded (`error`: the caller encodes it itself). */
export interface BarsAnswer {
  id: number;
  bytes?: Uint8Array;
  error?: string;
}

self.addEventListener('message', (event: MessageEvent<BarsJob>) => {
  const { id, ticksPerPoint, around, columns, length } = event.data;
  let answer: BarsAnswer;
  try {
    answer = { id, bytes: encodeAnswer(ticksPerPoint, viewBars(columns, 0, length, length), around) };
  } catch (e) {
    answer = { id, error: String((e as Error)?.message ?? e) };
  }
  self.postMessage(answer, answer.bytes ? [answer.bytes.buffer as ArrayBuffer] : []);
});
