// StopRule: how a caller (the challenge module) watches the bar loop and halts it, without the engine
// knowing any challenge rule and without a call per bar.
//
// Contract, in the order the loop uses it:
// 1. `thresholds(state, out)` fills `out` with two prices and a time: the loop must consult the rule
//    when a bar's high reaches `upTicks`, its low reaches `downTicks`, or a bar's time reaches
//    `eventS`. The loop folds the prices into its order triggers and turns `eventS` into a bar index,
//    so bars that reach none of them are skipped at full scan speed and the rule never sees them.
//    The loop asks again after anything that may move them: a fill, any rule call, and at the start
//    of every processBars call. Return NO_UP_TRIGGER_TICKS / NO_DOWN_TRIGGER_TICKS / NO_EVENT_S
//    (types.ts) for "never".
// 2. `onTime(barIndex, timeS, state)` runs before bar `barIndex` is walked when its time has reached
//    `eventS` (a trade-date rollover at 17:00 CT, a flatten time, a session end). 'halt' stops the
//    loop before that bar: it is not consumed.
// 3. `onPrice(barIndex, timeS, state, lowTicks, highTicks, priceTicks)` runs on bars that the slow
//    path walks (any bar reaching a threshold or an order trigger): before every fill inside the bar
//    and once at the bar's end. [lowTicks, highTicks] is the range the intrabar path covered since the
//    previous call while the position in `state` was held unchanged, and `priceTicks` is where the
//    path stands now (state.lastPriceTicks equals it during the call). So the adverse extreme of a
//    long is lowTicks and of a short highTicks, and a breach is seen before a later fill in the same
//    bar could hide it. 'halt' stops the walk there: fills later on the path do not happen, the bar
//    counts as processed, and lastPriceTicks stays at `priceTicks`; the caller then liquidates
//    (SessionEngine.flatten, optionally at a price of its choosing such as the floor).
//
// Expressing the two rules we need:
// - Max-loss floor F: for a long qty q, equity(p) = balance + (p·q − cost)·tickValue ≤ F exactly when
//   p ≤ floor((F − balance + cost·tickValue) / (q·tickValue)), so that is `downTicks` (shorts mirror
//   it into `upTicks`); onPrice checks equity at the adverse extreme and halts.
// - Trade-date boundary: `eventS` = the next 17:00 America/Chicago in epoch seconds; onTime rolls the
//   day (new daily P&L, trailing floor) and answers 'continue'.
// An intraday trailing floor adds the price of a new equity peak as the opposite threshold.

import { ticksToCents } from '../domain/instrument.ts';

/** What a rule may read of the engine. The engine object itself implements it (no copies). */
export interface EngineStateView {
  readonly balanceCents: number;
  /** Signed net contracts. */
  readonly positionQty: number;
  /** Σ lot price × signed lot size (positions.ts): unrealized ticks = price × qty − cost. */
  readonly positionCostTicks: number;
  readonly tickValueCents: number;
  readonly lastPriceTicks: number;
  readonly lastTimeS: number;
  readonly workingOrderCount: number;
  /** Length of the fill log: fills with index ≥ a remembered count are new. */
  readonly fillCount: number;
  /**
   * Open P&L of the account's other contracts at their last prices (engine/ledger.ts), part of the
   * equity a rule watches; absent or 0 for a one-contract account.
   */
  readonly othersUnrealizedCents?: number;
  /** Whether another contract of the account holds a position (absent: none). */
  readonly othersOpen?: boolean;
}

export interface RuleThresholds {
  upTicks: number;
  downTicks: number;
  eventS: number;
}

export type RuleVerdict = 'continue' | 'halt';

export interface StopRule {
  thresholds(state: EngineStateView, out: RuleThresholds): void;
  onTime(barIndex: number, timeS: number, state: EngineStateView): RuleVerdict;
  onPrice(
    barIndex: number,
    timeS: number,
    state: EngineStateView,
    lowTicks: number,
    highTicks: number,
    priceTicks: number,
  ): RuleVerdict;
}

/** Equity if the position were marked at `priceTicks`, in cents. */
export function equityAtCents(state: EngineStateView, priceTicks: number): number {
  const unrealized = state.positionQty === 0 ? 0 : priceTicks * state.positionQty - state.positionCostTicks;
  return state.balanceCents + (state.othersUnrealizedCents ?? 0) + ticksToCents(unrealized, state.tickValueCents);
}
