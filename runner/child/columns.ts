// Bars crossing into the child: a batch's run bars written straight into the harness's Python
// columns (loadBatch), and the stored bars the server sends for run bars that can fill (fineBars).

import type { BarColumns } from '../../src/data/bar-columns.ts';
import { asInt32, asUint32 } from '../protocol.ts';

/**
 * A batch's bars into the harness's column layout (strategy_api.Series): Python allocates the seven
 * columns (`_rd_alloc`) and the values are written straight into their buffers in WebAssembly memory,
 * one pass, no intermediate copy. Prices in units (ticks / k: the same correctly rounded division
 * Python's int / int does) as float64; volume, open time and end time as little-endian int64 (all
 * are unsigned 32-bit values: the high words stay the zeros Python allocated).
 */
export function loadBatch(m: Record<string, unknown>, k: number, alloc: (n: number) => string, heap: { HEAPF64: Float64Array; HEAPU32: Uint32Array }): { end: Uint32Array; close: Int32Array } {
  // Close and end stay with the engine bridge as typed arrays; the other columns are only read here,
  // through DataViews over the frame (no aligned copy).
  const c = asInt32(m.c);
  const e = asUint32(m.e);
  const n = c.length;
  const [o, h, l, v, t] = [m.o, m.h, m.l, m.v, m.time].map((x) => columnView(x, n));
  const at = alloc(n).split(',').map(Number);
  if (n === 0) return { end: e, close: c }; // empty arrays have no buffer to write
  if (at.length !== 7 || at.some((a) => !Number.isSafeInteger(a) || a <= 0 || a % 8 !== 0)) throw new Error('bad column addresses');
  // Read after the allocation: a memory that grew has new views.
  const f = heap.HEAPF64;
  const u = heap.HEAPU32;
  const [po, ph, pl, pc] = at.slice(0, 4).map((a) => a / 8);
  const [pv, pt, pe] = at.slice(4).map((a) => a / 4);
  if ([po, ph, pl, pc].some((p) => (p + n) * 8 > f.byteLength) || [pv, pt, pe].some((p) => (p + 2 * n) * 4 > u.byteLength)) throw new Error('bad column addresses');
  for (let i = 0; i < n; i++) {
    const b = 4 * i;
    f[po + i] = o.getInt32(b, true) / k;
    f[ph + i] = h.getInt32(b, true) / k;
    f[pl + i] = l.getInt32(b, true) / k;
    f[pc + i] = c[i] / k;
    u[pv + 2 * i] = v.getUint32(b, true);
    u[pt + 2 * i] = t.getUint32(b, true);
    u[pe + 2 * i] = e[i];
  }
  return { end: e, close: c };
}

/** A batch column of n 32-bit values, viewed in place. */
function columnView(x: unknown, n: number): DataView {
  if (!(x instanceof Uint8Array) || x.byteLength !== 4 * n) throw new Error('batch columns differ in length');
  return new DataView(x.buffer, x.byteOffset, x.byteLength);
}

export function fineBars(m: Record<string, unknown>): Map<number, BarColumns> {
  const ks = asInt32(m.ks);
  const offsets = asInt32(m.offsets);
  const time = asUint32(m.time);
  const open = asInt32(m.open);
  const high = asInt32(m.high);
  const low = asInt32(m.low);
  const close = asInt32(m.close);
  const volume = asUint32(m.volume);
  const out = new Map<number, BarColumns>();
  for (let j = 0; j < ks.length; j++) {
    const a = offsets[j];
    const b = offsets[j + 1];
    out.set(ks[j], {
      length: b - a,
      time: time.subarray(a, b),
      open: open.subarray(a, b),
      high: high.subarray(a, b),
      low: low.subarray(a, b),
      close: close.subarray(a, b),
      volume: volume.subarray(a, b),
    });
  }
  return out;
}
