// The History encoding worker (bars-worker.ts runs it): takes a History answer's bar columns (one
// buffer, six columns laid out as data/bar-columns.ts `viewBars` lays them, transferred) and answers
// the bars' bytes (bars-worker-encode.ts `encodeBarItems`, transferred), off the server's event loop.

import { viewBars } from '../../data/bar-columns.ts';
import { encodeBarItems } from './bars-worker-encode.ts';

declare const self: Worker;

/** One answer to encode: `length` bars in `columns`, each column `length` long. */
export interface BarsJob {
  id: number;
  ticksPerPoint: number;
  msgpack: boolean;
  columns: ArrayBuffer;
  length: number;
}

/** The bars' bytes (`bytes`), or why they could not be encoded (`error`: the caller encodes them itself). */
export interface BarsAnswer {
  id: number;
  bytes?: Uint8Array;
  error?: string;
}

self.addEventListener('message', (event: MessageEvent<BarsJob>) => {
  const { id, ticksPerPoint, msgpack, columns, length } = event.data;
  let answer: BarsAnswer;
  try {
    answer = { id, bytes: encodeBarItems(ticksPerPoint, viewBars(columns, 0, length, length), msgpack) };
  } catch (e) {
    answer = { id, error: String((e as Error)?.message ?? e) };
  }
  self.postMessage(answer, answer.bytes ? [answer.bytes.buffer as ArrayBuffer] : []);
});
