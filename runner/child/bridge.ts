// The engine as Python sees it inside the child: one SessionEngine (the server's own matching code,
// bundled in) behind the small bridge the harness calls (runner/python/harness.py, "Bridge methods").
//
// Every command the strategy gives (place, cancel, close) is also recorded as an action tagged with
// its run-bar index; the child sends the actions with each batch reply and the server replays them
// through its own engine. The server never takes the child's word for a fill, a balance or a P&L.
//
// Numbers cross through memory, not as call arguments or answers. The glue (main.ts, GLUE) owns an
// int64 array in WebAssembly memory and binds its address here once (`bind`). An order's fields are
// written there by Python before it calls `placeShared()`; after every call that can change the engine
// the bridge writes the state, and the fills Python has not yet taken, back into it (`publish`). A
// call crossing from Pyodide to JS, and above all a JS array or string crossing back, costs several
// times the work behind it; an order used to take three such answers (place, state, fills). Texts
// remain only for what did not fit (`fillsText`, `workingText`) and for a refusal's reason.
//
// Stored bars are fetched lazily: the harness calls `advance(k)` only for run bars whose range can
// reach a working order (high ≥ up-trigger or low ≤ down-trigger), and only then does the child ask
// the server for that bar's stored-resolution bars (`need`), so a quiet year ships no 1 s bars.

import type { BarColumns } from '../../src/data/bar-columns.ts';
import type { Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { strategyOrderRequest } from '../../src/engine/order-rules.ts';
import type { LegEngines } from './leg-bridge.ts';

/**
 * [k, 'place', type, side, size, limit, stop, sl, tp, trail, slType] | [k, 'cancel', id] |
 * [k, 'close', size|null] | [k, 'modify', id, size, limit, stop, trail] (absent values null).
 */
export type Action = (number | string | null)[];

/**
 * Slots (int64 each) of the shared array, in this order: the state (balance, position qty, position
 * cost, up trigger, down trigger, fill count, working count); the first fill in the fills area and
 * how many it holds; the fills Python has taken (it writes this one); an order's ten fields (k,
 * type, side, size, limit, stop, stop loss, take profit, trail, stop-loss type: absent ones as NONE);
 * then the fills area (FILL_FIELDS slots a fill, as fillsText) and the working orders area
 * (WORKING_FIELDS slots an order, as workingText). runner/child/main.ts's GLUE has these numbers
 * written into its Python.
 */
export const SHARED = { state: 0, fillsFrom: 7, fillsHeld: 8, fillsTaken: 9, order: 10, fills: 20, fillsMax: 32, working: 20 + 32 * 8, workingMax: 32 } as const;
export const SHARED_SLOTS = SHARED.working + SHARED.workingMax * 7;
const FILL_FIELDS = 8;
const WORKING_FIELDS = 7;
/** Python's -(2**63): an absent value (hi word -2^31, lo word 0). */
const NONE_HI = -2147483648;

/** The wasm memory's current views (the glue's `py._module`: replaced when the memory grows). */
export interface WasmHeap {
  HEAP32: Int32Array;
}

export interface BatchView {
  base: number;
  end: Uint32Array;
  close: Int32Array;
}

export class EngineBridge {
  readonly engine: SessionEngine;
  actions: Action[] = [];
  batch: BatchView = { base: 0, end: new Uint32Array(0), close: new Int32Array(0) };
  /** The run's other contracts (a run over several instruments; leg-bridge.ts), else undefined (None in Python). */
  legs: LegEngines | undefined = undefined;
  private readonly fine = new Map<number, BarColumns>();

  constructor(
    inst: Instrument,
    startingBalanceCents: number,
    slippageTicks: number,
    /** The wasm memory's views, where the glue's shared array lives. */
    private readonly heap: WasmHeap,
    /** Asks the server for the stored bars of run bars from k on; returns when they are in `fine`. */
    private readonly request: (k: number, up: number, down: number) => Map<number, BarColumns>,
  ) {
    this.engine = new SessionEngine(inst, { startingBalanceCents, slippageTicks });
  }

  /** The shared array's first int32 index (0: not bound yet). */
  private at32 = 0;

  /** Binds the glue's shared array (`slots` int64s at byte address `addr`) and publishes the state. */
  bind(addr: number, slots: number): void {
    if (!Number.isSafeInteger(addr) || addr <= 0 || addr % 8 !== 0 || slots !== SHARED_SLOTS || addr + slots * 8 > this.heap.HEAP32.byteLength) {
      throw new Error('bad shared array');
    }
    this.at32 = addr / 4;
    this.publish();
  }

  /** Runs the engine over the stored bars of run bar k (fills working orders) and publishes its state. */
  advanceShared(k: number): void {
    this.advance(k);
    this.publish();
  }

  /** place() of the order Python wrote into the shared array: the order id, or 0 with the reason in `lastReason`. */
  placeShared(): number {
    const h = this.views();
    const o = this.at32 + 2 * SHARED.order;
    const v = (i: number) => readInt64(h, o + 2 * i);
    const [id, reason] = this.place(v(0) as number, v(1) as number, v(2) as number, v(3) as number, v(4), v(5), v(6), v(7), v(8), v(9));
    this.lastReason = reason;
    this.publish();
    return id;
  }

  /** modify(): '' when the order changed, 'order_not_found' when it is not working, else the refusal's reason. */
  modifyShared(k: number, id: number, size: number | null | undefined, limit: number | null | undefined, stop: number | null | undefined, trail: number | null | undefined): string {
    const reason = this.modify(k, id, nul(size), nul(limit), nul(stop), nul(trail));
    this.publish();
    return reason;
  }

  cancelShared(k: number, id: number): boolean {
    const done = this.cancel(k, id);
    this.publish();
    return done;
  }

  /** close() as one number: the order id, or 0 with the reason in `lastReason`. */
  closeShared(k: number, size: number | null | undefined): number {
    const [id, reason] = this.close(k, nul(size));
    this.lastReason = reason;
    this.publish();
    return id;
  }

  /** Writes the working orders into the shared array (all of them if they fit) and returns how many there are. */
  workingShared(): number {
    const h = this.views();
    const rows = this.engine.book.working;
    const n = Math.min(rows.length, SHARED.workingMax);
    for (let i = 0; i < n; i++) {
      const o = rows[i];
      const q = this.at32 + 2 * (SHARED.working + WORKING_FIELDS * i);
      writeInt64(h, q, o.id);
      writeInt64(h, q + 2, o.type);
      writeInt64(h, q + 4, o.side);
      writeInt64(h, q + 6, o.size);
      writeInt64(h, q + 8, o.limitTicks);
      writeInt64(h, q + 10, o.stopTicks);
      writeInt64(h, q + 12, o.parentId);
    }
    return rows.length;
  }

  /**
   * Writes the state, then the fills from the first one Python has not taken (as many as fit), into
   * the shared array. What Python wrote there is only a position: it is clamped, never trusted.
   */
  private publish(): void {
    const h = this.views();
    const p = this.at32;
    const e = this.engine;
    writeInt64(h, p, e.balanceCents);
    writeInt64(h, p + 2, e.positionQty);
    writeInt64(h, p + 4, e.positionCostTicks);
    writeInt64(h, p + 6, e.book.upTriggerTicks);
    writeInt64(h, p + 8, e.book.downTriggerTicks);
    const count = e.fillCount;
    writeInt64(h, p + 10, count);
    writeInt64(h, p + 12, e.workingOrderCount);
    const taken = readInt64(h, p + 2 * SHARED.fillsTaken);
    const from = taken === null || !(taken >= 0 && taken <= count) ? count : taken;
    const n = Math.min(count - from, SHARED.fillsMax);
    writeInt64(h, p + 2 * SHARED.fillsFrom, from);
    writeInt64(h, p + 2 * SHARED.fillsHeld, n);
    const fills = e.fills;
    for (let i = 0; i < n; i++) {
      const f = fills[from + i];
      const q = p + 2 * (SHARED.fills + FILL_FIELDS * i);
      writeInt64(h, q, f.id);
      writeInt64(h, q + 2, f.orderId);
      writeInt64(h, q + 4, f.side);
      writeInt64(h, q + 6, f.size);
      writeInt64(h, q + 8, f.priceTicks);
      writeInt64(h, q + 10, f.timeS);
      writeInt64(h, q + 12, f.feeCents);
      writeInt64(h, q + 14, f.realizedPnlCents);
    }
  }

  /** The memory's int32 view, read anew each time (a grown memory has a new one). */
  private views(): Int32Array {
    if (this.at32 === 0) throw new Error('shared array not bound');
    return this.heap.HEAP32;
  }

  private advance(k: number): void {
    let bars = this.fine.get(k);
    if (bars === undefined) {
      const got = this.request(k, this.engine.book.upTriggerTicks, this.engine.book.downTriggerTicks);
      for (const [kk, b] of got) if (kk >= k) this.fine.set(kk, b);
      bars = this.fine.get(k);
      if (bars === undefined) throw new Error(`server sent no stored bars for run bar ${k}`);
    }
    // Bars before k can no longer be asked for.
    for (const kk of this.fine.keys()) if (kk <= k) this.fine.delete(kk);
    this.engine.processBars(bars, 0, bars.length, null);
  }

  /** Why the last placeShared / closeShared refused (read only after a 0). */
  lastReason = '';

  /** Fills from index `from` on: `id,orderId,side,size,price,time,fee,pnl` each, joined by ';'. */
  fillsText(from: number): string {
    return this.fills(from).map((f) => f.join(',')).join(';');
  }

  /** Working orders as `id,type,side,size,limit,stop,parent` joined by ';' (absent values empty). */
  workingText(): string {
    return this.working().map((o) => o.map((v) => (v === undefined ? '' : String(v))).join(',')).join(';');
  }

  place(
    k: number, type: number, side: number, size: number, limit: number | null, stop: number | null, sl: number | null, tp: number | null,
    trail: number | null = null, slType: number | null = null,
  ): [number, string] {
    const now = this.at(k);
    this.actions.push([k, 'place', type, side, size, nul(limit), nul(stop), nul(sl), nul(tp), nul(trail), nul(slType)]);
    const r = this.engine.placeOrder(strategyOrderRequest(type, side, size, nul(limit), nul(stop), nul(sl), nul(tp), nul(trail), nul(slType)), now);
    return r.ok ? [r.order.id, ''] : [0, r.error.reason];
  }

  modify(k: number, id: number, size: number | null, limit: number | null, stop: number | null, trail: number | null): string {
    const now = this.at(k);
    this.actions.push([k, 'modify', id, size, limit, stop, trail]);
    const r = this.engine.modifyOrder(id, { size, limitTicks: limit, stopTicks: stop, trailTicks: trail }, now);
    return r.ok ? '' : r.error.kind === 'rejected' ? r.error.reason : 'order_not_found';
  }

  cancel(k: number, id: number): boolean {
    const now = this.at(k);
    this.actions.push([k, 'cancel', id]);
    return this.engine.cancelOrder(id, now).ok;
  }

  close(k: number, size: number | null): [number, string] {
    const now = this.at(k);
    this.actions.push([k, 'close', nul(size)]);
    const r = this.engine.closePosition(nul(size), now);
    if (r.ok) return [r.order.id, ''];
    return [0, r.error.kind === 'rejected' ? r.error.reason : r.error.kind === 'position_not_found' ? 'No open position' : 'Invalid close size'];
  }

  state(): number[] {
    const e = this.engine;
    return [e.balanceCents, e.positionQty, e.positionCostTicks, e.book.upTriggerTicks, e.book.downTriggerTicks, e.fillCount, e.workingOrderCount];
  }

  fills(from: number): number[][] {
    return this.engine.fills.slice(from).map((f) => [f.id, f.orderId, f.side, f.size, f.priceTicks, f.timeS, f.feeCents, f.realizedPnlCents]);
  }

  /** Absent values are `undefined`, which Python sees as None (JS null would arrive as jsnull). */
  working(): (number | undefined)[][] {
    return this.engine.book.working.map((o) => [o.id, o.type, o.side, o.size, o.limitTicks ?? undefined, o.stopTicks ?? undefined, o.parentId ?? undefined]);
  }

  /** Marks the engine at run bar k's close (the price a market order placed right after it gets); returns its end time. */
  private at(k: number): number {
    const i = k - this.batch.base;
    if (i < 0 || i >= this.batch.end.length) throw new Error(`run bar ${k} is not in the current batch`);
    this.engine.mark(this.batch.close[i], this.batch.end[i]);
    return this.batch.end[i];
  }
}

function nul(v: number | null | undefined): number | null {
  return v === undefined || v === null ? null : v;
}

/** Writes a safe integer (or null as NONE) as int64 at int32 index i (little-endian: lo, hi). */
function writeInt64(h: Int32Array, i: number, v: number | null): void {
  if (v === null) {
    h[i] = 0;
    h[i + 1] = NONE_HI;
    return;
  }
  const hi = Math.floor(v / 4294967296);
  h[i] = (v - hi * 4294967296) | 0;
  h[i + 1] = hi;
}

/** The int64 at int32 index i, or null for NONE (values beyond 2^53 lose their low bits). */
function readInt64(h: Int32Array, i: number): number | null {
  const hi = h[i + 1];
  const lo = h[i] >>> 0;
  if (hi === NONE_HI && lo === 0) return null;
  return hi * 4294967296 + lo;
}
