// Bars on the wire: `{t, o, h, l, c, v}` with `t` ISO 8601 UTC and prices as exact decimals.
// JSON is written by hand (no per-bar object, no JSON.stringify per value) because a 20,000-bar
// answer is the heaviest response we send; msgpack gets plain objects (standard maps, no msgpackr
// record extension, so any msgpack library decodes it).

import { Packr } from 'msgpackr';
import type { BarColumns } from '../../data/bar-columns.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';

const packr = new Packr({ useRecords: false });

export const MSGPACK = 'application/x-msgpack';

export function wantsMsgpack(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes(MSGPACK);
}

/** `[{"t":…},…]` for the bars, as a JSON text fragment. */
export function barsJson(inst: Instrument, b: BarColumns): string {
  const k = inst.ticksPerPoint;
  const parts = new Array<string>(b.length);
  for (let i = 0; i < b.length; i++) {
    parts[i] =
      `{"t":"${isoFromEpochS(b.time[i])}","o":${b.open[i] / k},"h":${b.high[i] / k},"l":${b.low[i] / k},"c":${b.close[i] / k},"v":${b.volume[i]}}`;
  }
  return `[${parts.join(',')}]`;
}

export function barsObjects(inst: Instrument, b: BarColumns) {
  const k = inst.ticksPerPoint;
  const out = new Array(b.length);
  for (let i = 0; i < b.length; i++) {
    out[i] = { t: isoFromEpochS(b.time[i]), o: b.open[i] / k, h: b.high[i] / k, l: b.low[i] / k, c: b.close[i] / k, v: b.volume[i] };
  }
  return out;
}

/** Bars of several instruments keyed by contract ID (a session over several: `barsByContract`). */
export type BarsByKey = readonly { key: string; inst: Instrument; bars: BarColumns }[] | null;

/**
 * A success envelope holding `bars` (plus other fields, and `barsByContract` when `byKey` is
 * given), as JSON or msgpack per the Accept header.
 */
export function barsResponse(request: Request, inst: Instrument, bars: BarColumns, fields: Record<string, unknown> = {}, byKey: BarsByKey = null): Response {
  if (wantsMsgpack(request)) {
    const extra = byKey ? { barsByContract: Object.fromEntries(byKey.map((b) => [b.key, barsObjects(b.inst, b.bars)])) } : {};
    const body = packr.pack({ ...fields, bars: barsObjects(inst, bars), ...extra, success: true, errorCode: 0, errorMessage: null });
    return new Response(body, { headers: { 'content-type': MSGPACK } });
  }
  let head = '{';
  for (const [k, v] of Object.entries(fields)) head += `${JSON.stringify(k)}:${JSON.stringify(v)},`;
  const extra = byKey ? `"barsByContract":{${byKey.map((b) => `${JSON.stringify(b.key)}:${barsJson(b.inst, b.bars)}`).join(',')}},` : '';
  const text = `${head}"bars":${barsJson(inst, bars)},${extra}"success":true,"errorCode":0,"errorMessage":null}`;
  return new Response(text, { headers: { 'content-type': 'application/json; charset=utf-8' } });
}
