// Payouts of a challenge account in the performance phase: its eligibility with the reasons and
// figures (Payout/eligibility), a payout request, and the history (Payout/history; ./data.ts).

import { useState } from 'preact/hooks';
import { money, signClass, THead, utc } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import { type Eligibility, type Payout, requestPayout } from './data.ts';
import { cap } from '../../challenge.ts';
import { Rule } from './figures.tsx';

export function EligibilityPanel({ e }: { e: Eligibility }) {
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

export function RequestPayout({ accountId, e, onDone }: { accountId: number; e: Eligibility; onDone: () => void }) {
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

export function PayoutHistory({ payouts }: { payouts: Payout[] }) {
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
