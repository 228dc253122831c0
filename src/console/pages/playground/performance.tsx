// A run's performance figures beside its trade statistics: the daily-return ratios (Sharpe, Sortino,
// Calmar), CAGR, exposure, expectancy, durations, the buy-and-hold benchmark over the same span, and
// the monthly returns as a year-by-month table. The server computes every figure (their formulas:
// the reference's Statistics section, docs/playground.md); this only lays them out.

import { money, signClass, Stat } from '../../ui.tsx';
import type { Execution } from './types.ts';

type Results = Execution['results'];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const ratio = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(2));
export const signedPct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(2)}%`);

/** Seconds as the largest two units: `45s`, `12m 5s`, `3h 20m`, `2d 4h`. */
export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined) return '—';
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}

export function PerformanceStats({ r, onFormulas }: { r: Results; onFormulas: () => void }) {
  const b = r.buyAndHold;
  return (
    <div class="card pg-perf" data-testid="performance">
      <div class="pg-chart-head">
        <span>Performance</span>
        <button type="button" class="small ghost" onClick={onFormulas} data-testid="performance-formulas" title="How each figure is computed">
          Formulas
        </button>
      </div>
      <div class="pg-stats">
        <Stat testid="stat-sharpe" label="Sharpe (daily, ann.)" value={ratio(r.sharpeRatio)} />
        <Stat testid="stat-sortino" label="Sortino (daily, ann.)" value={ratio(r.sortinoRatio)} />
        <Stat testid="stat-calmar" label="Calmar" value={ratio(r.calmarRatio)} />
        <Stat testid="stat-cagr" label="CAGR" value={signedPct(r.cagrPct)} cls={signClass(r.cagrPct)} />
        <Stat testid="stat-exposure" label="Exposure" value={r.exposurePct === null ? '—' : `${r.exposurePct.toFixed(2)}%`} />
        <Stat testid="stat-expectancy" label="Expectancy / trade" value={money(r.expectancy)} cls={signClass(r.expectancy)} />
        <Stat testid="stat-avg-duration" label="Avg trade duration" value={duration(r.averageTradeDurationS)} />
        <Stat testid="stat-longest-dd" label="Longest drawdown" value={duration(r.longestDrawdownS)} />
      </div>
      {b && (
        <p class="pg-benchmark" data-testid="benchmark">
          <span class="muted">Buy and hold, 1 contract</span>{' '}
          <span class="mono">{b.entryPrice} → {b.exitPrice}</span>{' '}
          <span class={`mono ${signClass(b.pnl)}`} data-testid="benchmark-pnl">{money(b.pnl)}</span>{' '}
          <span class={`mono ${signClass(b.returnPct)}`} data-testid="benchmark-return">{signedPct(b.returnPct)}</span>{' '}
          <span class="muted">of the balance; the strategy</span>{' '}
          <span class={`mono ${signClass(r.returnPct)}`}>{signedPct(r.returnPct)}</span>
        </p>
      )}
      {r.monthlyReturns.length > 0 && <MonthlyReturns months={r.monthlyReturns} />}
    </div>
  );
}

/** Years down, months across, and each year's compounded return; an empty cell for a month without a trade date. */
function MonthlyReturns({ months }: { months: Results['monthlyReturns'] }) {
  const byYear = new Map<string, (number | null)[]>();
  for (const m of months) {
    const [y, mm] = m.month.split('-');
    const row = byYear.get(y!) ?? Array<number | null>(12).fill(null);
    row[Number(mm) - 1] = m.returnPct;
    byYear.set(y!, row);
  }
  return (
    <div class="pg-table-wrap pg-months">
      <table data-testid="monthly-returns">
        <thead>
          <tr>
            <th>Year</th>
            {MONTHS.map((m) => <th key={m} class="num">{m}</th>)}
            <th class="num">Year</th>
          </tr>
        </thead>
        <tbody>
          {[...byYear].map(([y, row]) => {
            const year = (row.reduce<number>((g, v) => g * (1 + (v ?? 0) / 100), 1) - 1) * 100;
            return (
              <tr key={y}>
                <th>{y}</th>
                {row.map((v, i) => <td key={i} class={`num ${signClass(v)}`} data-month={`${y}-${String(i + 1).padStart(2, '0')}`}>{v === null ? '' : v.toFixed(2)}</td>)}
                <td class={`num ${signClass(year)}`}>{year.toFixed(2)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
