// Start an evaluation without the admin CLI: pick a plan the server has (size, payout policy,
// daily-loss mode; GET /api/auth/challenge-plans), read its rules, start it (POST
// /api/auth/challenges). The server allows a few evaluations under way per user and says so.

import { useEffect, useState } from 'preact/hooks';
import type { Static } from '@sinclair/typebox';
import type { ChallengePlanInfo, ChallengePlans } from '../../../http/web/shapes.ts';
import { auth } from '../../api.ts';
import type { ChallengeDetail } from '../../challenge.ts';
import { attempt, ErrorLine, LabelledSelect, money } from '../../ui.tsx';

export type PlanInfo = Static<typeof ChallengePlanInfo>;
type Plans = Static<typeof ChallengePlans>;

const SIZES = ['50K', '100K', '150K'] as const;
const POLICIES = [
  { value: 'standard', label: 'Standard' },
  { value: 'consistency', label: 'Consistency' },
];
const DAILY_LOSS_MODES = [
  { value: 'hard', label: 'Hard: a breach fails it' },
  { value: 'soft', label: 'Soft: a breach pauses the day' },
];

export function StartEvaluation({ onStarted, refreshKey }: { onStarted: (accountId: number) => void; refreshKey: number }) {
  const [data, setData] = useState<Plans | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pick, setPick] = useState({ size: '50K', policy: 'standard', dailyLossMode: 'hard' });
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    auth<Plans>('GET', 'challenge-plans').then(setData, (e) => setError(e.message));
  }, [refreshKey]);
  if (!data) return <ErrorLine error={error} />;
  const plan = data.plans.find((p) => p.size === pick.size && p.policy === pick.policy && p.dailyLossMode === pick.dailyLossMode) ?? null;
  const full = data.activeEvaluations >= data.activeEvaluationsMax;
  const start = async () => {
    if (!plan) return;
    setBusy(true);
    const r = await attempt(setError, () => auth<{ challenge: ChallengeDetail }>('POST', 'challenges', { planKey: plan.key }));
    setBusy(false);
    if (r) onStarted(r.challenge.accountId);
  };
  const set = (k: keyof typeof pick) => (value: string) => setPick({ ...pick, [k]: value });
  return (
    <div class="ch-start" data-testid="start-evaluation">
      <h3>Start an evaluation</h3>
      <div class="row">
        <LabelledSelect label="Account size" name="planSize" value={pick.size} choices={SIZES} onPick={set('size')} />
        <LabelledSelect label="Payout policy" name="planPolicy" value={pick.policy} choices={POLICIES} onPick={set('policy')} />
        <LabelledSelect label="Daily loss" name="planDailyLoss" value={pick.dailyLossMode} choices={DAILY_LOSS_MODES} onPick={set('dailyLossMode')} />
        <button type="button" class="primary" disabled={!plan || busy || full} onClick={start} data-testid="start-evaluation-button">
          {busy ? 'Starting…' : 'Start evaluation'}
        </button>
      </div>
      {plan && <PlanRules p={plan} />}
      <p class={`small ${full ? 'warn' : 'muted'}`} data-testid="evaluations-under-way">
        {data.activeEvaluations} of {data.activeEvaluationsMax} evaluations under way
        {full ? ': one must pass, fail or be ended before another starts.' : '.'}
      </p>
      <ErrorLine error={error} />
    </div>
  );
}

function PlanRules({ p }: { p: PlanInfo }) {
  return (
    <dl class="ch-plan-rules" data-testid="plan-rules">
      <dt>Starting balance</dt>
      <dd class="mono">{money(p.startingBalance)}</dd>
      <dt>Profit target</dt>
      <dd class="mono">{money(p.profitTarget)}</dd>
      <dt>Maximum loss (trailing)</dt>
      <dd class="mono">{money(p.maxLossLimit)}</dd>
      <dt>Daily loss limit</dt>
      <dd class="mono">{money(p.dailyLossLimit)}</dd>
      <dt>Contracts at most</dt>
      <dd class="mono">{p.maxContracts} minis</dd>
      <dt>Trading days at least</dt>
      <dd class="mono">{p.minTradingDays}</dd>
      <dt>Best day under</dt>
      <dd class="mono">{p.passConsistencyPct}% of profit</dd>
      <dt>Payouts</dt>
      <dd class="mono">
        {money(p.payout.minPayout)}–{money(p.payout.maxPayout)} after {p.payout.requiredWinningDays} winning days
      </dd>
    </dl>
  );
}
