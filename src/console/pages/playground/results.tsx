// What a finished (or running) execution shows: its statistics, trades (every one, paged; a row
// click moves the price chart to it) and logs.

import { useEffect, useState } from 'preact/hooks';
import { type Column, money, signClass, Stat, THead, utc } from '../../ui.tsx';
import { focusTrade, useAllTrades, useFocusedTrade } from './trades-store.ts';
import type { WireRunStats } from '../../run-stats.ts';
import type { Execution, Run } from './types.ts';
import { zoneLabel } from '../../time-format.ts';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v.toFixed(2)}%`);
const num = (v: number | null | undefined, d = 2) => (v === null || v === undefined ? '—' : v.toFixed(d));

/** The shared round-trip statistics (a run's or a replay session's). */
export function Stats({ r, startingBalance }: { r: WireRunStats; startingBalance: number }) {
  const ret = startingBalance ? (r.totalPnl / startingBalance) * 100 : null;
  return (
    <div class="pg-stats" data-testid="stats">
      <Stat testid="stat-net-pnl" label="Net P&L" value={money(r.totalPnl)} cls={signClass(r.totalPnl)} />
      <Stat testid="stat-return" label="Return" value={ret === null ? '—' : `${ret >= 0 ? '+' : ''}${ret.toFixed(2)}%`} cls={signClass(ret)} />
      <Stat testid="stat-trades" label="Trades" value={String(r.totalTrades)} />
      <Stat testid="stat-win-rate" label="Win rate" value={pct(r.winRate)} />
      <Stat testid="stat-profit-factor" label="Profit factor" value={num(r.profitFactor)} />
      <Stat testid="stat-max-drawdown" label="Max drawdown" value={money(r.maxDrawdown)} cls={signClass(r.maxDrawdown)} />
      <Stat testid="stat-avg-win" label="Avg win" value={money(r.averageWin)} cls={signClass(r.averageWin)} />
      <Stat testid="stat-avg-loss" label="Avg loss" value={money(r.averageLoss)} cls={signClass(r.averageLoss)} />
      <Stat testid="stat-largest-win" label="Largest win" value={money(r.largestWin)} cls={signClass(r.largestWin)} />
      <Stat testid="stat-largest-loss" label="Largest loss" value={money(r.largestLoss)} cls={signClass(r.largestLoss)} />
      <Stat testid="stat-won-lost" label="Won / lost" value={`${r.winningTrades} / ${r.losingTrades}`} />
      <Stat testid="stat-final-balance" label="Final balance" value={money(r.finalBalance)} />
    </div>
  );
}

/** Rows of the trade list per page. */
const TRADES_PAGE_ROWS = 500;

function TradesPager({ page, pages, first, last, total, onPage }: { page: number; pages: number; first: number; last: number; total: number; onPage: (p: number) => void }) {
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    <div class="pg-pager" data-testid="trades-pager">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        ‹ Earlier
      </button>
      <span class="muted" data-testid="trades-range">
        {n(first)}–{n(last)} of {n(total)}
      </span>
      <button type="button" disabled={page >= pages - 1} onClick={() => onPage(page + 1)}>
        Later ›
      </button>
    </div>
  );
}

/** Every trade of the run, a page at a time; a row click moves the price chart to that trade. */
export function TradesTable({ execution }: { execution: Execution }) {
  const { trades, loading, error } = useAllTrades(execution);
  const focused = useFocusedTrade(execution.id);
  const [page, setPage] = useState(0);
  useEffect(() => setPage(0), [execution.id]);
  if (trades.length === 0) return <p class="empty">No trades: the strategy never went from flat to a position and back.</p>;
  // Within one year the year is noise; across years it is needed.
  const oneYear = trades[0]!.entryTime.slice(0, 4) === trades[trades.length - 1]!.exitTime.slice(0, 4);
  const when = (iso: string) => utc(iso).slice(oneYear ? 5 : 0, 16);
  const pages = Math.ceil(trades.length / TRADES_PAGE_ROWS);
  const at = Math.min(page, pages - 1) * TRADES_PAGE_ROWS;
  const rows = trades.slice(at, at + TRADES_PAGE_ROWS);
  return (
    <div class="pg-table-wrap">
      {(loading || error) && <p class={`pg-small ${error ? 'error' : 'muted'}`}>{error ?? `Loading ${execution.tradesTotal.toLocaleString('en-US')} trades…`}</p>}
      <div class="pg-trades-bar">
        {pages > 1 && <TradesPager page={at / TRADES_PAGE_ROWS} pages={pages} first={at + 1} last={at + rows.length} total={trades.length} onPage={setPage} />}
        {execution.status !== 'running' && (
          <a class="pg-csv" data-testid="trades-csv" href={`/api/playground/executions/${encodeURIComponent(execution.id)}/trades.csv`} download>
            Download CSV
          </a>
        )}
      </div>
      <table data-testid="trades" class="pg-trades">
        <THead columns={[{ num: '#' }, 'Side', { num: 'Size' }, `Entry (${zoneLabel()})`, { num: 'Entry' }, `Exit (${zoneLabel()})`, { num: 'Exit' }, { num: 'Fees' }, { num: 'P&L' }]} />
        <tbody>
          {rows.map((t, j) => (
            <tr key={at + j} data-index={at + j} class={at + j === focused ? 'selected' : ''} onClick={() => focusTrade(execution.id, at + j)} title="Show this trade on the price chart">
              <td class="num muted">{at + j + 1}</td>
              <td class={t.side === 'long' ? 'pos' : 'neg'}>{t.side}</td>
              <td class="num">{t.size}</td>
              <td class="mono nowrap">{when(t.entryTime)}</td>
              <td class="num">{t.entryPrice}</td>
              <td class="mono nowrap">{when(t.exitTime)}</td>
              <td class="num">{t.exitPrice}</td>
              <td class="num muted">{money(t.fees)}</td>
              <td class={`num ${signClass(t.pnl)}`}>{money(t.pnl)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A `ctx.log` line without its own `[bar time] ` prefix (UTC, as the sandbox writes it) when the time column shows that time already. */
function withoutStamp(line: string, t: string | null): string {
  if (t === null) return line;
  const stamp = `[${new Date(Date.parse(t)).toISOString().slice(0, 19).replace('T', ' ')}] `;
  return line.startsWith(stamp) ? line.slice(stamp.length) : line;
}

/** What the strategy printed, each line beside the open time (UTC) of the bar it was on; blank before the first bar; a `ctx.log` line's time once. */
export function Logs({ execution }: { execution: Execution }) {
  if (execution.logs.length === 0) return <p class="empty">Nothing printed. Output of print() in your strategy shows here.</p>;
  const times = execution.logTimes ?? [];
  return (
    <div class="pg-logs" data-testid="logs">
      {execution.logs.map((line, i) => {
        const t = times[i] ?? null;
        const shown = t === null ? '' : utc(t);
        return (
          <div class="pg-log-line" key={i}>
            <span class="pg-log-time" data-testid="log-time" title={t === null ? 'Printed before the first bar' : 'Open time of the bar (UTC)'}>
              {shown}
            </span>
            <span class="pg-log-text" data-testid="log-text">
              {withoutStamp(line, t)}
            </span>
          </div>
        );
      })}
    </div>
  );
}

const STATUS_CLASS: Record<string, string> = { completed: 'ok', running: 'run', failed: 'bad', timeout: 'bad', stopped: 'warn' };

export function StatusBadge({ status, testid }: { status: string; testid?: string }) {
  return (
    <span class={`pg-badge pg-badge-${STATUS_CLASS[status] ?? 'warn'}`} data-testid={testid}>
      {status}
    </span>
  );
}

function paramsText(p: Run['params']): string {
  return Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

const RUN_COLUMNS: readonly Column[] = ['Started', 'Status', 'Market', 'Dates', 'Params', { num: 'Trades' }, { num: 'Win rate' }, { num: 'Net P&L' }];

/** A strategy's runs side by side, newest first. */
export function RunsTable({ runs, onOpen, current }: { runs: readonly Run[]; onOpen: (id: string) => void; current: string | null }) {
  if (runs.length === 0) return <p class="empty">No runs yet. Run the strategy and its runs line up here for comparison.</p>;
  return (
    <div class="pg-table-wrap">
      <table data-testid="strategy-runs" class="pg-runs">
        <THead columns={RUN_COLUMNS} />
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} class={`pg-run-row ${r.id === current ? 'current' : ''}`} onClick={() => onOpen(r.id)} title="Open this run's result">
              <td class="mono" title={`${utc(r.startedAt)} ${zoneLabel()}`}>{utc(r.startedAt).slice(5, 16)}</td>
              <td>
                <StatusBadge status={r.status} testid="run-row-status" />
              </td>
              <td>
                {r.instrument} · {r.timeframe}
              </td>
              <td class="mono">{r.startDate === r.endDate ? r.startDate : `${r.startDate} → ${r.endDate}`}</td>
              <td class="mono muted pg-params-cell">{paramsText(r.params)}</td>
              <td class="num" data-testid="run-trades">
                {r.totalTrades ?? '—'}
              </td>
              <td class="num">{pct(r.winRate)}</td>
              <td class={`num ${signClass(r.totalPnl)}`} data-testid="run-pnl">
                {money(r.totalPnl)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
