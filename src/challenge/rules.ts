// ChallengeRule: the prop-firm loss rules and the pass check, plugged into the engine's bar loop as
// its StopRule (engine/stop-rule.ts), mutating one ChallengeState as bars and fills go by.
//
// The model:
// - Maximum loss limit: breached when equity (balance plus open P&L) at the adverse extreme of the
//   path since the last check (the low for a long, the high for a short) touches the trailing floor
//   (≤). The floor trails at trade-date boundaries (state.ts).
// - Daily loss limit: breached when the trade date's net P&L (equity − equity at the date's start)
//   reaches −limit (≤). Hard mode: a violation. Soft mode: the position is liquidated like a
//   violation, working orders are canceled, the run goes on, and orders are refused until the next
//   trade date (orderRefusal in state.ts); the daily limit is not checked again that date.
// - Both are equity floors, so the engine scans for the higher one: thresholds() returns the price
//   where equity reaches max(floor, day start − daily limit), and the next 17:00 CT as the event.
//   When one extreme crosses both floors, the higher floor was crossed first on the path and decides
//   (ties: maximum loss).
// - Liquidation at the deciding price, like a stop order at the floor-touching price (matching.ts
//   rule 3): at that price when the path moved through it, or at the first price already beyond it
//   when the path gapped there (a bar opening beyond it). So a breach costs exactly the limit unless
//   the market gapped. The deciding bar is consumed; later fills on its path do not happen.
// - Pass (pass.ts) can only follow a closing fill, so it is checked at the first rule call after a
//   fill that left the position flat (before the next fill in the same bar, or at the bar's end);
//   the run halts there, at the deciding bar.
// - Fills are recorded per CME trade date of their own time (trading days, closed P&L per date),
//   as the rule sees them: inside the loop on every call, and through absorbFills/afterCommand for
//   fills made by commands (market orders, closes, Replay/end's flatten).
// - End-of-day equity for the trailing floor is taken at the engine's mark when the first bar of a
//   new trade date (or a command at such a time) is seen: the close of the last bar before 17:00 CT.
//
// Use: `new ChallengeRule(state, plan, engine)` per session (and again after restoring the engine
// from persisted state: fills already in its log count as absorbed); `run(bars, from, to)` instead of
// `engine.processBars`; `afterCommand(nowS, barIndex)` after every order, close or flatten; persist
// `rule.state` with the engine.

import type { BarColumns } from '../data/bar-columns.ts';
import { formatUsd } from '../engine/account.ts';
import type { LedgerMember } from '../engine/ledger.ts';
import type { ProcessResult } from '../engine/matching.ts';
import {
  type EngineStateView, equityAtCents, type RuleThresholds, type RuleVerdict, type StopRule,
} from '../engine/stop-rule.ts';
import { type Fill, NO_DOWN_TRIGGER_TICKS, NO_EVENT_S, NO_UP_TRIGGER_TICKS } from '../engine/types.ts';
import { assert } from '../lib/assert.ts';
import { isPassReached } from './pass.ts';
import type { ChallengePlan } from './plans.ts';
import {
  type ChallengeOutcome, type ChallengeState, challengeTradeDate, type DayRecord, nextTradeDateBoundaryS,
  trailedFloorCents,
} from './state.ts';

/** What the rule needs of the engine; SessionEngine satisfies it. */
export interface ChallengeEngine extends EngineStateView {
  readonly fills: readonly Fill[];
  /**
   * The account, when several contracts' engines share it (engine/ledger.ts, `keepsFills`): its
   * fills are the account's, and a liquidation flattens and expires every member.
   */
  readonly ledger?: { readonly keepsFills: boolean; readonly fills: readonly Fill[]; readonly members: readonly LedgerMember[] };
  processBars(bars: BarColumns, from: number, to: number, rule: StopRule | null): ProcessResult;
  flatten(nowS: number, priceTicks?: number): Fill | null;
  /** Ends every working order as Expired (the phase is over). */
  expireWorking(nowS: number): void;
}

export interface ChallengeRunResult extends ProcessResult {
  /** The violation or pass that halted the run; null when it ran to `to`. */
  readonly outcome: ChallengeOutcome | null;
  /** Soft daily-loss breaches met on the way (the run went on after each). */
  readonly softBreaches: readonly ChallengeOutcome[];
}

export class ChallengeRule implements StopRule {
  private fillsSeen: number;
  private nextBoundaryS: number;
  /** The stored bars of the current run, to find a bar's open (gap detection). */
  private bars: BarColumns | null = null;
  /** Where the path range the engine reports began: the bar's open or the last fill's price. */
  private rangeBarIndex = -1;
  private rangeStartTicks = 0;
  private fillsSincePassCheck = false;
  private decided: ChallengeOutcome | null = null;

  constructor(
    readonly state: ChallengeState,
    readonly plan: ChallengePlan,
    private engine: ChallengeEngine,
    fillsAbsorbed: number = accountFills(engine).length,
  ) {
    assert(plan.startingBalanceCents === state.startingBalanceCents, 'plan and challenge differ in size');
    this.fillsSeen = fillsAbsorbed;
    this.nextBoundaryS = state.currentTradeDate === null ? NO_EVENT_S : nextTradeDateBoundaryS(state.currentTradeDate);
  }

  /**
   * The engine the next calls run and read: an account over several contracts (engine/ledger.ts) has
   * one rule, pointed at the contract whose bars or command come next (its fills and balance are the
   * account's, its equity includes the other contracts' open P&L).
   */
  use(engine: ChallengeEngine): void {
    this.engine = engine;
  }

  /**
   * Processes stored bars [from, to) under the rules: the engine's processBars plus liquidation at the
   * deciding price on a violation, pass or soft breach, continuing after soft breaches.
   * `rollAtFrom` (default) rolls the trade date to bar `from`'s before the loop, as a run over a day's
   * bars does; false leaves it to the loop's event at that bar (a range continuing a day's walk,
   * engine/ladder-walk.ts), so the event bar is walked as the day's own run would walk it.
   */
  run(bars: BarColumns, from: number, to: number, rollAtFrom = true): ChallengeRunResult {
    assert(this.state.status === 'active', `challenge is ${this.state.status}`);
    const fillsFrom = this.engine.fills.length;
    this.absorbFills();
    if (from < to && rollAtFrom) this.advanceTo(bars.time[from], this.engine);
    this.bars = bars;
    const softBreaches: ChallengeOutcome[] = [];
    let outcome: ChallengeOutcome | null = null;
    let i = from;
    for (;;) {
      this.rangeBarIndex = -1;
      const r = this.engine.processBars(bars, i, to, this);
      i += r.processed;
      if (!r.halted) break;
      const decided = this.takeDecided();
      this.settle(decided);
      if (decided.kind !== 'soft_breach') {
        outcome = decided;
        break;
      }
      softBreaches.push(decided);
    }
    this.bars = null;
    this.absorbFills();
    this.noteTime(this.engine.lastTimeS);
    return { processed: i - from, halted: outcome !== null, fillsFrom, outcome, softBreaches };
  }

  /**
   * After a command that may have filled (order placement, close, partial close, flatten) at
   * simulated time `nowS`: rolls the trade date if `nowS` is in a later one, records the fills, and
   * checks the floors at the last price and the pass. `barIndex` is reported in an outcome.
   */
  afterCommand(nowS: number, barIndex: number): ChallengeOutcome | null {
    if (this.state.status !== 'active') {
      this.absorbFills();
      return null;
    }
    const e = this.engine;
    this.advanceTo(nowS, e);
    this.absorbFills();
    this.noteTime(nowS);
    const p = e.lastPriceTicks;
    let o = this.breachAt(barIndex, nowS, e, equityAtCents(e, p), p);
    if (o === null && this.fillsSincePassCheck && flat(e)) {
      this.fillsSincePassCheck = false;
      if (isPassReached(this.state, this.plan, 0)) o = this.passOutcome(barIndex, nowS);
    }
    if (o !== null) this.settle(o);
    return o;
  }

  /** Records fills the rule has not seen yet: trading days, closed P&L per trade date, balance. */
  absorbFills(): void {
    const fills = accountFills(this.engine);
    const n = fills.length;
    if (this.fillsSeen === n) return;
    for (let k = this.fillsSeen; k < n; k++) {
      const f = fills[k];
      const day = dayRecordFor(this.state.days, challengeTradeDate(f.timeS));
      const net = f.realizedPnlCents - f.feeCents;
      day.fillCount += 1;
      day.closedPnlCents += net;
      day.windowPnlCents += net;
    }
    this.fillsSeen = n;
    this.state.balanceCents = this.engine.balanceCents;
    this.fillsSincePassCheck = true;
  }

  // ---- StopRule ----

  thresholds(s: EngineStateView, out: RuleThresholds): void {
    out.upTicks = NO_UP_TRIGGER_TICKS;
    out.downTicks = NO_DOWN_TRIGGER_TICKS;
    out.eventS = this.nextBoundaryS;
    const q = s.positionQty;
    if (q === 0 || this.state.status !== 'active') return;
    const touch = touchPriceTicks(s, this.effectiveFloorCents());
    if (q > 0) out.downTicks = touch;
    else out.upTicks = touch;
  }

  onTime(_barIndex: number, timeS: number, s: EngineStateView): RuleVerdict {
    this.absorbFills();
    this.advanceTo(timeS, s);
    return 'continue';
  }

  onPrice(
    barIndex: number,
    timeS: number,
    s: EngineStateView,
    lowTicks: number,
    highTicks: number,
    priceTicks: number,
  ): RuleVerdict {
    if (this.state.status !== 'active') return 'continue';
    if (s.fillCount !== this.fillsSeen || this.engine.ledger?.keepsFills === true) this.absorbFills();
    const startTicks = barIndex === this.rangeBarIndex ? this.rangeStartTicks : this.openTicks(barIndex);
    this.rangeBarIndex = barIndex;
    this.rangeStartTicks = priceTicks;
    const q = s.positionQty;
    const adverseTicks = q > 0 ? lowTicks : q < 0 ? highTicks : priceTicks;
    const breach = this.breachAt(barIndex, timeS, s, equityAtCents(s, adverseTicks), startTicks);
    if (breach !== null) {
      this.decided = breach;
      return 'halt';
    }
    if (this.fillsSincePassCheck && flat(s)) {
      this.fillsSincePassCheck = false;
      if (isPassReached(this.state, this.plan, 0)) {
        this.decided = this.passOutcome(barIndex, timeS);
        return 'halt';
      }
    }
    return 'continue';
  }

  // ---- internals ----

  private openTicks(barIndex: number): number {
    // Without the bars (processBars called directly) the gap is unknown: liquidate at the touch price.
    return this.bars === null ? Number.NaN : this.bars.open[barIndex];
  }

  private dailyLimitActive(): boolean {
    const st = this.state;
    return this.plan.dailyLossLimitCents > 0 && st.softBreachTradeDate === null && st.currentTradeDate !== null;
  }

  private effectiveFloorCents(): number {
    const st = this.state;
    if (!this.dailyLimitActive()) return st.floorCents;
    return Math.max(st.floorCents, st.dayStartEquityCents - this.plan.dailyLossLimitCents);
  }

  /** Rolls to the trade date of `timeS` if it is later: trails the floor, resets the day. */
  private advanceTo(timeS: number, s: EngineStateView): void {
    const st = this.state;
    const date = challengeTradeDate(timeS);
    if (st.currentTradeDate !== null && date <= st.currentTradeDate) return;
    const equityCents = equityAtCents(s, s.lastPriceTicks);
    if (st.currentTradeDate !== null) {
      if (equityCents > st.highestEodBalanceCents) st.highestEodBalanceCents = equityCents;
      const lockCents = st.startingBalanceCents;
      st.floorCents = trailedFloorCents(st.floorCents, equityCents, this.plan.maxLossLimitCents, lockCents);
      if (st.floorCents >= st.startingBalanceCents) st.drawdownLocked = true;
    }
    st.currentTradeDate = date;
    st.dayStartEquityCents = equityCents;
    st.softBreachTradeDate = null;
    this.nextBoundaryS = nextTradeDateBoundaryS(date);
  }

  /** The outcome when `equityCents` (equity at the adverse extreme) reaches a floor; else null. */
  private breachAt(
    barIndex: number,
    timeS: number,
    s: EngineStateView,
    equityCents: number,
    startTicks: number,
  ): ChallengeOutcome | null {
    const st = this.state;
    const mllFloor = st.floorCents;
    const dllOn = this.dailyLimitActive();
    const dllFloor = st.dayStartEquityCents - this.plan.dailyLossLimitCents;
    const mllHit = equityCents <= mllFloor;
    const dllHit = dllOn && equityCents <= dllFloor;
    if (!mllHit && !dllHit) return null;
    const isMll = mllHit && (!dllHit || mllFloor >= dllFloor);
    const floorCents = isMll ? mllFloor : dllFloor;
    const liq = s.positionQty === 0 ? null : liquidationPriceTicks(s, floorCents, startTicks);
    const atLiqCents = liq === null ? s.balanceCents : equityAtCents(s, liq);
    const base = { timeS, barIndex, phase: st.phase, liquidationPriceTicks: liq };
    if (isMll) {
      return {
        ...base, kind: 'violation', rule: 'maxLossLimit', valueCents: atLiqCents, limitCents: mllFloor,
        message: `Equity ${formatUsd(atLiqCents)} reached the maximum loss limit ${formatUsd(mllFloor)}`,
      };
    }
    const soft = this.plan.dailyLossMode === 'soft';
    const dayPnlCents = atLiqCents - st.dayStartEquityCents;
    const limitCents = -this.plan.dailyLossLimitCents;
    const tail = soft ? ': position flattened, orders canceled, no new orders until the next trade date' : '';
    return {
      ...base, kind: soft ? 'soft_breach' : 'violation', rule: 'dailyLossLimit', valueCents: dayPnlCents, limitCents,
      message: `Daily net P&L ${formatUsd(dayPnlCents)} reached the daily loss limit ${formatUsd(limitCents)}${tail}`,
    };
  }

  private passOutcome(barIndex: number, timeS: number): ChallengeOutcome {
    const st = this.state;
    const targetCents = st.startingBalanceCents + this.plan.profitTargetCents;
    return {
      kind: 'pass', rule: null, valueCents: st.balanceCents, limitCents: targetCents, timeS, barIndex,
      phase: st.phase, liquidationPriceTicks: null,
      message:
        `Evaluation passed: balance ${formatUsd(st.balanceCents)} reached the target ${formatUsd(targetCents)} ` +
        `in ${st.days.length} trading days`,
    };
  }

  private takeDecided(): ChallengeOutcome {
    const d = this.decided;
    assert(d !== null, 'engine halted without a challenge decision');
    this.decided = null;
    return d;
  }

  /**
   * Liquidates and ends the orders; a violation or pass ends the phase (its working orders expire),
   * a soft breach blocks the date (they are canceled: the account trades again the next date).
   */
  private settle(o: ChallengeOutcome): void {
    const e = this.engine;
    // The account's other contracts (engine/ledger.ts) end with it, flattened at their last prices.
    const others = e.ledger?.keepsFills ? e.ledger.members.filter((m) => (m as unknown) !== e) : [];
    if (o.kind !== 'soft_breach') for (const m of [e, ...others]) m.expireWorking(o.timeS);
    e.flatten(o.timeS, o.liquidationPriceTicks ?? undefined);
    for (const m of others) m.flatten(o.timeS);
    this.absorbFills();
    if (o.kind === 'soft_breach') {
      this.state.softBreachTradeDate = this.state.currentTradeDate;
      return;
    }
    this.state.status = o.kind === 'pass' ? 'passed' : 'violated';
    this.state.outcome = o;
  }

  private noteTime(timeS: number): void {
    const st = this.state;
    if (st.lastSimTimeS === null || timeS > st.lastSimTimeS) st.lastSimTimeS = timeS;
  }
}

/**
 * For a long, the highest price at which equity ≤ floorCents; for a short, the lowest (stop-rule.ts:
 * equity(p) = balance + (p·q − cost)·tickValue). Exact: integer cents divided once, then rounded.
 */
export function touchPriceTicks(s: EngineStateView, floorCents: number): number {
  const q = s.positionQty;
  const x = floorCents - s.balanceCents - (s.othersUnrealizedCents ?? 0) + s.positionCostTicks * s.tickValueCents;
  return q > 0 ? Math.floor(x / (q * s.tickValueCents)) : Math.ceil(x / (q * s.tickValueCents));
}

/** The touch price, or the range's start when the path was already beyond it there (a gap). */
export function liquidationPriceTicks(s: EngineStateView, floorCents: number, startTicks: number): number {
  const touch = touchPriceTicks(s, floorCents);
  if (s.positionQty > 0) return startTicks <= touch ? startTicks : touch;
  return startTicks >= touch ? startTicks : touch;
}

/** The fills the rule reads: the account's when several contracts share it, else the engine's. */
function accountFills(e: ChallengeEngine): readonly Fill[] {
  return e.ledger?.keepsFills ? e.ledger.fills : e.fills;
}

/** No position on any contract of the account: a pass is checked only then. */
function flat(s: EngineStateView): boolean {
  return s.positionQty === 0 && s.othersOpen !== true;
}

/** The record of trade date `date`, created in date order when missing. */
function dayRecordFor(days: DayRecord[], date: number): DayRecord {
  const last = days[days.length - 1];
  if (last !== undefined && last.tradeDate === date) return last;
  let k = days.length;
  while (k > 0 && days[k - 1].tradeDate > date) k--;
  if (k > 0 && days[k - 1].tradeDate === date) return days[k - 1];
  const rec: DayRecord = { tradeDate: date, fillCount: 0, closedPnlCents: 0, windowPnlCents: 0 };
  days.splice(k, 0, rec);
  return rec;
}
