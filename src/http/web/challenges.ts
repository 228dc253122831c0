// The web application's view of a user's challenge accounts: what the console's desk and challenges
// page show beside the spec's `propFirm` snapshot (which has only status, phase, trading days and
// lock): both floors, the target, the best day against the consistency limit, and the outcome;
// the plans a user may start an evaluation on, and the start itself (at most
// `userActiveEvaluationsMax` evaluations active per user).
// Money in USD from the engine's cents. Endpoint declared in schemas.ts.

import type { Elysia } from 'elysia';
import { challengeFigures } from '../../challenge/figures.ts';
import { type ChallengePlan, PLANS } from '../../challenge/plans.ts';
import { limits } from '../../config.ts';
import { centsToUsd } from '../../domain/instrument.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { Challenge } from '../../service/challenges.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

const usd = (cents: number | null) => (cents === null ? null : centsToUsd(cents));

function presentChallenge(c: Challenge, liveSession: boolean) {
  const f = challengeFigures(c.state, c.plan);
  const st = c.state;
  return {
    accountId: c.account.id,
    name: c.account.name,
    status: st.status,
    phase: st.phase,
    isFunded: st.phase === 'performance',
    plan: { key: c.plan.key, size: c.plan.size, policy: c.plan.payout.policy, dailyLossMode: c.plan.dailyLossMode },
    startingBalance: centsToUsd(f.startingBalanceCents),
    balance: centsToUsd(f.balanceCents),
    profit: centsToUsd(f.profitCents),
    profitTarget: usd(f.profitTargetCents),
    targetBalance: usd(f.targetBalanceCents),
    trailingFloor: centsToUsd(f.trailingFloorCents),
    drawdownLocked: f.drawdownLocked,
    dailyLossLimit: centsToUsd(f.dailyLossLimitCents),
    dailyLossFloor: usd(f.dailyLossFloorCents),
    effectiveFloor: centsToUsd(f.effectiveFloorCents),
    bestDay: centsToUsd(f.bestDayCents),
    consistencyPct: f.consistencyPct,
    tradingDays: f.tradingDays,
    minTradingDays: f.minTradingDays,
    maxContracts: f.maxContracts,
    pausedForDay: f.pausedForDay,
    liveSession,
    lastSimulatedTime: st.lastSimTimeS === null ? null : isoFromEpochS(st.lastSimTimeS),
    outcome: st.outcome && { kind: st.outcome.kind, rule: st.outcome.rule, message: st.outcome.message, time: isoFromEpochS(st.outcome.timeS), phase: st.outcome.phase },
  };
}

function presentPlan(p: ChallengePlan) {
  const r = p.payout;
  return {
    key: p.key,
    size: p.size,
    policy: r.policy,
    dailyLossMode: p.dailyLossMode,
    startingBalance: centsToUsd(p.startingBalanceCents),
    profitTarget: centsToUsd(p.profitTargetCents),
    maxLossLimit: centsToUsd(p.maxLossLimitCents),
    dailyLossLimit: centsToUsd(p.dailyLossLimitCents),
    maxContracts: p.maxContracts,
    minTradingDays: p.minTradingDays,
    passConsistencyPct: p.passConsistencyPct,
    payout: {
      requiredWinningDays: r.requiredWinningDays,
      winningDayMinProfit: centsToUsd(r.winningDayMinProfitCents),
      minPayout: centsToUsd(r.minPayoutCents),
      maxPayout: centsToUsd(r.maxPayoutCents),
      profitCapPct: r.profitCapPct,
      consistencyPct: r.consistencyPct,
    },
  };
}

export function registerChallenges<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.challengePlans, async ({ user }) => {
    const activeEvaluations = await s.challenges.activeEvaluationCount(user.id);
    return ep.challengePlans.ok({ plans: PLANS.map(presentPlan), activeEvaluations, activeEvaluationsMax: limits.userActiveEvaluationsMax });
  });

  route(app, s, ep.startEvaluation, async ({ body, user }) => {
    const r = await s.challenges.startEvaluation(user.id, body.planKey);
    return r.ok ? ep.startEvaluation.ok({ challenge: presentChallenge(r.value, false) }) : mapError(codes.startEvaluation, r.error);
  });

  route(app, s, ep.challenges, async ({ user }) => {
    const challenges = [];
    for (const c of await s.challenges.listOwned(user.id)) challenges.push(presentChallenge(c, await s.replay.challengeHasLiveSession(c.account.id)));
    return ep.challenges.ok({ challenges });
  });
}
