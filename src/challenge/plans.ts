// Challenge plans: every number a prop-firm challenge is judged by, in one table.
//
// Defaults (Topstep-shaped, docs/decisions.md "Challenges"; all in integer cents):
// | size | start   | target | max loss | daily loss | contracts (minis) | standard payout max |
// | 50K  |  50,000 |  3,000 |    2,000 |      1,000 |  5                |               2,000 |
// | 100K | 100,000 |  6,000 |    3,000 |      2,000 | 10                |               2,500 |
// | 150K | 150,000 |  9,000 |    4,500 |      3,000 | 15                |               2,750 |
// Every plan: at least 2 trading days to pass, best day under 50% of total profit to pass, daily
// loss limit a hard violation. Payout policies: `standard` (5 winning days of at least $150 closed
// profit, $125 minimum, the size's maximum, at most 50% of the profit since the last payout) and
// `consistency` (3 winning days, $6,000 maximum, no day above 40% of the window's profit).
// Prop firms change these often, so a challenge stores its plan key and the service looks the plan
// up here; a plan may also be built as `{ ...planFor(size, policy), dailyLossMode: 'soft' }`.

import type { Instrument } from '../domain/instrument.ts';

export type PlanSize = '50K' | '100K' | '150K';
export type PayoutPolicy = 'standard' | 'consistency';
/** `hard`: reaching the daily loss limit is a violation; `soft`: flatten and block until the next trade date. */
export type DailyLossMode = 'hard' | 'soft';

export interface PayoutRules {
  readonly policy: PayoutPolicy;
  /** A finished trade date with at least this much closed profit is a winning day. */
  readonly winningDayMinProfitCents: number;
  readonly requiredWinningDays: number;
  readonly minPayoutCents: number;
  readonly maxPayoutCents: number;
  /** A payout is at most this percentage of the net profit since the last payout. */
  readonly profitCapPct: number;
  /** Consistency policy: no day's profit above this percentage of the window's profit; null = no rule. */
  readonly consistencyPct: number | null;
}

export interface ChallengePlan {
  /** `${size}-${policy}`, e.g. `50K-standard`: what a challenge stores. */
  readonly key: string;
  readonly size: PlanSize;
  readonly startingBalanceCents: number;
  /** Evaluation only; the performance phase has no target. */
  readonly profitTargetCents: number;
  /** The trailing floor starts this far below the starting balance. */
  readonly maxLossLimitCents: number;
  readonly dailyLossLimitCents: number;
  readonly dailyLossMode: DailyLossMode;
  /** Largest absolute net position in mini contracts; micros count 1/10 (maxPositionQtyFor). */
  readonly maxContracts: number;
  readonly minTradingDays: number;
  /** Pass needs best day < this percentage of total profit. */
  readonly passConsistencyPct: number;
  readonly payout: PayoutRules;
}

/** Topstep's 10:1 ratio: 5 minis = 50 micros. */
export const MICROS_PER_MINI = 10;

const USD = 100;

// [size, start, target, max loss, daily loss, contracts, standard payout max], USD.
const SIZES: readonly (readonly [PlanSize, number, number, number, number, number, number])[] = [
  ['50K', 50_000, 3_000, 2_000, 1_000, 5, 2_000],
  ['100K', 100_000, 6_000, 3_000, 2_000, 10, 2_500],
  ['150K', 150_000, 9_000, 4_500, 3_000, 15, 2_750],
];

function payoutRules(policy: PayoutPolicy, standardMaxUsd: number): PayoutRules {
  const common = { policy, winningDayMinProfitCents: 150 * USD, minPayoutCents: 125 * USD, profitCapPct: 50 };
  return policy === 'standard'
    ? { ...common, requiredWinningDays: 5, maxPayoutCents: standardMaxUsd * USD, consistencyPct: null }
    : { ...common, requiredWinningDays: 3, maxPayoutCents: 6_000 * USD, consistencyPct: 40 };
}

/** Plan key: `50K-standard` (hard daily loss, the default) or `50K-standard-soft` (soft breach). */
export function planKey(size: PlanSize, policy: PayoutPolicy, dailyLossMode: DailyLossMode): string {
  return dailyLossMode === 'hard' ? `${size}-${policy}` : `${size}-${policy}-soft`;
}

export const PLANS: readonly ChallengePlan[] = Object.freeze(
  SIZES.flatMap(([size, start, target, mll, dll, contracts, payoutMax]) =>
    (['standard', 'consistency'] as const).flatMap((policy) =>
      (['hard', 'soft'] as const).map(
      (dailyLossMode): ChallengePlan =>
        Object.freeze({
          key: planKey(size, policy, dailyLossMode),
          size,
          startingBalanceCents: start * USD,
          profitTargetCents: target * USD,
          maxLossLimitCents: mll * USD,
          dailyLossLimitCents: dll * USD,
          dailyLossMode,
          maxContracts: contracts,
          minTradingDays: 2,
          passConsistencyPct: 50,
          payout: Object.freeze(payoutRules(policy, payoutMax)),
        }),
      ),
    ),
  ),
);

export function planByKey(key: string): ChallengePlan | undefined {
  return PLANS.find((p) => p.key === key);
}

export function planFor(size: PlanSize, policy: PayoutPolicy = 'standard', dailyLossMode: DailyLossMode = 'hard'): ChallengePlan {
  const key = planKey(size, policy, dailyLossMode);
  const plan = planByKey(key);
  if (plan === undefined) throw new Error(`no plan ${key}`);
  return plan;
}

/** The plan's position limit in this instrument's own contracts (the engine's maxPositionQty). */
export function maxPositionQtyFor(plan: ChallengePlan, inst: Instrument): number {
  return inst.isMicro ? plan.maxContracts * MICROS_PER_MINI : plan.maxContracts;
}
