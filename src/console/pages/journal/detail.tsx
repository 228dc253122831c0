// One session in the journal: what was replayed, its statistics, its chart with the trades marked
// and its balance curve side by side, the session's note, and every round trip with its own note.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorLine, money, signClass, utc } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import { EquityChart } from '../playground/equity-chart.tsx';
import { Stats } from '../playground/results.tsx';
import { ContractName } from '../desk/contract-label.tsx';
import { endWords, type JournalDetail, type JournalTrade, loadJournalSession } from './model.ts';
import { NoteEditor } from './note.tsx';
import { SessionChart } from './session-chart.tsx';

export function JournalDetailView({ accountId }: { accountId: number }) {
  const [d, setD] = useState<JournalDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadJournalSession(accountId).then(setD, (e) => setError(e instanceof Error ? e.message : String(e)));
  }, [accountId]);
  if (error) return <Frame><ErrorLine error={error} /></Frame>;
  if (!d) return <Frame><p class="muted">Loading…</p></Frame>;
  const startingBalance = d.equity[0]?.balance ?? d.results.finalBalance - d.results.totalPnl;
  return (
    <Frame>
      <Header d={d} />
      <Stats r={d.results} startingBalance={startingBalance} />
      <div class="journal-charts">
        <section class="card">
          <h3>Chart · trades marked</h3>
          <SessionChart detail={d} />
        </section>
        <section class="card">
          <h3>Balance after each fill</h3>
          <Equity d={d} startingBalance={startingBalance} />
        </section>
      </div>
      <section class="card">
        <h3>Session note</h3>
        <NoteEditor accountId={d.accountId} tradeNumber={null} initial={d.note} placeholder="What went well, what to change next time" multiline />
      </section>
      <section class="card">
        <h3>
          Trades ({d.trades.length < d.results.totalTrades ? `the first ${d.trades.length.toLocaleString('en-US')} of ${d.results.totalTrades.toLocaleString('en-US')}` : d.trades.length})
        </h3>
        <TradesTable d={d} />
      </section>
    </Frame>
  );
}

function Frame({ children }: { children: preact.ComponentChildren }) {
  return (
    <div class="journal grid" data-testid="journal-detail">
      <p class="journal-back-line">
        <a href="#/journal" data-testid="journal-back">
          ← All sessions
        </a>
      </p>
      {children}
    </div>
  );
}

function Header({ d }: { d: JournalDetail }) {
  return (
    <header class="journal-head card">
      <h2>
        <span class="mono" data-testid="journal-contract">
          <ContractName contract={d.contract} at={d.currentTime} />
        </span>{' '}
        · {d.contract.description} · <span class="mono">{d.timeframe}</span>
      </h2>
      <p class="muted mono small" data-testid="journal-span">
        Replayed {utc(d.startTime).slice(0, 16)} → {utc(d.currentTime).slice(0, 16)} {zoneLabel()} · {d.barsPlayed.toLocaleString('en-US')} bars · account {d.name}
        {d.status === 'ended' ? ` · ${endWords(d.endReason)} ${utc(d.endedAt).slice(0, 16)}` : ' · still live'}
      </p>
    </header>
  );
}

function Equity({ d, startingBalance }: { d: JournalDetail; startingBalance: number }) {
  const points = useMemo(() => d.equity.map((p) => ({ time: Date.parse(p.time) / 1000, equity: p.balance })), [d]);
  return d.equity.length > 1 ? <EquityChart points={points} startingBalance={startingBalance} /> : <p class="empty">No fills: the balance never moved.</p>;
}

function TradesTable({ d }: { d: JournalDetail }) {
  if (d.trades.length === 0) return <p class="empty">No round trip: the session never went from flat to a position and back.</p>;
  const z = zoneLabel();
  return (
    <table data-testid="journal-trades">
      <thead>
        <tr>
          <th class="num">#</th>
          <th>Side</th>
          <th class="num">Size</th>
          <th>Entry ({z})</th>
          <th class="num">Entry</th>
          <th>Exit ({z})</th>
          <th class="num">Exit</th>
          <th class="num">P&L</th>
          <th class="num">Fees</th>
          <th class="note-col">Note</th>
        </tr>
      </thead>
      <tbody>
        {d.trades.map((t) => (
          <TradeRow key={t.tradeNumber} accountId={d.accountId} t={t} />
        ))}
      </tbody>
    </table>
  );
}

function TradeRow({ accountId, t }: { accountId: number; t: JournalTrade }) {
  return (
    <tr data-trade={t.tradeNumber}>
      <td class="num">{t.tradeNumber}</td>
      <td class={t.side === 'long' ? 'pos' : 'neg'}>{t.side === 'long' ? 'Long' : 'Short'}</td>
      <td class="num">{t.size}</td>
      <td class="mono">{utc(t.entryTime)}</td>
      <td class="num">{t.entryPrice}</td>
      <td class="mono">{utc(t.exitTime)}</td>
      <td class="num">{t.exitPrice}</td>
      <td class={`num ${signClass(t.pnl)}`} data-testid={`trade-pnl-${t.tradeNumber}`}>
        {money(t.pnl)}
      </td>
      <td class="num">{money(t.fees)}</td>
      <td class="note-col">
        <NoteEditor accountId={accountId} tradeNumber={t.tradeNumber} initial={t.note} placeholder="Why in, why out" />
      </td>
    </tr>
  );
}
