// Bars on the wire: `{t, o, h, l, c, v}` with `t` ISO 8601 UTC and prices as exact decimals.
// JSON is written by hand (no per-bar object, no JSON.stringify per value) because a 20,000-bar
// answer is the heaviest response we send; msgpack gets plain objects (standard maps, no msgpackr
// record extension, so any msgpack library decodes it). History's answers are encoded in slices
// (`barsResponseSliced`, issue 32): the same bytes, with the event loop free between slices.

import type { BarColumns } from '../../data/bar-columns.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { slicedWork } from '../../service/history-scan.ts';
import { barObjects, barsJsonItems, packed, packedItems, SLICE_BARS } from './bars-worker-encode.ts';

export const MSGPACK = 'application/x-msgpack';

export function wantsMsgpack(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes(MSGPACK);
}

/** `[{"t":…},…]` for the bars, as a JSON text fragment (a step's 100 bars: no price cache, see below). */
export function barsJson(inst: Instrument, b: BarColumns): string {
  const k = inst.ticksPerPoint;
  const parts = new Array<string>(b.length);
  for (let i = 0; i < b.length; i++) {
    parts[i] =
      `{"t":"${isoFromEpochS(b.time[i])}","o":${b.open[i] / k},"h":${b.high[i] / k},"l":${b.low[i] / k},"c":${b.close[i] / k},"v":${b.volume[i]}}`;
  }
  return `[${parts.join(',')}]`;
}

export function barsObjects(inst: Instrument, b: BarColumns, from = 0, to = b.length) {
  return barObjects(inst.ticksPerPoint, b, from, to);
}

/** Bars of several instruments keyed by contract ID (a session over several: `barsByContract`). */
export type BarsByKey = readonly { key: string; inst: Instrument; bars: BarColumns }[] | null;

/**
 * A success envelope holding `bars` (plus other fields, and `barsByContract` when `byKey` is
 * given), as JSON or msgpack per the Accept header; with `json`, the bars' JSON encoded already
 * (barsResponseSliced).
 */
export function barsResponse(request: Request, inst: Instrument, bars: BarColumns, fields: Record<string, unknown> = {}, byKey: BarsByKey = null, json?: string): Response {
  if (json === undefined && wantsMsgpack(request)) {
    const extra = byKey ? { barsByContract: Object.fromEntries(byKey.map((b) => [b.key, barsObjects(b.inst, b.bars)])) } : {};
    const body = packed({ ...fields, bars: barsObjects(inst, bars), ...extra, success: true, errorCode: 0, errorMessage: null });
    return new Response(body, { headers: { 'content-type': MSGPACK } });
  }
  const [head, tail] = jsonEnvelope(fields, byKey);
  return new Response(`${head}${json ?? barsJson(inst, bars)}${tail}`, { headers: { 'content-type': JSON_TYPE } });
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The success envelope's JSON before the bars (through `"bars":`) and after them. */
export function jsonEnvelope(fields: Record<string, unknown>, byKey: BarsByKey = null): [string, string] {
  let head = '{';
  for (const [k, v] of Object.entries(fields)) head += `${JSON.stringify(k)}:${JSON.stringify(v)},`;
  const extra = byKey ? `"barsByContract":{${byKey.map((b) => `${JSON.stringify(b.key)}:${barsJson(b.inst, b.bars)}`).join(',')}},` : '';
  return [`${head}"bars":`, `,${extra}"success":true,"errorCode":0,"errorMessage":null}`];
}

/**
 * `barsResponse`'s answer, byte for byte, encoded a slice of bars at a time: once a slice has taken
 * `sliceMs`, the event loop is yielded to (service/history-scan.ts `slicedWork`: a few ms of sliced work a loop turn, pending I/O first). For History's 20,000 bars,
 * whose encoding in one go held the loop for about 10 ms.
 */
export async function barsResponseSliced(request: Request, inst: Instrument, bars: BarColumns, sliceMs: number, fields: Record<string, unknown> = {}): Promise<Response> {
  if (bars.length <= SLICE_BARS) return barsResponse(request, inst, bars, fields);
  const msgpack = wantsMsgpack(request);
  const pieces: (string | Uint8Array)[] = [];
  const prices = new Map<number, string>();
  let sliceStartMs = performance.now();
  for (let from = 0; from < bars.length; from += SLICE_BARS) {
    const to = Math.min(bars.length, from + SLICE_BARS);
    pieces.push(msgpack ? packedItems(barsObjects(inst, bars, from, to)) : barsJsonItems(inst.ticksPerPoint, bars, from, to, prices));
    if (to < bars.length && performance.now() - sliceStartMs >= sliceMs) {
      await slicedWork.next();
      sliceStartMs = performance.now();
    }
  }
  if (!msgpack) return barsResponse(request, inst, bars, fields, null, `[${(pieces as string[]).join(',')}]`);
  return new Response(Buffer.concat(packedEnvelope(fields, bars.length, pieces as Uint8Array[])), { headers: { 'content-type': MSGPACK } });
}

/** The envelope `barsResponse` packs, around bars packed in pieces: a map's keys and values in order, as parts. */
export function packedEnvelope(fields: Record<string, unknown>, count: number, items: readonly Uint8Array[]): Uint8Array[] {
  const envelope: Record<string, unknown> = { ...fields, bars: null, success: true, errorCode: 0, errorMessage: null };
  const keys = Object.keys(envelope);
  const parts: Uint8Array[] = [mapHeader(keys.length)];
  for (const key of keys) {
    parts.push(packed(key));
    if (key === 'bars') parts.push(arrayHeader(count), ...items);
    else parts.push(packed(envelope[key]));
  }
  return parts;
}

/** The msgpack envelope `barsResponse` packs for `count` bars, before the bars' items and after them. */
export function packedAround(fields: Record<string, unknown>, count: number): [Uint8Array, Uint8Array] {
  const mark = new Uint8Array(0);
  const parts = packedEnvelope(fields, count, [mark]);
  const at = parts.indexOf(mark);
  return [Buffer.concat(parts.slice(0, at)), Buffer.concat(parts.slice(at + 1))];
}

/** msgpackr writes an object's map header as map 16 whatever its size (map 32 past it). */
function mapHeader(n: number): Uint8Array {
  return n < 0x10000 ? Uint8Array.of(0xde, n >> 8, n & 0xff) : Uint8Array.of(0xdf, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}

function arrayHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x90 | n);
  return n < 0x10000 ? Uint8Array.of(0xdc, n >> 8, n & 0xff) : Uint8Array.of(0xdd, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}
