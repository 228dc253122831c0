// What the journal teaches over a set of trades (one session's, or every session's): expectancy in
// dollars and in R, a calendar of daily P&L by trading day (the CME's, a new day at 17:00 Chicago
// time) with each week's total, and P&L by weekday and by hour of entry (in the chosen zone).

import { money, Stat, signClass } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import type { ReviewStats } from './model.ts';

type Day = ReviewStats['calendar'][number];

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'] as const;

export function ReviewFigures({ stats }: { stats: ReviewStats }) {
  const r = stats.expectancyR;
  return (
    <div class="pg-stats review-figures" data-testid="review-figures">
      <Stat testid="stat-expectancy" label="Expectancy / trade" value={stats.trades ? money(stats.expectancy) : '—'} cls={signClass(stats.expectancy)} />
      <Stat testid="stat-expectancy-r" label="Expectancy (R)" value={r === null ? '—' : `${r >= 0 ? '+' : ''}${r.toFixed(2)}R`} cls={signClass(r)} />
      <Stat testid="stat-trades-with-r" label="Trades with a stop" value={`${stats.tradesWithR} of ${stats.trades}`} />
    </div>
  );
}

/** Day numbers of a YYYY-MM-DD (UTC midnight, for the calendar's arithmetic only). */
const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** The Mondays of the weeks that hold trading days, oldest first. */
function weeksOf(days: readonly Day[]): number[] {
  const mondays = new Set<number>();
  for (const d of days) {
    const n = dayNumber(d.date);
    mondays.add(n - ((new Date(n * 86_400_000).getUTCDay() + 6) % 7));
  }
  return [...mondays].sort((a, b) => a - b);
}

function DayCell({ date, d }: { date: string; d: Day | undefined }) {
  return (
    <td class={`cal-day ${d ? signClass(d.pnl) : 'cal-empty'}`} data-testid={`calendar-day-${date}`} title={d ? `${d.trades} trades, ${d.wins} won, ${d.losses} lost` : 'no trades'}>
      <span class="cal-date">{date.slice(5)}</span>
      {d && <span class="cal-pnl">{money(d.pnl)}</span>}
      {d && <span class="cal-trades muted">{d.trades} {d.trades === 1 ? 'trade' : 'trades'}</span>}
    </td>
  );
}

/** The daily P&L calendar: a row a week, Monday to Friday, and the week's total. */
export function PnlCalendar({ days }: { days: readonly Day[] }) {
  if (days.length === 0) return <p class="empty">No closed trade: nothing on the calendar.</p>;
  const byDate = new Map(days.map((d) => [d.date, d]));
  return (
    <table class="pnl-calendar" data-testid="pnl-calendar">
      <thead>
        <tr>
          {WEEKDAYS.map((w) => (
            <th key={w}>{w}</th>
          ))}
          <th class="num">Week</th>
        </tr>
      </thead>
      <tbody>
        {weeksOf(days).map((monday) => {
          const dates = WEEKDAYS.map((_, i) => dateOf(monday + i));
          const total = dates.reduce((a, x) => a + (byDate.get(x)?.pnl ?? 0), 0);
          return (
            <tr key={monday}>
              {dates.map((x) => (
                <DayCell key={x} date={x} d={byDate.get(x)} />
              ))}
              <td class={`num cal-week ${signClass(total)}`} data-testid={`calendar-week-${dates[0]}`}>
                {money(Math.round(total * 100) / 100)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Bucket = { trades: number; wins: number; pnl: number };

function BucketTable({ title, rows, testid }: { title: string; rows: Array<[string, Bucket]>; testid: string }) {
  return (
    <table class="review-buckets" data-testid={testid}>
      <thead>
        <tr>
          <th>{title}</th>
          <th class="num">Trades</th>
          <th class="num">Win rate</th>
          <th class="num">P&L</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([k, b]) => (
          <tr key={k}>
            <td class="mono">{k}</td>
            <td class="num">{b.trades}</td>
            <td class="num">{`${((b.wins / b.trades) * 100).toFixed(0)}%`}</td>
            <td class={`num ${signClass(b.pnl)}`}>{money(b.pnl)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Figures, calendar, and the weekday and hour tables side by side. */
export function ReviewPanel({ stats }: { stats: ReviewStats }) {
  const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return (
    <div class="review-panel">
      <ReviewFigures stats={stats} />
      <div class="review-grid">
        <div>
          <h4>Daily P&L · trading days (CME, 17:00 CT)</h4>
          <PnlCalendar days={stats.calendar} />
        </div>
        <div>
          <h4>By weekday</h4>
          <BucketTable title="Day" testid="by-weekday" rows={stats.byWeekday.map((w) => [w.weekday.slice(0, 3), w])} />
        </div>
        <div>
          <h4>By hour of entry ({zoneLabel()})</h4>
          <BucketTable title="Hour" testid="by-hour" rows={stats.byHour.map((h) => [hour(h.hour), h])} />
        </div>
      </div>
    </div>
  );
}
