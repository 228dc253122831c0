// The matching loop: walks the instrument's stored-resolution bars and fills working orders.
//
// Fill rules (the model's assumptions; the spec leaves them to us, see domain-notes §2.4):
// 1. Fills are decided on stored bars (1 s for NQ, 10 s for GC), whatever timeframe the session shows:
//    a 5 m step on NQ walks 300 one-second bars.
// 2. Intrabar path: open, then the nearer of high and low, then the other, then close; the price moves
//    continuously between these points. When high and low are equally far from the open the path goes
//    against the position first (low first for a long, high first for a short; high first when flat),
//    so a bracket whose stop-loss and take-profit are both inside an ambiguous bar stops out first.
// 3. Limits and stops trigger on touch: a buy limit when price ≤ limit, a sell limit when price ≥ limit,
//    a buy stop when price ≥ stop, a sell stop when price ≤ stop. A touch on the path fills at the
//    order's price. When the price already stands through the level (a bar opening beyond it, or a
//    price on the other side at placement) the order fills at that price: for stops this is worse than
//    the stop, for limits better than the limit. No slippage is added to stops or limits.
// 4. Stop-limit: touching the stop price arms the order; from then on it is a limit at limitPrice
//    (our reading of "becomes a limit at its stop price": triggered at the stop, resting at the limit).
//    If the limit is marketable where it arms (buy: armed price ≤ limit) it fills there, on the same
//    bar; otherwise it rests and fills when the path reaches the limit, on this bar or a later one.
// 5. Market orders never reach this loop: they fill on placement at the last price (the close of the
//    last processed stored bar) moved `slippageTicks` against the trader (engine.ts).
// 6. Fills are all-or-nothing: no volume model, no partial fills, no queue position.
// 7. Several orders firing at one price fire in time priority: oldest first, except that a modify
//    that changed a price or raised the size put its order behind the others (order-book.ts). After
//    every fill the book is settled at the same price again, so bracket legs spawned by an entry can
//    fill at once (a gap beyond a leg) or later on the remaining path of the same bar when the path
//    reaches them.
// 8. Bracket legs (spawned and maintained by engine.ts) are a sell stop (or sell trailing stop) / sell
//    limit below / above a long entry (mirrored for shorts), one-cancels-other, and go away when the
//    position is closed by any other means.
// 9. JoinBid / JoinAsk (gateway types 6, 7) are limits at the synthetic touch of their placement: a
//    buy or sell JoinBid at the last price (the bid), a JoinAsk one tick above it (the ask). They are
//    passive: they never fill at the price they joined at the moment they joined, however marketable
//    a limit there would be. From the next walked bar on they are ordinary limits (rule 3): a later
//    price of the path at or through the limit fills them, at the limit on touch, or at the price
//    standing beyond it (a bar opening through it). Our book has no queue, so joining the bid behind
//    other bids is modelled as "needs a later trade at the price".
// 10. Trailing stop (gateway type 5), trail distance D ticks: it keeps the most favourable price the
//    path has reached since it started (the extreme: highest for a sell, lowest for a buy), and its
//    stop is extreme − D (sell) or extreme + D (buy); it starts from the last price at placement (a
//    bracket leg from its entry's anchor). The stop only ever moves towards the price, never back.
//    It triggers on touch like a stop and fills at the stop, or at the price standing beyond it (a
//    gap, rule 3). The extreme follows the path as it goes, on the same intrabar path as every other
//    order: in a bar O → nearer extreme → other → C, a long's stop ratchets up with the high when the
//    path reaches it, and a later fall on the same bar (to the low, or to the close) fills it if it
//    reaches the raised stop; if the low comes first, the fall meets the stop as it stood before the
//    high, and the bar's later rise ratchets a stop that is already gone. A bar that opens beyond the
//    extreme ratchets it to the open before anything else happens at that price.
//    Speed: a ratchet is a trigger like any other (extreme ± 1 tick, order-book.ts), so bars that do
//    not reach the extreme stay quiet; a walked segment moves the extreme straight to the segment's
//    end or to the next price at which some order fires, whichever comes first (nothing can happen in
//    between), so a long rise costs one ratchet, not one per tick.
//
// Speed: bars that reach no trigger are skipped by `scanQuiet`, two compares per bar against the
// book's reduced triggers folded with the StopRule's thresholds (order-book.ts, stop-rule.ts); the
// rule's event time becomes a bar index by binary search, so time is not read per bar. Only bars that
// reach something are walked along the path. The scan allocates nothing.

import { type BarColumns, lowerBound } from '../data/bar-columns.ts';
import type { OrderBook } from './order-book.ts';
import type { EngineStateView, RuleThresholds, StopRule } from './stop-rule.ts';
import { NO_EVENT_S, type Order, OrderSide, OrderType } from './types.ts';

/** What the loop needs from the engine that owns the book, the position and the account. */
export interface MatchingHost extends EngineStateView {
  readonly book: OrderBook;
  /** Sets the last price and time (the mark used for equity and for market orders). */
  mark(priceTicks: number, timeS: number): void;
  /** Executes a working order at a price: arms an unarmed stop-limit, fills anything else. */
  fire(order: Order, priceTicks: number, timeS: number): void;
  /**
   * Moves the extreme of every trailing stop of `side` that the price at `reachTicks` has passed to
   * that price (sell: extremes below it; buy: extremes above it), with their stops.
   */
  ratchet(side: OrderSide, reachTicks: number, timeS: number): void;
}

export interface ProcessResult {
  /** Bars consumed, counted from `from`; a halting bar counts, a bar halted before by onTime does not. */
  readonly processed: number;
  readonly halted: boolean;
  /** Index in the engine's fill log of the first fill made by this call. */
  readonly fillsFrom: number;
}

/** First index in [from, to) whose bar reaches `upTicks` or `downTicks`; `to` if none. The hot loop. */
export function scanQuiet(
  high: Int32Array,
  low: Int32Array,
  from: number,
  to: number,
  upTicks: number,
  downTicks: number,
): number {
  for (let i = from; i < to; i++) {
    if (high[i] >= upTicks || low[i] <= downTicks) return i;
  }
  return to;
}

/** First index in [from, to) with time ≥ timeS; `to` if none. */
export function firstAtOrAfter(time: Uint32Array, from: number, to: number, timeS: number): number {
  return timeS >= NO_EVENT_S ? to : lowerBound(time, to, timeS, from);
}

/**
 * Processes stored bars [from, to): fills what the bars reach and consults `rule`. Stops early only
 * when the rule halts. Leaves the host's mark at the close of the last consumed bar (or where a halt
 * happened inside a bar).
 */
export function processBars(
  host: MatchingHost,
  walker: BarWalker,
  bars: BarColumns,
  from: number,
  to: number,
  rule: StopRule | null,
  scratch: RuleThresholds,
): ProcessResult {
  if (from < 0 || to > bars.length || from > to) throw new Error(`bad bar range [${from}, ${to}) of ${bars.length}`);
  const fillsFrom = host.fillCount;
  const time = bars.time;
  const high = bars.high;
  const low = bars.low;
  const close = bars.close;
  let i = from;
  while (i < to) {
    let up = host.book.upTriggerTicks;
    let down = host.book.downTriggerTicks;
    let eventIndex = to;
    if (rule !== null) {
      rule.thresholds(host, scratch);
      if (scratch.upTicks < up) up = scratch.upTicks;
      if (scratch.downTicks > down) down = scratch.downTicks;
      eventIndex = firstAtOrAfter(time, i, to, scratch.eventS);
    }
    i = scanQuiet(high, low, i, eventIndex, up, down);
    if (i === to) break;
    if (i > from) host.mark(close[i - 1], time[i - 1]);
    if (rule !== null && i === eventIndex && rule.onTime(i, time[i], host) === 'halt') {
      return { processed: i - from, halted: true, fillsFrom };
    }
    if (!walker.walk(i, time[i], bars.open[i], high[i], low[i], close[i], rule)) {
      return { processed: i - from + 1, halted: true, fillsFrom };
    }
    i++;
  }
  if (to > from) host.mark(close[to - 1], time[to - 1]);
  return { processed: to - from, halted: false, fillsFrom };
}

/**
 * The slow path: one bar along the intrabar path, or one price point at order placement. Holds the
 * walk's state in fields so walking allocates nothing; one instance per engine.
 */
export class BarWalker {
  private curTicks = 0;
  private lowTicks = 0;
  private highTicks = 0;
  private barIndex = -1;
  private timeS = 0;
  private rule: StopRule | null = null;

  constructor(private readonly host: MatchingHost) {}

  /** Fires everything marketable at `priceTicks` (an order placement between bars). No rule. */
  settleAt(priceTicks: number, timeS: number): void {
    this.begin(-1, timeS, priceTicks, null);
    this.settle(priceTicks);
  }

  /** Walks one bar; false when the rule halted inside it. */
  walk(barIndex: number, timeS: number, o: number, h: number, l: number, c: number, rule: StopRule | null): boolean {
    this.begin(barIndex, timeS, o, rule);
    // A later price than any passive JoinBid / JoinAsk was placed at (rule 9).
    if (this.host.book.passiveCount !== 0) this.host.book.activatePassive();
    if (!this.settle(o)) return false;
    const upDist = h - o;
    const downDist = o - l;
    const highFirst = upDist < downDist || (upDist === downDist && this.host.positionQty <= 0);
    if (highFirst) {
      if (!this.moveUp(h) || !this.moveDown(l)) return false;
    } else if (!this.moveDown(l) || !this.moveUp(h)) return false;
    if (!(c >= this.curTicks ? this.moveUp(c) : this.moveDown(c))) return false;
    this.host.mark(c, timeS);
    return rule === null || rule.onPrice(barIndex, timeS, this.host, this.lowTicks, this.highTicks, c) !== 'halt';
  }

  private begin(barIndex: number, timeS: number, priceTicks: number, rule: StopRule | null): void {
    this.barIndex = barIndex;
    this.timeS = timeS;
    this.rule = rule;
    this.curTicks = priceTicks;
    this.lowTicks = priceTicks;
    this.highTicks = priceTicks;
  }

  /**
   * Rises to `target`, stopping at every up-trigger on the way (lowest first). A ratchet (a sell
   * trailing stop's extreme + 1) takes the path straight on to the next fire trigger or to `target`:
   * nothing fires in between, so the extremes can move there at once (rule 10).
   */
  private moveUp(target: number): boolean {
    const book = this.host.book;
    while (book.upTriggerTicks <= target) {
      let p = book.upTriggerTicks;
      if (book.upRatchetTicks === p) {
        p = book.upFireTicks < target ? book.upFireTicks : target;
        this.host.ratchet(OrderSide.Sell, p, this.timeS);
      }
      this.curTicks = p;
      if (p > this.highTicks) this.highTicks = p;
      if (!this.settle(p)) return false;
    }
    this.curTicks = target;
    if (target > this.highTicks) this.highTicks = target;
    return true;
  }

  /** Falls to `target`, stopping at every down-trigger on the way (highest first); ratchets as moveUp. */
  private moveDown(target: number): boolean {
    const book = this.host.book;
    while (book.downTriggerTicks >= target) {
      let p = book.downTriggerTicks;
      if (book.downRatchetTicks === p) {
        p = book.downFireTicks > target ? book.downFireTicks : target;
        this.host.ratchet(OrderSide.Buy, p, this.timeS);
      }
      this.curTicks = p;
      if (p < this.lowTicks) this.lowTicks = p;
      if (!this.settle(p)) return false;
    }
    this.curTicks = target;
    if (target < this.lowTicks) this.lowTicks = target;
    return true;
  }

  /**
   * Fires orders marketable at `p` until none is; the rule sees the path so far before every fill.
   * Trailing stops the price at `p` has passed ratchet to it first (a bar's open, a placement, a leg
   * spawned behind the price). Terminates: a ratchet leaves no ratchet at `p`, each fire removes an
   * order or arms a stop-limit (once), and fills spawn at most two legs per entry, which spawn nothing.
   */
  private settle(p: number): boolean {
    const host = this.host;
    const book = host.book;
    for (;;) {
      if (book.upRatchetTicks <= p) host.ratchet(OrderSide.Sell, p, this.timeS);
      if (book.downRatchetTicks >= p) host.ratchet(OrderSide.Buy, p, this.timeS);
      const order = book.firstMarketableAt(p);
      if (order === null) return true;
      const arming = order.type === OrderType.StopLimit && !order.triggered;
      if (!arming && this.rule !== null) {
        host.mark(p, this.timeS);
        const verdict = this.rule.onPrice(this.barIndex, this.timeS, host, this.lowTicks, this.highTicks, p);
        if (verdict === 'halt') return false;
      }
      host.fire(order, p, this.timeS);
      if (!arming) {
        this.lowTicks = p;
        this.highTicks = p;
      }
    }
  }
}
