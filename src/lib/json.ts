// Data from outside the process, typed as what it can be. `Json` is what JSON.parse makes of a request
// body: a field a route hands over as sent (a `keep` field rule) is one, and a service narrows it
// itself. `Decoded` is what a runner child's frame holds once checked (`parseDecoded`): JSON's shapes,
// absent values, and INVALID wherever msgpack carried something JSON cannot (a binary blob, a date,
// a bigint) or nesting went deeper than anything reads, so each check refuses it as it would the
// original.

import { INVALID, type Invalid } from './invalid.ts';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export type Decoded = undefined | null | boolean | number | string | Invalid | Decoded[] | DecodedObject;
export interface DecodedObject {
  [key: string]: Decoded;
}

/**
 * A decoded value (untrusted) checked into `Decoded`: kept as it is when it holds only JSON's
 * shapes and absent values within `depthMax` levels of nesting (no copy), else copied with INVALID
 * in place of each part that does not. The one place such a value is `unknown`.
 */
export function parseDecoded(v: unknown, depthMax: number): Decoded {
  return fits(v, depthMax) ? (v as Decoded) : copied(v, depthMax);
}

function fits(v: unknown, depth: number): boolean {
  if (v === undefined || v === null) return true;
  const t = typeof v;
  if (t === 'boolean' || t === 'number' || t === 'string') return true;
  if (depth === 0 || !isContainer(v)) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (!fits(x, depth - 1)) return false;
  return true;
}

function copied(v: unknown, depth: number): Decoded {
  if (v === undefined || v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (depth === 0 || !isContainer(v)) return INVALID;
  if (Array.isArray(v)) return v.map((x) => copied(x, depth - 1));
  const out: DecodedObject = {};
  for (const [k, x] of Object.entries(v)) out[k] = copied(x, depth - 1);
  return out;
}

/** An array, or an object made as a literal (no class instance: no Date, Map, typed array). */
function isContainer(v: unknown): v is unknown[] | Record<string, unknown> {
  if (Array.isArray(v)) return true;
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
