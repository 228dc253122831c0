// Challenges & payouts: the user's challenge accounts with their status, phase and rule figures
// (GET /api/auth/challenges); for the selected one, the outcome that closed it, payout eligibility
// with its reasons and figures, a payout request, and the history (the current-family endpoints a
// bot calls; ./challenges/data.ts).

import { useEffect, useState } from 'preact/hooks';
import { type ChallengeDetail, consistencyLimit, effectiveFloorKind, outcomeText, PHASE_LABEL, STATUS_LABEL } from '../challenge.ts';
import type { PageProps } from './page-props.ts';
import { ErrorLine, money, signClass, Stat, THead, utc } from '../ui.tsx';
import { type ChallengeView, type Eligibility, loadChallenge, loadDetails, type Payout, requestPayout } from './challenges/data.ts';
import { PhaseTrack } from './challenges/phases.tsx';
import { StartEvaluation } from './challenges/start-evaluation.tsx';
import './challenges.css';
import { zoneLabel } from '../time-format.ts';

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

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

/** The rule state: both floors (the effective one marked), the target, best day, trading days. */
function RuleFigures({ d }: { d: ChallengeDetail }) {
  const kind = effectiveFloorKind(d);
  const limit = consistencyLimit(d);
  const room = d.balance - d.effectiveFloor;
  const targetPct = d.profitTarget ? Math.max(0, Math.min(100, (100 * d.profit) / d.profitTarget)) : 0;
  return (
    <div class="ch-rules ch-state" data-testid="rule-state">
      <Rule
        label="Trailing floor"
        value={money(d.trailingFloor)}
        sub={d.drawdownLocked ? 'locked' : 'trails the best end-of-day balance'}
        eff={kind !== 'daily'}
        id="trailing-floor"
      />
      <Rule
        label="Daily-loss floor"
        value={d.dailyLossFloor === null ? '—' : money(d.dailyLossFloor)}
        sub={d.dailyLossFloor === null ? (d.pausedForDay ? 'paused until the next trade date' : `${money(d.dailyLossLimit)} under the day's start`) : `today: day start − ${money(d.dailyLossLimit)}`}
        eff={kind === 'daily' || kind === 'both'}
        id="daily-loss-floor"
      />
      <Rule label="Room to floor" value={money(room)} sub="balance − effective floor" cls={room <= 0 ? 'neg' : ''} id="floor-room" />
      {d.profitTarget !== null ? (
        <div class={`ch-rule ${d.profit >= d.profitTarget ? 'met' : ''}`} data-testid="rule-target">
          <div class="label">Profit target</div>
          <div class="value mono">
            <span class={signClass(d.profit)}>{money(d.profit)}</span> <span class="muted">/</span> {money(d.profitTarget)}
          </div>
          <div class="progress ch-target-bar" title={`Target balance ${money(d.targetBalance)}`}>
            <div style={{ width: `${targetPct}%` }} />
          </div>
        </div>
      ) : (
        <Rule label="Profit target" value="—" sub="none in the performance phase" id="target" />
      )}
      <Rule
        label="Best day"
        value={money(d.bestDay)}
        sub={limit === null ? `must stay below ${d.consistencyPct}% of profit` : `limit ${money(limit)} (${d.consistencyPct}% of profit)`}
        ok={limit === null || d.phase !== 'evaluation' ? undefined : d.bestDay < limit}
        id="best-day"
      />
      <Rule label="Trading days" value={`${d.tradingDays} / ${d.minTradingDays}`} sub={`max ${d.maxContracts} contracts`} ok={d.phase === 'evaluation' ? d.tradingDays >= d.minTradingDays : undefined} id="trading-days" />
    </div>
  );
}

function EligibilityPanel({ e }: { e: Eligibility }) {
  return (
    <div data-testid="eligibility">
      <p class={`ch-verdict ${e.eligible ? 'pos' : 'warn'}`} data-testid="eligibility-status">
        {e.eligible ? 'Eligible for a payout' : 'Not eligible yet'}
      </p>
      {e.reasons.length > 0 && (
        <ul class="ch-reasons" data-testid="eligibility-reasons">
          {e.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      <div class="ch-rules">
        <Rule label="Winning days" value={`${e.winningDays} / ${e.requiredWinningDays}`} sub={`each at least ${money(e.winningDayMinProfit)} closed profit`} ok={e.winningDays >= e.requiredWinningDays} id="winning-days" />
        <Rule label="Net profit since last payout" value={money(e.netProfitSincePayout)} cls={signClass(e.netProfitSincePayout)} ok={e.netProfitSincePayout > 0} id="net-profit" />
        <Rule label="Payout range" value={e.maxPayout >= e.minPayout ? `${money(e.minPayout)} – ${money(e.maxPayout)}` : `min ${money(e.minPayout)}`} sub="capped at 50% of the profit" ok={e.maxPayout >= e.minPayout} id="range" />
        <Rule label="Total funded profits" value={money(e.totalFundedProfits)} cls={signClass(e.totalFundedProfits)} id="funded-profits" />
        {e.consistencyPct !== null && (
          <Rule label="Consistency" value={`best day ≤ ${e.consistencyPct}%`} sub={`largest day allowed ${money(e.consistencyLimit)}`} id="consistency" />
        )}
        <Rule label="Window since" value={e.windowStartDate ?? 'phase start'} id="window" />
      </div>
    </div>
  );
}

function Rule({ label, value, sub, ok, cls, id, eff }: { label: string; value: string; sub?: string; ok?: boolean; cls?: string; id: string; eff?: boolean }) {
  return (
    <div class={`ch-rule ${ok === undefined ? '' : ok ? 'met' : 'unmet'} ${eff ? 'eff' : ''}`} data-testid={`rule-${id}`}>
      <div class="label">
        {ok !== undefined && <span class="ch-tick">{ok ? '✓' : '✗'}</span>}
        {label}
        {eff && <span class="ch-eff">effective</span>}
      </div>
      <div class={`value mono ${cls ?? ''}`}>{value}</div>
      {sub && <div class="sub">{sub}</div>}
    </div>
  );
}

function RequestPayout({ accountId, e, onDone }: { accountId: number; e: Eligibility; onDone: () => void }) {
  const [amount, setAmount] = useState(e.eligible ? String(e.maxPayout) : '');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    setDone(null);
    const v = Number(amount);
    if (amount.trim() === '' || !Number.isFinite(v) || v <= 0) {
      setError('Enter a positive amount in USD');
      return;
    }
    setBusy(true);
    try {
      const id = await requestPayout(accountId, v);
      setDone(`Payout ${id} of ${money(v)} completed`);
      onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card ch-request" onSubmit={submit} data-testid="payout-form">
      <h3>Request a payout</h3>
      <div class="row">
        <label>
          Amount (USD)
          <input
            type="number"
            name="amount"
            min={e.minPayout}
            max={e.maxPayout > 0 ? e.maxPayout : undefined}
            step="0.01"
            value={amount}
            disabled={!e.eligible}
            placeholder={e.eligible ? `${e.minPayout} – ${e.maxPayout}` : 'not eligible yet'}
            onInput={(x) => setAmount(x.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy || !e.eligible} title={e.eligible ? undefined : 'Not eligible yet: see the reasons above'}>
          {busy ? 'Requesting…' : 'Request payout'}
        </button>
      </div>
      {!e.eligible && (
        <p class="muted small" data-testid="payout-closed">
          Requests open once the account is eligible (the reasons above).
        </p>
      )}
      {error && (
        <p class="error" role="alert" data-testid="payout-error">
          {error}
        </p>
      )}
      {done && (
        <p class="pos" data-testid="payout-done">
          {done}
        </p>
      )}
      <p class="muted ch-hint">The amount leaves the account balance at once; the trailing floor locks at the starting balance after a payout.</p>
    </form>
  );
}

function PayoutHistory({ payouts }: { payouts: Payout[] }) {
  if (payouts.length === 0) return <p class="empty" data-testid="payouts-empty">No payouts yet.</p>;
  return (
    <table data-testid="payout-history">
      <THead columns={[`Requested (${zoneLabel()})`, 'Simulated date', 'Status', { num: 'Amount' }, { num: 'Balance before' }, { num: 'Balance after' }]} />
      <tbody>
        {payouts.map((p) => (
          <tr key={p.id} title={p.id}>
            <td class="mono">{utc(p.requestedAt)}</td>
            <td class="mono">{p.simulatedDate ?? '—'}</td>
            <td>{cap(p.status)}</td>
            <td class="num">{money(p.amount)}</td>
            <td class="num">{money(p.balanceBefore)}</td>
            <td class="num">{money(p.balanceAfter)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
