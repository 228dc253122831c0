// How the challenges page draws its figures: one rule figure (label, value, a note, met or not, the
// effective floor marked) and the account's rule state from GET /api/auth/challenges.

import { type ChallengeDetail, consistencyLimit, effectiveFloorKind } from '../../challenge.ts';
import { money, signClass } from '../../ui.tsx';

/** The rule state: both floors (the effective one marked), the target, best day, trading days. */
export function RuleFigures({ d }: { d: ChallengeDetail }) {
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

export function Rule({ label, value, sub, ok, cls, id, eff }: { label: string; value: string; sub?: string; ok?: boolean; cls?: string; id: string; eff?: boolean }) {
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
