// Bars as struct-of-arrays typed columns. Every layer that touches many bars (store, generator,
// aggregation, matching) speaks this shape: no per-bar objects, no JSON, no Map in a hot loop.
//
// Units: `time` is the bar's open time in epoch seconds (UTC); prices are integer ticks of the
// instrument; `volume` is contracts. 24 bytes per bar.

export interface BarColumns {
  /** Number of valid bars; the arrays may be longer (spare capacity). */
  length: number;
  time: Uint32Array;
  open: Int32Array;
  high: Int32Array;
  low: Int32Array;
  close: Int32Array;
  volume: Uint32Array;
}

export const BAR_BYTES = 24;

export function allocBars(capacity: number): BarColumns {
  // One buffer for all six columns keeps a chunk contiguous, so it can be written as one BLOB.
  const buf = new ArrayBuffer(capacity * BAR_BYTES);
  return viewBars(buf, 0, capacity, 0);
}

/**
 * Views six columns laid out one after the other in `buf` starting at `byteOffset`
 * (time, open, high, low, close, volume; `capacity` elements each). No copy.
 */
export function viewBars(buf: ArrayBufferLike, byteOffset: number, capacity: number, length: number): BarColumns {
  const n = capacity * 4;
  return {
    length,
    time: new Uint32Array(buf, byteOffset, capacity),
    open: new Int32Array(buf, byteOffset + n, capacity),
    high: new Int32Array(buf, byteOffset + 2 * n, capacity),
    low: new Int32Array(buf, byteOffset + 3 * n, capacity),
    close: new Int32Array(buf, byteOffset + 4 * n, capacity),
    volume: new Uint32Array(buf, byteOffset + 5 * n, capacity),
  };
}

export const EMPTY_BARS: BarColumns = Object.freeze(allocBars(0)) as BarColumns;

/** Packs the first `length` bars into one contiguous byte array (the chunk BLOB format). */
export function packBars(b: BarColumns): Uint8Array {
  const n = b.length;
  const out = allocBars(n);
  appendBars(out, b);
  return new Uint8Array(out.time.buffer);
}

/** Reads a chunk BLOB back into columns. Copies once into an aligned buffer when needed. */
export function unpackBars(bytes: Uint8Array): BarColumns {
  const n = bytes.byteLength / BAR_BYTES;
  if (!Number.isInteger(n)) throw new Error(`bar chunk of ${bytes.byteLength} bytes is not a multiple of ${BAR_BYTES}`);
  if (bytes.byteOffset % 4 === 0) return viewBars(bytes.buffer, bytes.byteOffset, n, n);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return viewBars(copy.buffer, 0, n, n);
}

/** The first `length` bars in a new buffer of exactly that size. */
export function copyBars(b: BarColumns): BarColumns {
  return unpackBars(packBars(b));
}

/** The first `length` bars newest first, in a new buffer (`b` is left as it is: it may be cached). */
export function reversedBars(b: BarColumns): BarColumns {
  const out = copyBars(b);
  out.time.reverse();
  out.open.reverse();
  out.high.reverse();
  out.low.reverse();
  out.close.reverse();
  out.volume.reverse();
  return out;
}

/** The bars of `parts` one after the other, in a new buffer. */
export function concatBars(parts: readonly BarColumns[]): BarColumns {
  const n = parts.reduce((sum, p) => sum + p.length, 0);
  const out = allocBars(n);
  for (const p of parts) appendBars(out, p);
  return out;
}

/** Appends bars [from, to) of `src` to `out`, which has the room for them. */
export function appendBars(out: BarColumns, src: BarColumns, from = 0, to = src.length): void {
  const at = out.length;
  out.time.set(src.time.subarray(from, to), at);
  out.open.set(src.open.subarray(from, to), at);
  out.high.set(src.high.subarray(from, to), at);
  out.low.set(src.low.subarray(from, to), at);
  out.close.set(src.close.subarray(from, to), at);
  out.volume.set(src.volume.subarray(from, to), at);
  out.length = at + (to - from);
}

/** Copies bar `i` of `src` to index `j` of `out` (one bar: no views made). */
export function copyBar(src: BarColumns, i: number, out: BarColumns, j: number): void {
  out.time[j] = src.time[i];
  out.open[j] = src.open[i];
  out.high[j] = src.high[i];
  out.low[j] = src.low[i];
  out.close[j] = src.close[i];
  out.volume[j] = src.volume[i];
}

/** Bars [from, to) as views sharing memory with `b`. */
export function sliceBars(b: BarColumns, from: number, to: number): BarColumns {
  return {
    length: to - from,
    time: b.time.subarray(from, to),
    open: b.open.subarray(from, to),
    high: b.high.subarray(from, to),
    low: b.low.subarray(from, to),
    close: b.close.subarray(from, to),
    volume: b.volume.subarray(from, to),
  };
}

/** First index i in [from, end) with time[i] >= t (`end` if none). Binary search. */
export function lowerBound(time: Uint32Array, end: number, t: number, from = 0): number {
  let lo = from;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
