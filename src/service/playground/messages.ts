// The runner protocol from the server's side: the frames it sends a child (bar batches, stored bars
// asked for) and the checks on everything a child sends (actions, logs, texts), which is untrusted:
// a frame is read as `Decoded` (src/lib/json.ts, `frameOf`), then each field is checked before use.
// Anything out of shape ends the run as a protocol violation (RunEnd).

import type { ChildExit, Incoming } from '../../../runner/host/child.ts';
import { rawBytes } from '../../../runner/protocol.ts';
import type { BarColumns } from '../../data/bar-columns.ts';
import { limits } from '../../config.ts';
import { coreLimits } from '../../core-limits.ts';
import { NO_EVENT_S } from '../../engine/types.ts';
import { bucketCanTrigger } from '../../engine/walker.ts';
import { assert } from '../../lib/assert.ts';
import { type Decoded, type DecodedObject, parseDecoded } from '../../lib/json.ts';
import type { DayBatch } from './feed.ts';
import type { LedgerAction, LegAction } from './ledger.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { RunSpan } from './feed.ts';
import type { LegSlice } from './legs.ts';

export type RunStatus = 'running' | 'completed' | 'failed' | 'stopped' | 'timeout';

/** How a run ended early, with the message its record keeps. */
export class RunEnd extends Error {
  constructor(readonly status: RunStatus, message: string) {
    super(message);
  }
}

/** Bars [j0, j1) of a day batch sent as one batch (run bars from `base`), with the other contracts' bars over the same clock span. */
export interface Slice {
  b: DayBatch;
  j0: number;
  j1: number;
  base: number;
  seq: number;
  legs: LegSlice[];
}

/** What the harness is told of an instrument of the run (`meta`; each of `meta.legs` for the others). */
function instrumentMeta(inst: Instrument) {
  return { symbol: inst.symbol, ticks_per_unit: inst.ticksPerPoint, tick_size: inst.tickSize, tick_value: inst.tickValueCents / 100 };
}

/** The `run` message: the code, params and meta of the run; `legs` its other instruments (none: exactly the one-instrument message). */
export function runMessage(
  x: { code: string; params: Record<string, number | string | boolean>; startingBalanceCents: number; slippageTicks: number }, span: RunSpan,
  legs: readonly Instrument[],
): object {
  const inst = span.inst;
  return {
    t: 'run', code: x.code, params: x.params, symbol: inst.symbol, startingBalanceCents: x.startingBalanceCents, slippageTicks: x.slippageTicks,
    meta: {
      ...instrumentMeta(inst),
      timeframe: span.tf.text,
      context_timeframes: span.ctx.map((tf) => tf.text),
      starting_balance: x.startingBalanceCents / 100,
      start: span.startS,
      end: span.endS,
      ...(legs.length === 0 ? {} : { legs: legs.map(instrumentMeta) }),
    },
    ...(legs.length === 0 ? {} : { legs: legs.map((l) => l.symbol) }),
  };
}

/**
 * The stored bars of leg `m.leg` walked at run bar `m.k` of slice `f` (from the clock before it to its
 * end), answering the child's `need`. Each leg asks for a bar once, in order (`legNeedFrom`).
 */
export function legFineAnswer(f: Slice, m: DecodedObject, legNeedFrom: number[], legCount: number): object {
  const { leg, k } = m;
  if (!isInt(leg) || leg < 1 || leg > legCount || !isInt(k) || k < legNeedFrom[leg - 1] || k >= f.base + (f.j1 - f.j0)) throw protocol('bad need');
  legNeedFrom[leg - 1] = k + 1;
  const j = k - f.base + f.j0;
  const s = f.legs[leg - 1];
  return legFineMessage(s, k, j === f.j0 ? s.fromS : f.b.runEnd[j - 1], f.b.runEnd[j]);
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

/**
 * Checks the child's actions: known operations, values in range, bar indexes in the batch, in order.
 * With several instruments (`contracts` > 1) an action on another contract comes as
 * [k, 'leg', i, …the action without its k] (i from 1 to contracts − 1).
 */
export function parseActions(v: Decoded, kFrom: number, kTo: number, contracts = 1): LegAction[] {
  if (!Array.isArray(v) || v.length > limits.playgroundActionsPerBatchMax) throw protocol('bad actions');
  const out: LegAction[] = [];
  let lastK = kFrom;
  for (const a of v) {
    if (!Array.isArray(a) || !isInt(a[0]) || a[0] < lastK || a[0] >= kTo) throw protocol('bad action');
    lastK = a[0];
    if (a[1] !== 'leg') {
      out.push(parseAction(a));
      continue;
    }
    const leg = a[2];
    if (!isInt(leg) || leg < 1 || leg >= contracts) throw protocol('bad action');
    out.push({ ...parseAction([a[0], ...a.slice(3)]), leg });
  }
  return out;
}

/** One action, [k, op, …], its k already checked. */
function parseAction(a: readonly Decoded[]): LedgerAction {
  const k = a[0] as number;
  if (a[1] === 'place' && (a.length === 9 || a.length === 11)) return placeAction(k, a);
  if (a[1] === 'modify' && a.length === 7) return modifyAction(k, a);
  if (a[1] === 'cancel' && a.length === 3 && isInt(a[2])) return { k, op: 'cancel', id: a[2] };
  if (a[1] === 'close' && a.length === 3 && (a[2] === null || isSize(a[2]))) return { k, op: 'close', size: a[2] };
  throw protocol('bad action');
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

/** A leg's run bars of a slice (several instruments): [time, end, open, high, low, close, volume], prices in its ticks. */
function legColumns(s: LegSlice): Uint8Array[] {
  const r = s.run;
  const n = r.length;
  return [r.time, s.runEnd, r.open, r.high, r.low, r.close, r.volume].map((c) => rawBytes(c.subarray(0, n)));
}

export function batchMessage(seq: number, base: number, b: DayBatch, j0: number, j1: number, legs: readonly LegSlice[] = []): object {
  // Context bars of the day go with its first slice; the harness shows each once it has closed.
  const ctx = j0 !== 0 ? [] : b.ctx.map((c) => {
    const n = c.bars.length;
    return [c.tf.text, rawBytes(c.bars.time.subarray(0, n)), rawBytes(c.end), rawBytes(c.bars.open.subarray(0, n)), rawBytes(c.bars.high.subarray(0, n)),
      rawBytes(c.bars.low.subarray(0, n)), rawBytes(c.bars.close.subarray(0, n)), rawBytes(c.bars.volume.subarray(0, n))];
  });
  const batch = { t: 'batch', seq, base, ...cols(b, j0, j1), ctx };
  return legs.length === 0 ? batch : { ...batch, legs: legs.map(legColumns) };
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
  return packFine(ks, spans, total, b.stored);
}

/** A leg's stored bars in [fromS, toS) (its window at run bar k), as a `fine` answer for k. */
export function legFineMessage(s: LegSlice, k: number, fromS: number, toS: number): object {
  const [a, z] = s.storedRange(fromS, toS);
  return packFine([k], [[a, z]], z - a, s.stored);
}

function packFine(ks: readonly number[], spans: readonly [number, number][], total: number, s: BarColumns): object {
  const offsets = new Int32Array(ks.length + 1);
  const time = new Uint32Array(total);
  const open = new Int32Array(total);
  const high = new Int32Array(total);
  const low = new Int32Array(total);
  const close = new Int32Array(total);
  const volume = new Uint32Array(total);
  let at = 0;
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
