// The encoders of History's bars, pure (no config, no clock): shared by the main thread's sliced path
// (bars.ts barsResponseSliced) and the encoding worker (bars-worker-thread.ts), so both write the
// same bytes. JSON is written by hand with a per-answer cache of price texts; msgpack packs plain
// objects (standard maps, no msgpackr record extension) a slice of bars at a time.

import { Packr } from 'msgpackr';
import type { BarColumns } from '../../data/bar-columns.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';

const packr = new Packr({ useRecords: false });

/** Bars encoded between two looks at the clock on the sliced path (about 0.5 ms of JSON). */
export const SLICE_BARS = 1_000;

/** A bar as msgpack and `JSON.stringify` see it: `{t, o, h, l, c, v}`, prices `ticks / ticksPerPoint`. */
export function barObjects(ticksPerPoint: number, b: BarColumns, from = 0, to = b.length) {
  const k = ticksPerPoint;
  const out = new Array(to - from);
  for (let i = from; i < to; i++) {
    out[i - from] = { t: isoFromEpochS(b.time[i]), o: b.open[i] / k, h: b.high[i] / k, l: b.low[i] / k, c: b.close[i] / k, v: b.volume[i] };
  }
  return out;
}

/**
 * The JSON of bars `from` to `to` (excluded), comma-separated, without the brackets, as bars.ts
 * `barsJson` writes them. `prices` keeps each price's text by ticks for the answer being written: 20,000 bars
 * repeat a few thousand price levels, and a lookup costs a fraction of formatting a fractional number.
 */
export function barsJsonItems(ticksPerPoint: number, b: BarColumns, from: number, to: number, prices: Map<number, string>): string {
  const k = ticksPerPoint;
  const price = (ticks: number): string => {
    let text = prices.get(ticks);
    if (text === undefined) prices.set(ticks, (text = `${ticks / k}`));
    return text;
  };
  const parts = new Array<string>(to - from);
  for (let i = from; i < to; i++) {
    parts[i - from] =
      `{"t":"${isoFromEpochS(b.time[i])}","o":${price(b.open[i])},"h":${price(b.high[i])},"l":${price(b.low[i])},"c":${price(b.close[i])},"v":${b.volume[i]}}`;
  }
  return parts.join(',');
}

/** msgpack of the array's items alone: the array as packed, less its header (fixarray, array 16, array 32). */
export function packedItems(items: unknown[]): Uint8Array {
  const packed = packr.pack(items);
  return packed.subarray(items.length < 16 ? 1 : items.length < 0x10000 ? 3 : 5);
}

/** A value packed as `barsResponse` packs it (the envelope's keys and fields). */
export function packed(value: unknown): Uint8Array {
  return packr.pack(value);
}

/** What goes before and after the bars in the answer's body: JSON text, or msgpack bytes. */
export type Around = readonly [string, string] | readonly [Uint8Array, Uint8Array];

/**
 * A whole answer's body as the worker writes it, in a buffer of its own (transferable): the envelope's
 * part before the bars, the bars (JSON `[…]` with one price cache, or msgpack items packed a slice at a
 * time, as the sliced path writes them) and the part after.
 */
export function encodeAnswer(ticksPerPoint: number, b: BarColumns, around: Around): Uint8Array {
  const [before, after] = around;
  if (typeof before === 'string') {
    const prices = new Map<number, string>();
    const parts: string[] = [];
    for (let from = 0; from < b.length; from += SLICE_BARS) parts.push(barsJsonItems(ticksPerPoint, b, from, Math.min(b.length, from + SLICE_BARS), prices));
    return new TextEncoder().encode(`${before}[${parts.join(',')}]${after}`);
  }
  const pieces: Uint8Array[] = [before];
  for (let from = 0; from < b.length; from += SLICE_BARS) pieces.push(packedItems(barObjects(ticksPerPoint, b, from, Math.min(b.length, from + SLICE_BARS))));
  pieces.push(after as Uint8Array);
  // A new buffer of exactly these bytes (never the packer's own, which a transfer would take away).
  return new Uint8Array(Bun.concatArrayBuffers(pieces));
}
