// The ledger's other instruments (a run over several instruments): one SessionEngine per contract,
// each a feed of the bar walker beside the main instrument's (ledger-feed.ts), and the trades of all
// contracts in one list.
//
// One account, kept here until the engine has one: each contract's engine keeps its own balance
// from the run's starting balance (its margin and position checks see that balance, not the other
// contracts'), and the account's balance is the starting balance plus every engine's realized P&L
// less its fees (docs/decisions.md, "Playground over several instruments").

import type { BarColumns } from '../../data/bar-columns.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { SessionEngine } from '../../engine/engine.ts';
import { TradeBook, type TradeRecord } from '../../engine/results.ts';
import type { RuleThresholds } from '../../engine/stop-rule.ts';
import { NO_DOWN_TRIGGER_TICKS, NO_UP_TRIGGER_TICKS } from '../../engine/types.ts';
import type { WalkFeed } from '../../engine/walker.ts';
import { bookTriggers } from './ledger-feed.ts';
import type { LegSlice } from './legs.ts';

/** A leg's engine as a feed of the walker: one level (the leg's run bars of the slice), then its stored bars. */
export class LegFeed implements WalkFeed {
  readonly levelCount = 1;
  slice: LegSlice | null = null;
  readonly levelWidthS: () => number;
  readonly triggers: (out: RuleThresholds) => void;

  constructor(private readonly engine: SessionEngine, widthS: number) {
    this.levelWidthS = () => widthS;
    this.triggers = (out) => bookTriggers(engine, out);
  }

  /** The slice's run bars of the leg (the walker's one level). */
  level = (): BarColumns => (this.slice as LegSlice).run;

  walkStored(fromS: number, toS: number): boolean {
    const s = this.slice as LegSlice;
    const [a, z] = s.storedRange(fromS, toS);
    this.engine.processBars(s.stored, a, z, null);
    return false;
  }

  skipped(): void {
    // The ledger marks each leg at its last visible bar's close after the walk.
  }

  storedTimes(): { time: Uint32Array; length: number } {
    return (this.slice as LegSlice).stored;
  }
}

/** One other contract of the run: its engine, its feed, its trades, and where its visible bars stand. */
export class LegBook {
  readonly engine: SessionEngine;
  readonly feed: LegFeed;
  readonly trades = new TradeBook();
  private fillsSeen = 0;
  private tradesSeen = 0;
  /** The next bar of the current slice not yet visible, and the close of the last visible one (null: none yet). */
  private at = 0;
  private lastCloseTicks: number | null = null;

  constructor(readonly inst: Instrument, readonly index: number, startingBalanceCents: number, slippageTicks: number, widthS: number) {
    this.engine = new SessionEngine(inst, { startingBalanceCents, slippageTicks });
    this.feed = new LegFeed(this.engine, widthS);
  }

  /** The slice whose bars the next main bars walk. */
  enter(slice: LegSlice): void {
    this.feed.slice = slice;
    this.at = 0;
  }

  /** Makes the bars ending by `clockS` visible and marks the engine at the last one's close (the price a market order gets). */
  markAt(clockS: number): void {
    const s = this.feed.slice as LegSlice;
    while (this.at < s.run.length && s.runEnd[this.at] <= clockS) this.lastCloseTicks = s.run.close[this.at++];
    if (this.lastCloseTicks !== null) this.engine.mark(this.lastCloseTicks, clockS);
  }

  hasTriggers(): boolean {
    const b = this.engine.book;
    return b.upTriggerTicks !== NO_UP_TRIGGER_TICKS || b.downTriggerTicks !== NO_DOWN_TRIGGER_TICKS;
  }

  /** New fills into the leg's trade book; the trades they closed, tagged with the leg. */
  collect(out: TradeRecord[]): void {
    const fills = this.engine.fills;
    for (; this.fillsSeen < fills.length; this.fillsSeen++) this.trades.add(fills[this.fillsSeen]);
    const closed = this.trades.closed;
    for (; this.tradesSeen < closed.length; this.tradesSeen++) out.push({ ...closed[this.tradesSeen], leg: this.index });
  }

  /** Open P&L at the last mark, cents. */
  openPnlCents(): number {
    const e = this.engine;
    const qty = e.positionQty;
    return qty === 0 ? 0 : (e.lastPriceTicks * qty - e.positionCostTicks) * e.tickValueCents;
  }
}
