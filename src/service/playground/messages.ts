// The runner protocol from the server's side: the frames it sends a child (bar batches, stored bars
// asked for) and the checks on everything a child sends (actions, logs, texts), which is untrusted:
// a frame is read as `Decoded` (src/lib/json.ts, `frameOf`), then each field is checked before use.
// Anything out of shape ends the run as a protocol violation (RunEnd).

import type { ChildExit, Incoming } from '../../../runner/host/child.ts';
import { rawBytes } from '../../../runner/protocol.ts';
import { limits } from '../../config.ts';
import { coreLimits } from '../../core-limits.ts';
import { NO_EVENT_S } from '../../engine/types.ts';
import { bucketCanTrigger } from '../../engine/walker.ts';
import { assert } from '../../lib/assert.ts';
import { type Decoded, type DecodedObject, parseDecoded } from '../../lib/json.ts';
import type { DayBatch } from './feed.ts';
import type { LedgerAction } from './ledger.ts';

export type RunStatus = 'running' | 'completed' | 'failed' | 'stopped' | 'timeout';

/** How a run ended early, with the message its record keeps. */
export class RunEnd extends Error {
  constructor(readonly status: RunStatus, message: string) {
    super(message);
  }
}

export function protocol(what: string): RunEnd {
  return new RunEnd('failed', `The strategy process broke the runner protocol (${what}); the run was stopped`);
}

/** A message of the child's as its fields are read: nesting deeper than any check reads is INVALID. */
export function frameOf(msg: Extract<Incoming, { kind: 'message' }>['msg']): DecodedObject {
  const m = parseDecoded(msg, limits.playgroundFrameDepthMax);
  // The child's reader (runner/host/child.ts) passes on plain maps only.
  assert(typeof m === 'object' && m !== null && !Array.isArray(m), 'a child message that is not a map');
  return m as DecodedObject;
}

export function isInt(v: Decoded): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

function isPrice(v: Decoded): v is number | null {
  return v === null || (isInt(v) && Math.abs(v) <= coreLimits.priceTicksAbsMax);
}

export function optionalText(v: Decoded, what: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw protocol(`bad ${what}`);
  return v.slice(0, limits.playgroundErrorTextCharsMax);
}

export function logLines(v: Decoded): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > limits.playgroundLogLinesPerMessageMax) throw protocol('bad logs');
  return v.map((l) => {
    if (typeof l !== 'string') throw protocol('bad log line');
    return l;
  });
}

/**
 * The bar times of a `log` frame's lines (the open time of the bar the strategy was on; null before
 * the first bar): as many as the lines, each null or a whole epoch second inside the run's span.
 * Absent (frames without times): null for each line.
 */
export function logTimes(v: Decoded, n: number, startS: number, endS: number): (number | null)[] {
  if (v === undefined || v === null) return new Array<null>(n).fill(null);
  if (!Array.isArray(v) || v.length !== n) throw protocol('bad log times');
  return v.map((t) => {
    if (t === null) return null;
    if (!isInt(t) || t < startS || t >= endS) throw protocol('bad log time');
    return t;
  });
}

/** Checks the child's actions: known operations, values in range, bar indexes in the batch, in order. */
export function parseActions(v: Decoded, kFrom: number, kTo: number): LedgerAction[] {
  if (!Array.isArray(v) || v.length > limits.playgroundActionsPerBatchMax) throw protocol('bad actions');
  const out: LedgerAction[] = [];
  let lastK = kFrom;
  for (const a of v) {
    if (!Array.isArray(a) || !isInt(a[0]) || a[0] < lastK || a[0] >= kTo) throw protocol('bad action');
    const k = a[0];
    lastK = k;
    if (a[1] === 'place' && (a.length === 9 || a.length === 11)) out.push(placeAction(k, a));
    else if (a[1] === 'modify' && a.length === 7) out.push(modifyAction(k, a));
    else if (a[1] === 'cancel' && a.length === 3 && isInt(a[2])) {
      out.push({ k, op: 'cancel', id: a[2] });
    } else if (a[1] === 'close' && a.length === 3 && (a[2] === null || isSize(a[2]))) {
      out.push({ k, op: 'close', size: a[2] });
    } else throw protocol('bad action');
  }
  return out;
}

/**
 * [k, 'place', type, side, size, limit, stop, sl, tp, trail, slType]: the strategy API's types 1–5
 * (a trailing stop with its trail). Without the last two (9 long) it is an order of types 1–4 with
 * a plain stop-loss.
 */
function placeAction(k: number, a: readonly Decoded[]): LedgerAction {
  const [, , type, side, size, limit, stop, sl, tp] = a;
  const gateway = a.length === 11;
  const trail = gateway ? a[9] : null;
  const slType = gateway ? a[10] : null;
  const ok = [1, 2, 3, 4, 5].includes(type as number) && (side === 0 || side === 1) && isSize(size)
    && isPrice(limit) && isPrice(stop) && isPrice(sl) && isPrice(tp) && isTrail(trail) && (type === 5) === (trail !== null)
    && (slType === null || slType === 4 || slType === 5);
  if (!ok) throw protocol('bad place action');
  const place = { k, op: 'place' as const, type: type as number, side: side as number, size: size as number, limit, stop, sl, tp };
  return gateway ? { ...place, trail, slType: slType as number | null } : place;
}

/** [k, 'modify', id, size, limit, stop, trail], absent values null. */
function modifyAction(k: number, a: readonly Decoded[]): LedgerAction {
  const [, , id, size, limit, stop, trail] = a;
  if (!isInt(id) || !(size === null || isSize(size)) || !isPrice(limit) || !isPrice(stop) || !isTrail(trail)) throw protocol('bad modify action');
  return { k, op: 'modify', id, size, limit, stop, trail };
}

function isSize(v: Decoded): v is number {
  return isInt(v) && v >= 1 && v <= limits.orderSizeMax;
}

function isTrail(v: Decoded): v is number | null {
  return v === null || (isInt(v) && v >= 1 && v <= coreLimits.trailTicksMax);
}

function cols(b: DayBatch, j0: number, j1: number) {
  const r = b.run;
  return {
    time: rawBytes(r.time.subarray(j0, j1)),
    e: rawBytes(b.runEnd.subarray(j0, j1)),
    o: rawBytes(r.open.subarray(j0, j1)),
    h: rawBytes(r.high.subarray(j0, j1)),
    l: rawBytes(r.low.subarray(j0, j1)),
    c: rawBytes(r.close.subarray(j0, j1)),
    v: rawBytes(r.volume.subarray(j0, j1)),
  };
}

export function batchMessage(seq: number, base: number, b: DayBatch, j0: number, j1: number): object {
  // Context bars of the day go with its first slice; the harness shows each once it has closed.
  const ctx = j0 !== 0 ? [] : b.ctx.map((c) => {
    const n = c.bars.length;
    return [c.tf.text, rawBytes(c.bars.time.subarray(0, n)), rawBytes(c.end), rawBytes(c.bars.open.subarray(0, n)), rawBytes(c.bars.high.subarray(0, n)),
      rawBytes(c.bars.low.subarray(0, n)), rawBytes(c.bars.close.subarray(0, n)), rawBytes(c.bars.volume.subarray(0, n))];
  });
  return { t: 'batch', seq, base, ...cols(b, j0, j1), ctx };
}

/**
 * Stored bars of run bar j, plus those of later run bars in [j, j1) whose range reaches the
 * child's current triggers (it will ask for them next unless a fill moves the triggers first).
 * `kOffset` turns a day index into a run-bar number.
 */
export function fineMessage(b: DayBatch, j: number, j1: number, up: number, down: number, kOffset: number): object {
  const ks: number[] = [];
  const spans: [number, number][] = [];
  let total = 0;
  // The bar walker's quiet rule (engine/walker.ts) with the child's triggers; the ledger runs no rule, so no event time.
  const t = { upTicks: up, downTicks: down, eventS: NO_EVENT_S };
  for (let x = j; x < j1 && total < limits.playgroundFineBarsPerAnswerMax; x++) {
    if (x !== j && !bucketCanTrigger(b.run, x, 1, t)) continue;
    const a = b.storedStart(x);
    const z = b.storedStart(x + 1);
    ks.push(x + kOffset);
    spans.push([a, z]);
    total += z - a;
  }
  const offsets = new Int32Array(ks.length + 1);
  const time = new Uint32Array(total);
  const open = new Int32Array(total);
  const high = new Int32Array(total);
  const low = new Int32Array(total);
  const close = new Int32Array(total);
  const volume = new Uint32Array(total);
  let at = 0;
  const s = b.stored;
  spans.forEach(([a, z], i) => {
    offsets[i] = at;
    time.set(s.time.subarray(a, z), at);
    open.set(s.open.subarray(a, z), at);
    high.set(s.high.subarray(a, z), at);
    low.set(s.low.subarray(a, z), at);
    close.set(s.close.subarray(a, z), at);
    volume.set(s.volume.subarray(a, z), at);
    at += z - a;
  });
  offsets[ks.length] = at;
  return {
    t: 'fine', ks: rawBytes(Int32Array.from(ks)), offsets: rawBytes(offsets), time: rawBytes(time), open: rawBytes(open),
    high: rawBytes(high), low: rawBytes(low), close: rawBytes(close), volume: rawBytes(volume),
  };
}

export function exitMessage(exit: ChildExit, stderrTail: string): string {
  if (/out of memory|Out of memory|heap limit|allocation failed/i.test(stderrTail)) {
    return 'The strategy ran out of memory (the sandbox allows 512 MB of JavaScript heap and 1 GiB for Python)';
  }
  if (exit.signal === 'SIGXCPU') return 'The strategy used up its CPU time limit';
  if (/Maximum call stack size exceeded|stack overflow/i.test(stderrTail)) return 'The strategy recursed too deeply (stack overflow); the sandbox stopped it';
  // Deno's own words for a denied permission name only what the strategy itself asked for.
  const denied = /NotCapable: ([^\n]{1,160})/.exec(stderrTail);
  if (denied) return `The sandbox refused an operation and the strategy process stopped (${denied[1].replace(/, run again with.*$/, '')})`;
  if (/Too many open files/i.test(stderrTail)) return 'The strategy exceeded the sandbox limit on open files (threads and workers)';
  return `The strategy process ended unexpectedly (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
}
