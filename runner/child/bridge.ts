// The engine as Python sees it inside the child: one SessionEngine (the server's own matching code,
// bundled in) behind the small bridge the harness calls (runner/python/harness.py, "Bridge methods").
//
// Every command the strategy gives (place, cancel, close) is also recorded as an action tagged with
// its run-bar index; the child sends the actions with each batch reply and the server replays them
// through its own engine. The server never takes the child's word for a fill, a balance or a P&L.
//
// Answers cross into Python as short texts of integers (`…Text`, parsed there with one split) or as
// single numbers, never as JS arrays: Pyodide's to_py() of a small array costs several times the
// call itself, and an order takes three of these calls (place, state, fills).
//
// Stored bars are fetched lazily: the harness calls `advance(k)` only for run bars whose range can
// reach a working order (high ≥ up-trigger or low ≤ down-trigger), and only then does the child ask
// the server for that bar's stored-resolution bars (`need`), so a quiet year ships no 1 s bars.

import type { BarColumns } from '../../src/data/bar-columns.ts';
import type { Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import type { OrderSide, OrderType } from '../../src/engine/types.ts';

/** [k, 'place', type, side, size, limit, stop, sl, tp] | [k, 'cancel', id] | [k, 'close', size|null] */
export type Action = (number | string | null)[];

export interface BatchView {
  base: number;
  end: Uint32Array;
  close: Int32Array;
}

export class EngineBridge {
  readonly engine: SessionEngine;
  actions: Action[] = [];
  batch: BatchView = { base: 0, end: new Uint32Array(0), close: new Int32Array(0) };
  private readonly fine = new Map<number, BarColumns>();

  constructor(
    inst: Instrument,
    startingBalanceCents: number,
    slippageTicks: number,
    /** Asks the server for the stored bars of run bars from k on; returns when they are in `fine`. */
    private readonly request: (k: number, up: number, down: number) => Map<number, BarColumns>,
  ) {
    this.engine = new SessionEngine(inst, { startingBalanceCents, slippageTicks });
  }

  /** Runs the engine over the stored bars of run bar k (fills working orders). */
  advance(k: number): number[] {
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
    return this.state();
  }

  /** Why the last placeId / closeId refused (read only after a 0). */
  lastReason = '';

  /** Fills already sent along with a state text (the glue keeps them for its next fills() call). */
  private fillsSent = 0;

  advanceText(k: number): string {
    return this.withNewFills(this.advance(k));
  }

  stateText(): string {
    return this.withNewFills(this.state());
  }

  /** A state as text, then `|` and the fills made since the last text (fillsText's form), if any. */
  private withNewFills(state: number[]): string {
    const from = this.fillsSent;
    const n = this.engine.fillCount;
    this.fillsSent = n;
    return n === from ? state.join(',') : `${state.join(',')}|${from}|${this.fillsText(from)}`;
  }

  /** Fills from index `from` on: `id,orderId,side,size,price,time,fee,pnl` each, joined by ';'. */
  fillsText(from: number): string {
    return this.fills(from).map((f) => f.join(',')).join(';');
  }

  /** Working orders as `id,type,side,size,limit,stop,parent` joined by ';' (absent values empty). */
  workingText(): string {
    return this.working().map((o) => o.map((v) => (v === undefined ? '' : String(v))).join(',')).join(';');
  }

  /** place() as one number: the order id, or 0 with the reason in `lastReason`. */
  placeId(k: number, type: number, side: number, size: number, limit: number | null, stop: number | null, sl: number | null, tp: number | null): number {
    const [id, reason] = this.place(k, type, side, size, limit, stop, sl, tp);
    this.lastReason = reason;
    return id;
  }

  closeId(k: number, size: number | null): number {
    const [id, reason] = this.close(k, size);
    this.lastReason = reason;
    return id;
  }

  place(k: number, type: number, side: number, size: number, limit: number | null, stop: number | null, sl: number | null, tp: number | null): [number, string] {
    const now = this.at(k);
    this.actions.push([k, 'place', type, side, size, nul(limit), nul(stop), nul(sl), nul(tp)]);
    const r = this.engine.placeOrder(
      { type: type as OrderType, side: side as OrderSide, size, limitTicks: nul(limit), stopTicks: nul(stop), slTicks: nul(sl), tpTicks: nul(tp) },
      now,
    );
    return r.ok ? [r.order.id, ''] : [0, r.error.reason];
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
