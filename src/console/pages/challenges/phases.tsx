// A challenge's phases as a track: evaluation, then performance (funded), then payouts, each
// marked done, current, failed or ahead from the account's status and phase (GET /api/auth/challenges).

import type { ChallengeDetail } from '../../challenge.ts';
import { money } from '../../ui.tsx';

type StepState = 'done' | 'current' | 'failed' | 'ahead' | 'closed';

interface Step {
  id: 'evaluation' | 'performance' | 'payouts';
  title: string;
  state: StepState;
  rule: string;
}

/** The three steps of a challenge and where the account stands on them. */
export function phaseSteps(d: ChallengeDetail): Step[] {
  const over = d.status === 'violated' || d.status === 'ended';
  const inEval = d.phase === 'evaluation';
  const evaluation: StepState = inEval ? (d.status === 'active' ? 'current' : d.status === 'passed' ? 'done' : d.status === 'violated' ? 'failed' : 'closed') : 'done';
  const performance: StepState = inEval ? (over ? 'closed' : 'ahead') : d.status === 'active' ? 'current' : d.status === 'violated' ? 'failed' : 'closed';
  const payouts: StepState = !inEval && d.status === 'active' ? 'current' : over ? 'closed' : 'ahead';
  const target = d.profitTarget ?? 0;
  return [
    { id: 'evaluation', title: 'Evaluation', state: evaluation, rule: `Make ${money(target || null)} over at least ${d.minTradingDays} trading days` },
    { id: 'performance', title: 'Performance (funded)', state: performance, rule: 'Trade a fresh balance under the same loss rules' },
    { id: 'payouts', title: 'Payouts', state: payouts, rule: 'Withdraw part of the profit after enough winning days' },
  ];
}

const MARK: Record<StepState, string> = { done: '✓', current: '●', failed: '✕', ahead: '○', closed: '–' };
const WORD: Record<StepState, string> = { done: 'done', current: 'now', failed: 'failed', ahead: 'ahead', closed: 'closed' };

export function PhaseTrack({ d }: { d: ChallengeDetail }) {
  return (
    <ol class="ch-phases" data-testid="challenge-phases">
      {phaseSteps(d).map((s) => (
        <li key={s.id} class={`ch-step ch-step-${s.state}`} data-step={s.id} data-state={s.state}>
          <span class="ch-step-mark" aria-hidden="true">
            {MARK[s.state]}
          </span>
          <span class="ch-step-text">
            <b>{s.title}</b> <span class="ch-step-word">{WORD[s.state]}</span>
            <span class="muted small">{s.rule}</span>
          </span>
        </li>
      ))}
    </ol>
  );
}
