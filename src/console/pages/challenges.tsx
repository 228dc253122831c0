// Challenges & payouts: the user's challenge accounts with their status, phase and rule figures
// (GET /api/auth/challenges); for the selected one, the outcome that closed it, payout eligibility
// with its reasons and figures, a payout request, and the history (the current-family endpoints a
// bot calls; ./challenges/data.ts).

import { useEffect, useState } from 'preact/hooks';
import { cap, type ChallengeDetail, outcomeText, PHASE_LABEL, STATUS_LABEL } from '../challenge.ts';
import type { PageProps } from './page-props.ts';
import { ErrorLine, money, signClass, Stat, THead, utc } from '../ui.tsx';
import { type ChallengeView, loadChallenge, loadDetails } from './challenges/data.ts';
import { RuleFigures } from './challenges/figures.tsx';
import { EligibilityPanel, PayoutHistory, RequestPayout } from './challenges/payouts.tsx';
import { PhaseTrack } from './challenges/phases.tsx';
import { StartEvaluation } from './challenges/start-evaluation.tsx';
import './challenges.css';
import { zoneLabel } from '../time-format.ts';

function StatusBadge({ d }: { d: ChallengeDetail }) {
  return (
    <span class={`ch-badge ch-${d.status}`} data-testid="challenge-status" title={outcomeText(d) ?? 'Open: it takes orders in a replay session'}>
      {STATUS_LABEL[d.status] ?? cap(d.status)}
    </span>
  );
}

function PhaseBadge({ d }: { d: ChallengeDetail }) {
  return (
    <span class={`ch-phase ch-phase-${d.phase}`} data-testid="challenge-phase">
      {PHASE_LABEL[d.phase] ?? cap(d.phase)}
    </span>
  );
}

export function ChallengesPage(_: PageProps) {
  const [views, setViews] = useState<ChallengeView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [started, setStarted] = useState(0);

  const load = async () => {
    setError(null);
    try {
      const details = await loadDetails();
      const vs = await Promise.all(details.map(loadChallenge));
      setViews(vs);
      setSelected((s) => (s !== null && vs.some((v) => v.detail.accountId === s) ? s : (vs[0]?.detail.accountId ?? null)));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setViews((v) => v ?? []);
    }
  };

  useEffect(() => {
    load();
  }, []);

  const refreshOne = async (id: number) => {
    try {
      // Balance and figures change with a payout: read the account again.
      const detail = (await loadDetails()).find((d) => d.accountId === id);
      if (!detail) return;
      const fresh = await loadChallenge(detail);
      setViews((vs) => vs?.map((x) => (x.detail.accountId === id ? fresh : x)) ?? vs);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  const current = views?.find((v) => v.detail.accountId === selected) ?? null;

  return (
    <div class="ch">
      <section class="card ch-list">
        <div class="ch-list-head">
          <h2>Challenge accounts</h2>
          <button type="button" class="small ghost" onClick={load} title="Read the accounts again">
            ↻ Refresh
          </button>
        </div>
        <ErrorLine error={error} />
        {views === null ? (
          <p class="empty">Loading challenge accounts…</p>
        ) : views.length === 0 ? (
          <div class="empty ch-empty" data-testid="challenges-empty">
            <p>You have no challenge accounts yet: start an evaluation below, then trade it from the <a href="#/desk">Replay desk</a>.</p>
          </div>
        ) : (
          <table data-testid="challenge-accounts">
            <THead columns={['Account', 'Plan', 'Status', 'Phase', { num: 'Balance' }]} />
            <tbody>
              {views.map(({ detail: d }) => (
                <tr
                  key={d.accountId}
                  class={`ch-row ${d.accountId === selected ? 'selected' : ''}`}
                  data-account-id={d.accountId}
                  onClick={() => setSelected(d.accountId)}
                >
                  <td class="mono">
                    {d.name}
                    {d.liveSession && (
                      <span class="ch-live" title="A replay session is open on this account">
                        live
                      </span>
                    )}
                  </td>
                  <td>{d.plan.size}</td>
                  <td>
                    <StatusBadge d={d} />
                  </td>
                  <td>
                    <PhaseBadge d={d} />
                  </td>
                  <td class="num">{money(d.balance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <StartEvaluation
          refreshKey={started}
          onStarted={async (id) => {
            await load();
            setSelected(id);
            setStarted((n) => n + 1);
          }}
        />
        <HowChallengesGo />
      </section>

      {current && <DetailPanel key={current.detail.accountId} view={current} onChanged={() => refreshOne(current.detail.accountId)} />}
    </div>
  );
}

/** The rules of the road, under the list. */
function HowChallengesGo() {
  return (
    <div class="ch-how">
      <h3>How a challenge goes</h3>
      <ol>
        <li>
          <b>Evaluation</b>: reach the profit target without touching the maximum-loss floor (it trails your best end-of-day balance) or the daily-loss
          limit, over the minimum number of trading days, with no day above the consistency share of the profit.
        </li>
        <li>
          <b>Performance (funded)</b>: the next replay you start on a passed account opens this phase with the balance back at the account size; the same
          loss rules apply.
        </li>
        <li>
          <b>Payouts</b>: after enough winning days since the phase began or the last payout, withdraw up to half of the profit made since then.
        </li>
      </ol>
      <p class="muted">A violation closes the challenge; so does ending it. Violated and ended challenges take no more orders.</p>
    </div>
  );
}

function DetailPanel({ view, onChanged }: { view: ChallengeView; onChanged: () => void }) {
  const d = view.detail;
  const note = outcomeText(d);
  return (
    <section class="ch-detail" data-testid="challenge-detail" data-account-id={d.accountId}>
      <div class="card ch-summary">
        <div class="ch-title">
          <h2 class="mono">{d.name}</h2>
          <StatusBadge d={d} />
          <PhaseBadge d={d} />
        </div>
        <PhaseTrack d={d} />
        {note && (
          <div class={`ch-outcome ch-outcome-${d.status}`} data-testid="challenge-outcome">
            <p>{note}</p>
            {d.outcome && <p class="mono small muted">at {utc(d.outcome.time)} · {PHASE_LABEL[d.outcome.phase] ?? d.outcome.phase} phase</p>}
          </div>
        )}
        <div class="stats ch-figs">
          <Stat label="Balance" value={money(d.balance)} testid="challenge-balance" />
          <Stat label="Profit this phase" value={money(d.profit)} cls={signClass(d.profit)} testid="challenge-profit" />
          <Stat
            label="Plan"
            value={
              <>
                {d.plan.size} <span class="muted ch-plan">{d.plan.policy}</span>
              </>
            }
          />
        </div>
        <RuleFigures d={d} />
        <NextStep d={d} />
      </div>

      <div class="card">
        <h3>Payout eligibility</h3>
        {view.eligibility ? (
          <EligibilityPanel e={view.eligibility} />
        ) : (
          <div class="ch-not-phase" data-testid="eligibility-note">
            <p>{view.eligibilityNote}</p>
            {d.phase === 'evaluation' && d.status === 'active' && (
              <p class="muted">
                Payouts open in the performance phase: reach the profit target within the loss limits to pass the evaluation; the next replay started on the
                account opens the performance phase.
              </p>
            )}
          </div>
        )}
      </div>

      {view.eligibility && <RequestPayout accountId={d.accountId} e={view.eligibility} onDone={onChanged} />}

      <div class="card">
        <h3>Payout history</h3>
        <ErrorLine error={view.payoutsError} />
        {view.payouts && <PayoutHistory payouts={view.payouts} />}
      </div>
    </section>
  );
}

/** What to do next with the account, in words. */
function NextStep({ d }: { d: ChallengeDetail }) {
  if (d.status === 'ended') return null;
  return (
    <p class="muted ch-hint">
      {d.status === 'active' ? (
        <>
          {d.liveSession ? 'A replay session is open on it: continue' : 'Trade it'} in the <a href="#/desk">Replay desk</a> (pick it as the account when you
          start a replay); the rule state follows each bar there.
          {d.lastSimulatedTime && <> Last simulated time {utc(d.lastSimulatedTime)} {zoneLabel()}; the next session starts after it.</>}
        </>
      ) : d.status === 'passed' ? (
        <>
          Start a replay on it in the <a href="#/desk">Replay desk</a> to open the performance phase.
        </>
      ) : (
        <>This challenge is over and takes no more orders.</>
      )}
    </p>
  );
}
