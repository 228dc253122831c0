// The other contracts of a run over several instruments, as Python sees them inside the child: one
// SessionEngine each (the server's own matching code, as for the main contract in bridge.ts) behind
// plain calls that take the contract's place in the run's list (1 for the first after the main one).
//
// The clock is the main instrument's (bridge.ts `batch`): at run bar k it stands at k's end. A
// contract's bar is visible once its end is at or before the clock; its engine is marked at its last
// visible bar's close before an order of the strategy's (a market order fills there), exactly as the
// server's ledger marks it (src/service/playground/ledger-legs.ts). The stored bars walked at run bar
// k (from the clock before k to k's end) are asked for from the server only when the harness found
// a visible bar reaching the contract's triggers (`need` with `leg`).
//
// These calls answer JS arrays, not the shared memory of the main contract's hot path: orders on the
// other contracts of a spread are few, and a quiet bar makes no call at all.

import type { BarColumns } from '../../src/data/bar-columns.ts';
import { lowerBound } from '../../src/data/bar-columns.ts';
import type { Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { strategyOrderRequest } from '../../src/engine/order-rules.ts';
import { asInt32, asUint32 } from '../protocol.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import type { Action, BatchView, EngineBridge } from './bridge.ts';

/** A contract's visible bars of the current batch: their end times and closes. */
export interface LegBars {
  end: Uint32Array;
  close: Int32Array;
}

export class LegEngines {
  private readonly engines: SessionEngine[];
  private bars: LegBars[];
  /** Each contract's last visible close before the current batch (null: none yet). */
  private readonly carried: (number | null)[];

  constructor(
    insts: readonly Instrument[],
    startingBalanceCents: number,
    slippageTicks: number,
    /** The main contract's bridge: its batch (the clock) and its action list, which these actions join. */
    private readonly main: { batch: BatchView; actions: Action[] },
    /** Asks the server for contract i's stored bars walked at run bar k. */
    private readonly request: (leg: number, k: number, up: number, down: number) => BarColumns,
  ) {
    this.engines = insts.map((inst) => new SessionEngine(inst, { startingBalanceCents, slippageTicks }));
    this.bars = insts.map(() => ({ end: new Uint32Array(0), close: new Int32Array(0) }));
    this.carried = insts.map(() => null);
  }

  /** A new batch's bars of every contract (the previous batch's last close is carried over). */
  load(bars: LegBars[]): void {
    if (bars.length !== this.engines.length) throw new Error('batch has bars of another number of contracts');
    this.bars.forEach((b, i) => {
      if (b.close.length > 0) this.carried[i] = b.close[b.close.length - 1];
    });
    this.bars = bars;
  }

  /** Walks contract `leg`'s stored bars of run bar k; answers its state. */
  legAdvance(leg: number, k: number): number[] {
    const e = this.engine(leg);
    const bars = this.request(leg, k, e.book.upTriggerTicks, e.book.downTriggerTicks);
    e.processBars(bars, 0, bars.length, null);
    return this.legState(leg);
  }

  /** [balance, position qty, position cost, up trigger, down trigger, fill count, working count], as bridge.ts `state`. */
  legState(leg: number): number[] {
    const e = this.engine(leg);
    return [e.balanceCents, e.positionQty, e.positionCostTicks, e.book.upTriggerTicks, e.book.downTriggerTicks, e.fillCount, e.workingOrderCount];
  }

  legPlace(
    leg: number, k: number, type: number, side: number, size: number, limit?: number | null, stop?: number | null, sl?: number | null,
    tp?: number | null, trail?: number | null, slType?: number | null,
  ): [number, string] {
    const now = this.at(leg, k);
    this.record(k, leg, ['place', type, side, size, nul(limit), nul(stop), nul(sl), nul(tp), nul(trail), nul(slType)]);
    const r = this.engine(leg).placeOrder(strategyOrderRequest(type, side, size, nul(limit), nul(stop), nul(sl), nul(tp), nul(trail), nul(slType)), now);
    return r.ok ? [r.order.id, ''] : [0, r.error.reason];
  }

  legModify(leg: number, k: number, id: number, size?: number | null, limit?: number | null, stop?: number | null, trail?: number | null): string {
    const now = this.at(leg, k);
    this.record(k, leg, ['modify', id, nul(size), nul(limit), nul(stop), nul(trail)]);
    const r = this.engine(leg).modifyOrder(id, { size: nul(size), limitTicks: nul(limit), stopTicks: nul(stop), trailTicks: nul(trail) }, now);
    return r.ok ? '' : r.error.kind === 'rejected' ? r.error.reason : 'order_not_found';
  }

  legCancel(leg: number, k: number, id: number): boolean {
    const now = this.at(leg, k);
    this.record(k, leg, ['cancel', id]);
    return this.engine(leg).cancelOrder(id, now).ok;
  }

  legClose(leg: number, k: number, size?: number | null): [number, string] {
    const now = this.at(leg, k);
    this.record(k, leg, ['close', nul(size)]);
    const r = this.engine(leg).closePosition(nul(size), now);
    if (r.ok) return [r.order.id, ''];
    return [0, r.error.kind === 'rejected' ? r.error.reason : r.error.kind === 'position_not_found' ? 'No open position' : 'Invalid close size'];
  }

  /** Fills from index `from` on: [id, orderId, side, size, price, time, fee, pnl] each. */
  legFills(leg: number, from: number): number[][] {
    return this.engine(leg).fills.slice(from).map((f) => [f.id, f.orderId, f.side, f.size, f.priceTicks, f.timeS, f.feeCents, f.realizedPnlCents]);
  }

  /** Working orders: [id, type, side, size, limit, stop, parent], absent values undefined (None in Python). */
  legWorking(leg: number): (number | undefined)[][] {
    return this.engine(leg).book.working.map((o) => [o.id, o.type, o.side, o.size, o.limitTicks ?? undefined, o.stopTicks ?? undefined, o.parentId ?? undefined]);
  }

  /** Σ over the contracts of (balance − starting balance), and their fill count: what the account adds to the main contract's. */
  totals(startingBalanceCents: number): { balanceCents: number; fillCount: number } {
    let balanceCents = 0;
    let fillCount = 0;
    for (const e of this.engines) {
      balanceCents += e.balanceCents - startingBalanceCents;
      fillCount += e.fillCount;
    }
    return { balanceCents, fillCount };
  }

  private engine(leg: number): SessionEngine {
    const e = this.engines[leg - 1];
    if (e === undefined) throw new Error(`no contract ${leg}`);
    return e;
  }

  private record(k: number, leg: number, action: Action): void {
    this.main.actions.push([k, 'leg', leg, ...action]);
  }

  /** Marks contract `leg` at its last bar visible at run bar k (the price a market order gets); returns k's end. */
  private at(leg: number, k: number): number {
    const b = this.main.batch;
    const i = k - b.base;
    if (i < 0 || i >= b.end.length) throw new Error(`run bar ${k} is not in the current batch`);
    const clockS = b.end[i];
    const own = this.bars[leg - 1];
    const n = lowerBound(own.end, own.end.length, clockS + 1);
    const close = n > 0 ? own.close[n - 1] : this.carried[leg - 1];
    if (close !== null) this.engine(leg).mark(close, clockS);
    return clockS;
  }
}

function nul(v: number | null | undefined): number | null {
  return v === undefined || v === null ? null : v;
}

/** The other contracts' engines of a run over several instruments (the `run` message's `legs`), or undefined for one. */
export function legEnginesOf(run: Record<string, unknown>, bridge: EngineBridge, request: (leg: number, k: number, up: number, down: number) => BarColumns): LegEngines | undefined {
  if (!Array.isArray(run.legs) || run.legs.length === 0) return undefined;
  const insts = run.legs.map((s) => {
    const inst = findInstrument(String(s));
    if (!inst) throw new Error(`unknown instrument ${String(s)}`);
    return inst;
  });
  return new LegEngines(insts, Number(run.startingBalanceCents), Number(run.slippageTicks), bridge, request);
}

/**
 * A batch's bars of the other contracts: each [time, end, open, high, low, close, volume] (prices in
 * its ticks). The engines keep end and close (the marks); Python gets all seven.
 */
export function legColumns(v: unknown, legs: LegEngines): unknown[] {
  if (!Array.isArray(v)) throw new Error('batch without the other contracts\' bars');
  const cols = v.map((x) => {
    if (!Array.isArray(x) || x.length !== 7) throw new Error('bad contract bars');
    return [asUint32(x[0]), asUint32(x[1]), asInt32(x[2]), asInt32(x[3]), asInt32(x[4]), asInt32(x[5]), asUint32(x[6])];
  });
  legs.load(cols.map((c): LegBars => ({ end: c[1] as Uint32Array, close: c[5] as Int32Array })));
  return cols;
}

/** The account's balance and fill count over every contract (the server checks them after each batch). */
export function accountState(bridge: EngineBridge, startingBalanceCents: number): { balanceCents: number; fillCount: number } {
  const s = bridge.state();
  const legs = bridge.legs?.totals(startingBalanceCents) ?? { balanceCents: 0, fillCount: 0 };
  return { balanceCents: s[0] + legs.balanceCents, fillCount: s[5] + legs.fillCount };
}
