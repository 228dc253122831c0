// The journal's list: ended sessions, most recently ended first, each a row of its instrument, span,
// timeframe, statistics, note and tags; a row opens the session. A tag filters the sessions (those
// carrying it on the session or a trade), and under them what all of them teach (or the tagged
// trades): expectancy, the daily P&L calendar, P&L by weekday and by hour. A branch is listed under
// its parent, marked (family.tsx).

import { useEffect, useState } from 'preact/hooks';
import { type Column, ErrorLine, money, signClass, THead, utc } from '../../ui.tsx';
import { ContractName } from '../desk/contract-label.tsx';
import { endWords, type JournalSession, type JournalSummary, loadJournal, loadSummary } from './model.ts';
import { ReviewPanel } from './review-stats.tsx';
import { BranchMark, familyOrder } from './family.tsx';
import { zoneLabel } from '../../time-format.ts';

export const open = (accountId: number) => {
  location.hash = `#/journal?id=${accountId}`;
};

export function JournalList() {
  const [sessions, setSessions] = useState<JournalSession[] | null>(null);
  const [summary, setSummary] = useState<JournalSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [tag, setTag] = useState('');
  useEffect(() => {
    const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
    setError(null);
    loadJournal(tag).then(setSessions, fail);
    loadSummary(tag).then(setSummary, fail);
  }, [tag]);
  return (
    <div class="journal grid">
      <section class="card journal">
        <h2>Journal</h2>
        <p class="muted small">Every replay session you ended, with its statistics (round trips, net of fees). Open one to read its trades, its chart and to write notes and tags.</p>
        <form
          class="tag-filter"
          onSubmit={(e) => {
            e.preventDefault();
            setTag(typed.trim().toLowerCase());
          }}
        >
          <label class="small">
            Tag{' '}
            <input type="text" value={typed} placeholder="e.g. a+ setup" data-testid="journal-tag" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="small" data-testid="journal-tag-apply">Filter</button>
          {tag && (
            <button type="button" class="small ghost" onClick={() => (setTyped(''), setTag(''))}>
              Clear “{tag}”
            </button>
          )}
        </form>
        <ErrorLine error={error} />
        {sessions === null && !error && <p class="muted">Loading…</p>}
        {sessions?.length === 0 && <p class="empty">{tag ? `No ended session carries “${tag}”.` : 'No ended session yet. End a session on the Replay desk and it is kept here.'}</p>}
        {sessions && sessions.length > 0 && <SessionsTable sessions={sessions} />}
      </section>
      {summary && summary.stats.trades > 0 && (
        <section class="card" data-testid="journal-summary">
          <h3>
            Across {summary.sessions === 1 ? 'one session' : `${summary.sessions} sessions`}
            {tag ? ` · trades tagged “${tag}”` : ''} · {summary.stats.trades} trades
          </h3>
          <ReviewPanel stats={summary.stats} />
        </section>
      )}
    </div>
  );
}

/** The columns, the times' zone named (the chosen one, read when drawn). */
const columns = (z: string): readonly Column[] => [
  `Ended (${z})`,
  'Instrument',
  'Timeframe',
  `Replayed (${z})`,
  { num: 'Trades' },
  { num: 'Win rate' },
  { num: 'Net P&L' },
  { num: 'Profit factor' },
  { num: 'Max drawdown' },
  'Note',
  'Tags',
];

function SessionsTable({ sessions }: { sessions: JournalSession[] }) {
  return (
    <table data-testid="journal-sessions" class="journal-table">
      <THead columns={columns(zoneLabel())} />
      <tbody>
        {familyOrder(sessions).map(({ session: s, depth }) => (
          <tr key={s.accountId} data-account-id={s.accountId} data-depth={depth} class={`clickable ${s.branch ? 'branch-row' : ''}`} onClick={() => open(s.accountId)} title={endWords(s.endReason)}>
            <td class="mono">{utc(s.endedAt).slice(0, 16)}</td>
            <td>
              <a href={`#/journal?id=${s.accountId}`} class="mono">
                <ContractName contract={s.contract} at={s.currentTime} />
              </a>{' '}
              <span class="muted small">{s.contract.description}</span> <BranchMark s={s} />
            </td>
            <td class="mono">{s.timeframe}</td>
            <td class="mono small">
              {utc(s.startTime).slice(0, 16)} → {utc(s.currentTime).slice(0, 16)}
            </td>
            <td class="num">{s.results.totalTrades}</td>
            <td class="num">{s.results.totalTrades ? `${s.results.winRate.toFixed(1)}%` : '—'}</td>
            <td class={`num ${signClass(s.results.totalPnl)}`}>{money(s.results.totalPnl)}</td>
            <td class="num">{s.results.profitFactor === null ? '—' : s.results.profitFactor.toFixed(2)}</td>
            <td class={`num ${signClass(s.results.maxDrawdown)}`}>{money(s.results.maxDrawdown)}</td>
            <td class="note-cell muted">{s.note}</td>
            <td class="muted small">{s.tags.join(', ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
