// The server's own account of a playground run: a SessionEngine fed the same stored bars as the
// child and the strategy's actions as the child reported them. Everything a user reads about a run
// (fills, balance, P&L, trades, the equity curve) comes from here, never from the child, so a child
// that lies about its results changes nothing; a child whose own engine disagrees with this one
// after a batch is stopped (execution.ts).
//
// Per run bar k: the engine walks k's stored bars through the bar walker (fills; engine/walker.ts
// skips a bar that reaches no trigger, ledger-feed.ts), is marked at k's close, then k's actions
// are applied at k's end time, exactly as a Replay client placing orders right after a step.

import { limits } from '../../config.ts';
import { type Instrument, ticksToCents } from '../../domain/instrument.ts';
import { nextTradeDateStartS, tradeDate } from '../../domain/trading-hours.ts';
import { SessionEngine } from '../../engine/engine.ts';
import { strategyOrderRequest } from '../../engine/order-rules.ts';
import { type DailyClose, DrawdownDuration, type Performance, performance } from '../../engine/performance.ts';
import type { RuleThresholds } from '../../engine/stop-rule.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS } from '../../engine/types.ts';
import { bucketCanTrigger, walkFeeds, type WalkFeed } from '../../engine/walker.ts';
import { DrawdownTracker, runStats, type RunStats, TradeBook, type TradeRecord } from '../../engine/results.ts';
import { EquityCurve, equityBucketsFor, type EquityPoint } from './equity-curve.ts';
import type { DayBatch } from './feed.ts';
import { RunBarFeed } from './ledger-feed.ts';

/** An action as reported by the child, already checked for shape (execution.ts). */
export type LedgerAction =
  | {
      k: number; op: 'place'; type: number; side: number; size: number; limit: number | null; stop: number | null; sl: number | null;
      tp: number | null; trail?: number | null; slType?: number | null;
    }
  | { k: number; op: 'modify'; id: number; size: number | null; limit: number | null; stop: number | null; trail: number | null }
  | { k: number; op: 'cancel'; id: number }
  | { k: number; op: 'close'; size: number | null };

export type { EquityPoint };

export class RunLedger {
  readonly engine: SessionEngine;
  readonly trades = new TradeBook();
  private readonly dd: DrawdownTracker;
  private fillsSeen = 0;
  barsDone = 0;
  /** Each bucket's lowest, highest and last bar close over the whole run (equity-curve.ts). */
  private readonly equity = new EquityCurve(equityBucketsFor(limits.playgroundEquityPointsMax));
  lastEndS = 0;
  /** Bars during which a position was open (engine/performance.ts: exposure). */
  private exposedBars = 0;
  private readonly ddTime: DrawdownDuration;
  /** Equity at each completed trade date's close; the current date's is `lastEquityCents`. */
  private readonly dailyCloses: DailyClose[] = [];
  private tradeDay = -1;
  private nextTradeDayS = 0;
  private lastEquityCents: number;
  /** The first run bar's open and the latest run bar's close: the buy-and-hold benchmark (engine/performance.ts). */
  private firstOpenTicks = 0;
  private lastCloseTicks = 0;
  /** The run's one instrument as the bar walker's feed, and the walker's thresholds. */
  private readonly feed: RunBarFeed;
  private readonly feeds: readonly WalkFeed[];
  private readonly scratch: RuleThresholds = { upTicks: NO_UP_TRIGGER_TICKS, downTicks: NO_DOWN_TRIGGER_TICKS, eventS: NO_EVENT_S };

  /** `startS`: the run's start (its first session's open), where returns and drawdown durations begin. */
  constructor(private readonly inst: Instrument, readonly startingBalanceCents: number, slippageTicks: number, private readonly startS: number) {
    this.engine = new SessionEngine(inst, { startingBalanceCents, slippageTicks });
    this.dd = new DrawdownTracker(startingBalanceCents);
    this.ddTime = new DrawdownDuration(startingBalanceCents, startS);
    this.lastEquityCents = startingBalanceCents;
    this.feed = new RunBarFeed(this.engine);
    this.feeds = [this.feed];
  }

  /** Plays run bars [j0, j1) of a day batch with their actions (sorted by k, from `acts[ai]` on). */
  play(b: DayBatch, base: number, j0: number, j1: number, acts: readonly LedgerAction[]): void {
    let ai = 0;
    const e = this.engine;
    for (let j = j0; j < j1; j++) {
      const k = base + j;
      // The bar walker skips a run bar whose range reaches no trigger (nothing in its stored bars
      // can fill: only its close matters) and walks the stored bars of one that can.
      const openS = b.run.time[j];
      if (openS >= this.nextTradeDayS) this.newTradeDay(openS);
      if (this.barsDone === 0) this.firstOpenTicks = b.run.open[j];
      this.lastCloseTicks = b.run.close[j];
      const heldAtStart = e.positionQty !== 0;
      const endS = b.runEnd[j];
      // The walker's quiet rule asked here first: most run bars reach no trigger, and a walk costs
      // more than the comparison (a year of empty on_bar: twice the server's CPU without it).
      this.feed.triggers(this.scratch);
      if (bucketCanTrigger(b.run, j, endS - openS, this.scratch)) {
        this.feed.at(b, j, endS - openS);
        walkFeeds(this.feeds, openS, endS, this.scratch);
      }
      if (heldAtStart || e.positionQty !== 0) this.exposedBars++;
      e.mark(b.run.close[j], endS);
      for (; ai < acts.length && acts[ai].k === k; ai++) this.apply(acts[ai], endS);
      this.collectFills();
      this.barsDone++;
      this.lastEndS = endS;
      const eq = this.equityCents();
      this.dd.update(eq);
      this.ddTime.update(eq, endS);
      this.lastEquityCents = eq;
      this.equity.add(endS, eq);
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
    if (this.barsDone > 0) this.ddTime.update(eq, this.lastEndS);
    this.lastEquityCents = eq;
    // The last point is the flat balance at the last bar's end; a run that played no bar has no
    // point (it has no time).
    if (this.barsDone > 0) this.equity.end(this.lastEndS, eq);
  }

  stats(): RunStats {
    return runStats(this.trades.closed, this.startingBalanceCents, this.engine.balanceCents, this.dd.maxDrawdownCents);
  }

  /** Return, CAGR, the ratios, exposure, expectancy, durations, buy and hold, monthly returns (engine/performance.ts), so far. */
  performance(): Performance {
    const closes = this.tradeDay === -1 ? this.dailyCloses : [...this.dailyCloses, { day: this.tradeDay, equityCents: this.lastEquityCents }];
    const endS = this.barsDone === 0 ? this.startS : this.lastEndS;
    return performance({
      startingBalanceCents: this.startingBalanceCents,
      finalEquityCents: this.lastEquityCents,
      startS: this.startS,
      endS,
      dailyCloses: closes,
      trades: this.trades.closed,
      exposedBars: this.exposedBars,
      bars: this.barsDone,
      longestDrawdownS: this.ddTime.longestUntil(endS),
      benchmark: this.barsDone === 0 ? null : {
        entryPriceTicks: this.firstOpenTicks,
        exitPriceTicks: this.lastCloseTicks,
        pnlCents: ticksToCents(this.lastCloseTicks - this.firstOpenTicks, this.engine.tickValueCents),
      },
    });
  }

  get closedTrades(): readonly TradeRecord[] {
    return this.trades.closed;
  }

  /** The curve so far (a new array each time). */
  get equityCurve(): EquityPoint[] {
    return this.equity.points();
  }

  /** Balance plus open P&L at the last mark (what the account snapshot calls equity), without allocating. */
  equityCents(): number {
    const e = this.engine;
    const qty = e.positionQty;
    return e.balanceCents + (qty === 0 ? 0 : (e.lastPriceTicks * qty - e.positionCostTicks) * e.tickValueCents);
  }

  /** A bar opening at `openS` begins a new trade date: the previous one closed at the last bar's equity. */
  private newTradeDay(openS: number): void {
    if (this.tradeDay !== -1) this.dailyCloses.push({ day: this.tradeDay, equityCents: this.lastEquityCents });
    this.tradeDay = tradeDate(this.inst.session, openS);
    this.nextTradeDayS = nextTradeDateStartS(this.inst.session, openS);
  }

  /** One action as the child's bridge applied it (runner/child/bridge.ts: the same engine calls). */
  private apply(a: LedgerAction, nowS: number): void {
    const e = this.engine;
    if (a.op === 'place') {
      e.placeOrder(strategyOrderRequest(a.type, a.side, a.size, a.limit, a.stop, a.sl, a.tp, a.trail ?? null, a.slType ?? null), nowS);
    } else if (a.op === 'modify') {
      e.modifyOrder(a.id, { size: a.size, limitTicks: a.limit, stopTicks: a.stop, trailTicks: a.trail }, nowS);
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
}
