// The server's own account of a playground run: a SessionEngine fed the same stored bars as the
// child and the strategy's actions as the child reported them. Everything a user reads about a run
// (fills, balance, P&L, trades, the equity curve) comes from here, never from the child, so a child
// that lies about its results changes nothing; a child whose own engine disagrees with this one
// after a batch is stopped (execution.ts).
//
// Per run bar k: the engine walks k's stored bars (fills), is marked at k's close, then k's actions
// are applied at k's end time, exactly as a Replay client placing orders right after a step.

import { limits } from '../../config.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { SessionEngine } from '../../engine/engine.ts';
import { DrawdownTracker, runStats, type RunStats, TradeBook, type TradeRecord } from '../../engine/results.ts';
import { type OrderSide, type OrderType } from '../../engine/types.ts';
import type { DayBatch } from './feed.ts';

/** An action as reported by the child, already checked for shape (execution.ts). */
export type LedgerAction =
  | { k: number; op: 'place'; type: number; side: number; size: number; limit: number | null; stop: number | null; sl: number | null; tp: number | null }
  | { k: number; op: 'cancel'; id: number }
  | { k: number; op: 'close'; size: number | null };

export interface EquityPoint {
  timeS: number;
  equityCents: number;
}

export class RunLedger {
  readonly engine: SessionEngine;
  readonly trades = new TradeBook();
  private readonly dd: DrawdownTracker;
  private fillsSeen = 0;
  barsDone = 0;
  private equity: EquityPoint[] = [];
  private stride = 1;
  lastEndS = 0;

  constructor(inst: Instrument, readonly startingBalanceCents: number, slippageTicks: number) {
    this.engine = new SessionEngine(inst, { startingBalanceCents, slippageTicks });
    this.dd = new DrawdownTracker(startingBalanceCents);
  }

  /** Plays run bars [j0, j1) of a day batch with their actions (sorted by k, from `acts[ai]` on). */
  play(b: DayBatch, base: number, j0: number, j1: number, acts: readonly LedgerAction[]): void {
    let ai = 0;
    const e = this.engine;
    const book = e.book;
    for (let j = j0; j < j1; j++) {
      const k = base + j;
      // A run bar whose range reaches no trigger cannot fill anything in its stored bars (the
      // engine's own quiet-bar rule, one level up): only its close matters.
      if (b.run.high[j] >= book.upTriggerTicks || b.run.low[j] <= book.downTriggerTicks) {
        e.processBars(b.stored, b.storedStart(j), b.storedStart(j + 1), null);
      }
      const endS = b.runEnd[j];
      e.mark(b.run.close[j], endS);
      for (; ai < acts.length && acts[ai].k === k; ai++) this.apply(acts[ai], endS);
      this.collectFills();
      this.barsDone++;
      this.lastEndS = endS;
      const eq = this.equityCents();
      this.dd.update(eq);
      if (this.barsDone % this.stride === 0) this.sample(endS, eq);
    }
  }

  /** Applies actions given right after the last bar (on_end's orders). */
  applyAfterLast(acts: readonly LedgerAction[]): void {
    for (const a of acts) this.apply(a, this.lastEndS);
    this.collectFills();
  }

  /** Closes what is open at the last price (end of run, stop or timeout), like Replay/end. */
  finish(): void {
    this.engine.flatten(this.lastEndS);
    this.collectFills();
    const eq = this.engine.balanceCents;
    this.dd.update(eq);
    this.sample(this.lastEndS, eq);
  }

  stats(): RunStats {
    return runStats(this.trades.closed, this.startingBalanceCents, this.engine.balanceCents, this.dd.maxDrawdownCents);
  }

  get closedTrades(): readonly TradeRecord[] {
    return this.trades.closed;
  }

  get equityCurve(): readonly EquityPoint[] {
    return this.equity;
  }

  /** Balance plus open P&L at the last mark (what the account snapshot calls equity), without allocating. */
  equityCents(): number {
    const e = this.engine;
    const qty = e.positionQty;
    return e.balanceCents + (qty === 0 ? 0 : (e.lastPriceTicks * qty - e.positionCostTicks) * e.tickValueCents);
  }

  private apply(a: LedgerAction, nowS: number): void {
    const e = this.engine;
    if (a.op === 'place') {
      e.placeOrder({ type: a.type as OrderType, side: a.side as OrderSide, size: a.size, limitTicks: a.limit, stopTicks: a.stop, slTicks: a.sl, tpTicks: a.tp }, nowS);
    } else if (a.op === 'cancel') {
      e.cancelOrder(a.id, nowS);
    } else {
      e.closePosition(a.size, nowS);
    }
  }

  private collectFills(): void {
    const fills = this.engine.fills;
    for (; this.fillsSeen < fills.length; this.fillsSeen++) this.trades.add(fills[this.fillsSeen]);
  }

  private sample(timeS: number, equityCents: number): void {
    const last = this.equity[this.equity.length - 1];
    if (last !== undefined && last.timeS === timeS) {
      last.equityCents = equityCents;
      return;
    }
    this.equity.push({ timeS, equityCents });
    if (this.equity.length >= 2 * limits.playgroundEquityPointsMax) {
      this.equity = this.equity.filter((_, i) => i % 2 === 1);
      this.stride *= 2;
    }
  }
}
