// A small driver for challenge scenarios: a real SessionEngine under a ChallengeRule over hand-built
// stored bars at real times, with orders placed between bars as the replay service does.

import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import type { Order } from '../../src/engine/types.ts';
import { type ChallengePlan, maxPositionQtyFor } from '../../src/challenge/plans.ts';
import { ChallengeRule, type ChallengeRunResult } from '../../src/challenge/rules.ts';
import type { ChallengeOutcome, ChallengeState } from '../../src/challenge/state.ts';
import { order } from '../engine/scenario.ts';

export const NQ = findInstrument('NQ') as Instrument;
/** NQ without fees: $5 a tick, so 100 ticks on one contract is $500. */
export const NQ_NO_FEES: Instrument = { ...NQ, feePerSideCents: 0 };

export const at = (iso: string): number => Date.parse(iso) / 1000;
/** Day number of a `YYYY-MM-DD` date. */
export const dayNo = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
export const usd = (dollars: number): number => Math.round(dollars * 100);

/** A stored bar: `[isoTime, open, high, low, close]` in ticks; `[isoTime, price]` for a flat bar. */
export type BarRow = readonly [string, number, number?, number?, number?];

export function barsOf(rows: readonly BarRow[]): BarColumns {
  const b = allocBars(rows.length);
  rows.forEach(([iso, o, h, l, c], i) => {
    b.time[i] = at(iso);
    b.open[i] = o;
    b.high[i] = h ?? o;
    b.low[i] = l ?? o;
    b.close[i] = c ?? o;
    b.volume[i] = 1;
  });
  b.length = rows.length;
  return b;
}

export class ChallengeSim {
  readonly engine: SessionEngine;
  readonly rule: ChallengeRule;
  readonly bars: BarColumns;
  /** Index of the next stored bar to process. */
  index = 0;
  readonly outcomes: ChallengeOutcome[] = [];

  constructor(
    readonly state: ChallengeState,
    readonly plan: ChallengePlan,
    rows: readonly BarRow[],
    readonly inst: Instrument = NQ_NO_FEES,
  ) {
    this.bars = barsOf(rows);
    this.engine = new SessionEngine(inst, {
      startingBalanceCents: state.balanceCents,
      maxPositionQty: maxPositionQtyFor(plan, inst),
    });
    this.engine.setLastPrice(this.bars.open[0], this.bars.time[0] - 1);
    this.rule = new ChallengeRule(state, plan, this.engine);
  }

  /** Processes the next `n` stored bars (all remaining by default). */
  step(n = this.bars.length - this.index): ChallengeRunResult {
    const r = this.rule.run(this.bars, this.index, Math.min(this.bars.length, this.index + n));
    this.index += r.processed;
    this.outcomes.push(...r.softBreaches);
    if (r.outcome !== null) this.outcomes.push(r.outcome);
    return r;
  }

  /** Places an order ('buy market 2', 'sell limit 1 @80100') now, then lets the rule see its fills. */
  place(spec: string): Order {
    const nowS = this.engine.lastTimeS;
    const r = this.engine.placeOrder(order(spec), nowS);
    if (!r.ok) throw new Error(`order '${spec}' rejected: ${r.error.reason}`);
    const o = this.rule.afterCommand(nowS, this.index - 1);
    if (o !== null) this.outcomes.push(o);
    return r.order;
  }

  /** Steps one bar, then places `spec` at its close. */
  stepThen(spec: string): Order {
    this.step(1);
    return this.place(spec);
  }
}
