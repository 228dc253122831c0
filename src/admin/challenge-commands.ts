// `challenge create | show | end`.

import { eligibility, isPayoutPhase } from '../challenge/payout.ts';
import { type DailyLossMode, PLANS, type PayoutPolicy, type PlanSize } from '../challenge/plans.ts';
import { type ChallengePhase, snapshotOf } from '../challenge/state.ts';
import { tradeDateString } from '../domain/trading-hours.ts';
import { centsToUsd } from '../domain/instrument.ts';
import { isoFromEpochS } from '../lib/iso-time.ts';
import type { Challenge } from '../service/challenges.ts';
import type { Services } from '../service/services.ts';
import { str, UsageError, type ParsedArgs } from './args.ts';

export const SIZES: readonly PlanSize[] = ['50K', '100K', '150K'];

function oneOf<T extends string>(a: ParsedArgs, name: string, values: readonly T[], dflt: T): T {
  const v = str(a, name) ?? dflt;
  if (!values.includes(v as T)) throw new UsageError(`--${name} must be one of ${values.join(', ')}`);
  return v as T;
}

function accountArg(a: ParsedArgs): number {
  const v = Number(str(a, 'account', true));
  if (!Number.isInteger(v) || v < 1) throw new UsageError('--account must be an account id');
  return v;
}

/** Everything about a challenge, money in USD. */
function present(c: Challenge) {
  const st = c.state;
  const p = c.plan;
  return {
    accountId: c.account.id,
    userId: c.account.userId,
    name: c.account.name,
    plan: { key: p.key, size: p.size, policy: p.payout.policy, profitTarget: centsToUsd(p.profitTargetCents), maxLossLimit: centsToUsd(p.maxLossLimitCents), dailyLossLimit: centsToUsd(p.dailyLossLimitCents), dailyLossMode: p.dailyLossMode, maxContracts: p.maxContracts, minTradingDays: p.minTradingDays },
    propFirm: snapshotOf(st),
    balance: centsToUsd(st.balanceCents),
    startingBalance: centsToUsd(st.startingBalanceCents),
    floor: centsToUsd(st.floorCents),
    highestEodBalance: centsToUsd(st.highestEodBalanceCents),
    currentTradeDate: st.currentTradeDate === null ? null : tradeDateString(st.currentTradeDate),
    lastSimulatedTime: st.lastSimTimeS === null ? null : isoFromEpochS(st.lastSimTimeS),
    days: st.days.map((d) => ({ tradeDate: tradeDateString(d.tradeDate), fills: d.fillCount, closedPnl: centsToUsd(d.closedPnlCents), windowPnl: centsToUsd(d.windowPnlCents) })),
    softBreachTradeDate: st.softBreachTradeDate === null ? null : tradeDateString(st.softBreachTradeDate),
    payouts: { count: st.payoutCount, total: centsToUsd(st.payoutsTotalCents), windowStartDate: st.payoutWindowStartDate === null ? null : tradeDateString(st.payoutWindowStartDate) },
    outcome: st.outcome && { kind: st.outcome.kind, rule: st.outcome.rule, message: st.outcome.message, time: isoFromEpochS(st.outcome.timeS), phase: st.outcome.phase },
    payoutEligibility: isPayoutPhase(st) ? eligibility(st, p, st.currentTradeDate ?? 0) : null,
  };
}

export async function challengeCommand(s: Services, sub: string | undefined, a: ParsedArgs): Promise<object> {
  switch (sub) {
    case 'create': {
      const email = str(a, 'email', true);
      const user = (await s.users.list()).find((u) => u.email === email.trim().toLowerCase());
      if (!user) throw new UsageError('no user with this email');
      const size = oneOf(a, 'plan', SIZES, '50K');
      if (!a.flags.has('plan')) throw new UsageError(`--plan is required (one of ${SIZES.join(', ')})`);
      const phase = oneOf<ChallengePhase>(a, 'phase', ['evaluation', 'performance'], 'evaluation');
      const policy = oneOf<PayoutPolicy>(a, 'policy', ['standard', 'consistency'], 'standard');
      const dailyLoss = oneOf<DailyLossMode>(a, 'daily-loss', ['hard', 'soft'], 'hard');
      return present(await s.challenges.create(user.id, size, phase, policy, dailyLoss));
    }
    case 'show': {
      const c = await s.challenges.byId(accountArg(a));
      if (!c) throw new UsageError('no challenge account with this id');
      return present(c);
    }
    case 'end': {
      const id = accountArg(a);
      if (await s.replay.challengeHasLiveSession(id)) throw new UsageError('the challenge has a live replay session; end it first');
      if (!await s.challenges.end(id)) throw new UsageError('no challenge account with this id');
      return present((await s.challenges.byId(id))!);
    }
    case 'plans':
      return { plans: PLANS.map((p) => ({ key: p.key, size: p.size, policy: p.payout.policy, dailyLossMode: p.dailyLossMode, startingBalance: centsToUsd(p.startingBalanceCents) })) };
    default:
      throw new UsageError(`unknown challenge command ${JSON.stringify(sub ?? '')}; expected create, show, end or plans`);
  }
}
