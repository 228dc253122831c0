// The journal's list: ended sessions, most recently ended first, each a row of its instrument, span,
// timeframe, statistics and note; a row opens the session.

import { useEffect, useState } from 'preact/hooks';
import { type Column, ErrorLine, money, signClass, THead, utc } from '../../ui.tsx';
import { ContractName } from '../desk/contract-label.tsx';
import { endWords, type JournalSession, loadJournal } from './model.ts';

export const open = (accountId: number) => {
  location.hash = `#/journal?id=${accountId}`;
};

export function JournalList() {
  const [sessions, setSessions] = useState<JournalSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadJournal().then(setSessions, (e) => setError(e instanceof Error ? e.message : String(e)));
  }, []);
  return (
    <section class="card journal">
      <h2>Journal</h2>
      <p class="muted small">Every replay session you ended, with its statistics (round trips, net of fees). Open one to read its trades, its chart and to write notes.</p>
      <ErrorLine error={error} />
      {sessions === null && !error && <p class="muted">Loading…</p>}
      {sessions?.length === 0 && <p class="empty">No ended session yet. End a session on the Replay desk and it is kept here.</p>}
      {sessions && sessions.length > 0 && <SessionsTable sessions={sessions} />}
    </section>
  );
}

const COLUMNS: readonly Column[] = [
  'Ended',
  'Instrument',
  'Timeframe',
  'Replayed',
  { num: 'Trades' },
  { num: 'Win rate' },
  { num: 'Net P&L' },
  { num: 'Profit factor' },
  { num: 'Max drawdown' },
  'Note',
];

function SessionsTable({ sessions }: { sessions: JournalSession[] }) {
  return (
    <table data-testid="journal-sessions" class="journal-table">
      <THead columns={COLUMNS} />
      <tbody>
        {sessions.map((s) => (
          <tr key={s.accountId} data-account-id={s.accountId} class="clickable" onClick={() => open(s.accountId)} title={endWords(s.endReason)}>
            <td class="mono">{utc(s.endedAt).slice(0, 16)}</td>
            <td>
              <a href={`#/journal?id=${s.accountId}`} class="mono">
                <ContractName contract={s.contract} at={s.currentTime} />
              </a>{' '}
              <span class="muted small">{s.contract.description}</span>
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
          </tr>
        ))}
      </tbody>
    </table>
  );
}
