// Challenges & payouts: the user's challenge accounts with their status and phase; for the
// selected one, payout eligibility with its reasons and figures, a payout request, and the history.
// The same current-family endpoints a bot calls (./challenges/data.ts).

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../main.tsx';
import { ErrorLine, money, signClass, utc } from '../ui.tsx';
import { type ChallengeView, type Eligibility, loadAccounts, loadChallenge, type Payout, requestPayout } from './challenges/data.ts';
import './challenges.css';

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function StatusBadge({ view }: { view: ChallengeView }) {
  return view.status === 'active' ? (
    <span class="ch-badge ch-ok" data-testid="challenge-status">
      Active
    </span>
  ) : (
    <span class="ch-badge ch-closed" data-testid="challenge-status" title="Passed, violated or ended: it takes no more orders">
      Closed
    </span>
  );
}

function PhaseBadge({ view }: { view: ChallengeView }) {
  if (!view.phase) return <span class="ch-phase muted" data-testid="challenge-phase">—</span>;
  return (
    <span class={`ch-phase ch-phase-${view.phase}`} data-testid="challenge-phase">
      {view.phase === 'performance' ? 'Performance (funded)' : 'Evaluation'}
    </span>
  );
}

export function ChallengesPage(_: PageProps) {
  const [views, setViews] = useState<ChallengeView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);

  const load = async () => {
    setError(null);
    try {
      const accounts = await loadAccounts();
      const vs = await Promise.all(accounts.map(loadChallenge));
      setViews(vs);
      setSelected((s) => (s !== null && vs.some((v) => v.account.id === s) ? s : (vs[0]?.account.id ?? null)));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setViews((v) => v ?? []);
    }
  };

  useEffect(() => {
    load();
  }, []);

  const refreshOne = async (id: number) => {
    const v = views?.find((x) => x.account.id === id);
    if (!v) return;
    try {
      // Balance changes with a payout: read the account again.
      const accounts = await loadAccounts();
      const account = accounts.find((a) => a.id === id) ?? v.account;
      const fresh = await loadChallenge(account);
      setViews((vs) => vs?.map((x) => (x.account.id === id ? fresh : x)) ?? vs);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  const current = views?.find((v) => v.account.id === selected) ?? null;

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
            <p>You have no challenge accounts yet.</p>
            <p>
              An administrator creates one with <code>npm run admin -- challenge create --email you@example.com --plan 50K</code> (plans 50K, 100K, 150K;{' '}
              <code>--phase performance</code> for a funded account). Trade it from the <a href="#/desk">Replay desk</a>.
            </p>
          </div>
        ) : (
          <table data-testid="challenge-accounts">
            <thead>
              <tr>
                <th>Account</th>
                <th>Plan</th>
                <th>Status</th>
                <th>Phase</th>
                <th class="num">Balance</th>
              </tr>
            </thead>
            <tbody>
              {views.map((v) => (
                <tr
                  key={v.account.id}
                  class={`ch-row ${v.account.id === selected ? 'selected' : ''}`}
                  data-account-id={v.account.id}
                  onClick={() => setSelected(v.account.id)}
                >
                  <td class="mono">{v.account.name}</td>
                  <td>{v.size ?? '—'}</td>
                  <td>
                    <StatusBadge view={v} />
                  </td>
                  <td>
                    <PhaseBadge view={v} />
                  </td>
                  <td class="num">{money(v.account.balance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div class="ch-how">
          <h3>How a challenge goes</h3>
          <ol>
            <li>
              <b>Evaluation</b>: reach the profit target without touching the maximum-loss floor (it trails your best end-of-day equity) or the daily-loss
              limit, over the minimum number of trading days.
            </li>
            <li>
              <b>Performance (funded)</b>: the next replay you start on a passed account opens this phase with the balance back at the account size; the same
              loss rules apply.
            </li>
            <li>
              <b>Payouts</b>: after enough winning days since the phase began or the last payout, withdraw up to half of the profit made since then.
            </li>
          </ol>
          <p class="muted">A violation closes the challenge; so does ending it. Closed challenges take no orders.</p>
        </div>
      </section>

      {current && <ChallengeDetail key={current.account.id} view={current} onChanged={() => refreshOne(current.account.id)} />}
    </div>
  );
}

function ChallengeDetail({ view, onChanged }: { view: ChallengeView; onChanged: () => void }) {
  const a = view.account;
  return (
    <section class="ch-detail" data-testid="challenge-detail" data-account-id={a.id}>
      <div class="card ch-summary">
        <div class="ch-title">
          <h2 class="mono">{a.name}</h2>
          <StatusBadge view={view} />
          <PhaseBadge view={view} />
        </div>
        <div class="stats ch-figs">
          <div class="stat">
            <div class="label">Balance</div>
            <div class="value" data-testid="challenge-balance">
              {money(a.balance)}
            </div>
          </div>
          <div class="stat">
            <div class="label">Account size</div>
            <div class="value">{view.size ?? '—'}</div>
          </div>
          <div class="stat">
            <div class="label">May trade</div>
            <div class="value">{a.canTrade ? 'Yes' : 'No'}</div>
          </div>
        </div>
        <p class="muted ch-hint">
          {view.status === 'active' ? (
            <>
              Trade it in the <a href="#/desk">Replay desk</a> (pick it as the account when you start a replay); the rule state shows there as you trade.
            </>
          ) : (
            <>This challenge is over (passed, violated or ended) and takes no more orders.</>
          )}
        </p>
      </div>

      <div class="card">
        <h3>Payout eligibility</h3>
        {view.eligibility ? (
          <EligibilityPanel e={view.eligibility} />
        ) : (
          <div class="ch-not-phase" data-testid="eligibility-note">
            <p>{view.eligibilityNote}</p>
            {view.phase === 'evaluation' && (
              <p class="muted">
                Payouts open in the performance phase: reach the profit target within the loss limits to pass the evaluation; the next replay started on the
                account opens the performance phase.
              </p>
            )}
          </div>
        )}
      </div>

      {view.eligibility && <RequestPayout accountId={a.id} e={view.eligibility} onDone={onChanged} />}

      <div class="card">
        <h3>Payout history</h3>
        <ErrorLine error={view.payoutsError} />
        {view.payouts && <PayoutHistory payouts={view.payouts} />}
      </div>
    </section>
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

function Rule({ label, value, sub, ok, cls, id }: { label: string; value: string; sub?: string; ok?: boolean; cls?: string; id: string }) {
  return (
    <div class={`ch-rule ${ok === undefined ? '' : ok ? 'met' : 'unmet'}`} data-testid={`rule-${id}`}>
      <div class="label">
        {ok !== undefined && <span class="ch-tick">{ok ? '✓' : '✗'}</span>}
        {label}
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
            placeholder={e.eligible ? `${e.minPayout} – ${e.maxPayout}` : 'not eligible yet'}
            onInput={(x) => setAmount(x.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Requesting…' : 'Request payout'}
        </button>
      </div>
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
      <thead>
        <tr>
          <th>Requested (UTC)</th>
          <th>Simulated date</th>
          <th>Status</th>
          <th class="num">Amount</th>
          <th class="num">Balance before</th>
          <th class="num">Balance after</th>
        </tr>
      </thead>
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
