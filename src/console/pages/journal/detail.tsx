// One session in the journal: what was replayed, its statistics, its chart with the trades marked
// and its balance curve side by side, every round trip with its R, excursions, tags and note (a row
// picked zooms the chart to it; a tag filters them; CSV exports them), what the session teaches
// (expectancy, daily P&L, by weekday and hour), the session's note and tags, and its family of
// branches side by side (family.tsx).

import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorLine, utc } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import { EquityChart } from '../playground/equity-chart.tsx';
import { Stats } from '../playground/results.tsx';
import { ContractName } from '../desk/contract-label.tsx';
import { csvHref, endWords, type JournalDetail, type JournalTrade, loadJournalSession, loadReview, type ReviewTrade, type SessionReview } from './model.ts';
import { NoteEditor } from './note.tsx';
import { ReviewPanel } from './review-stats.tsx';
import { SessionChart } from './session-chart.tsx';
import { TagsEditor } from './tags.tsx';
import { TradesTable } from './trades-table.tsx';
import { BranchesSection } from './family.tsx';

export function JournalDetailView({ accountId }: { accountId: number }) {
  const [d, setD] = useState<JournalDetail | null>(null);
  const [review, setReview] = useState<SessionReview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reviewError, setReviewError] = useState<string | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  const [tag, setTag] = useState('');
  useEffect(() => {
    const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
    loadJournalSession(accountId).then(setD, (e) => setError(why(e)));
    loadReview(accountId).then(setReview, (e) => setReviewError(why(e)));
  }, [accountId]);
  if (error) return <Frame><ErrorLine error={error} /></Frame>;
  if (!d) return <Frame><p class="muted">Loading…</p></Frame>;
  const startingBalance = d.equity[0]?.balance ?? d.results.finalBalance - d.results.totalPnl;
  const all: Array<JournalTrade | ReviewTrade> = review?.trades ?? d.trades;
  const shown = tag && review ? review.trades.filter((t) => t.tags.includes(tag) || review.tags.includes(tag)) : all;
  const onTags = (n: number, tags: string[]) => review && setReview({ ...review, trades: review.trades.map((t) => (t.tradeNumber === n ? { ...t, tags } : t)) });
  const pick = (n: number) => {
    setPicked(n);
    document.querySelector('[data-testid=journal-chart]')?.scrollIntoView({ block: 'nearest' });
  };
  return (
    <Frame>
      <Header d={d} />
      <Stats r={d.results} startingBalance={startingBalance} />
      <BranchesSection current={d} />
      <div class="journal-charts">
        <section class="card">
          <h3>
            Chart · trades marked · times {zoneLabel()} {picked !== null && <span class="muted small">· trade #{picked} (pick another row, or scroll)</span>}
          </h3>
          <SessionChart detail={d} trades={all} picked={picked} />
        </section>
        <section class="card">
          <h3>Balance after each fill · times {zoneLabel()}</h3>
          <Equity d={d} startingBalance={startingBalance} />
        </section>
      </div>
      <section class="card">
        <TradesHead d={d} review={review} tag={tag} onTag={setTag} count={shown.length} />
        <ErrorLine error={reviewError && `R, MAE/MFE and tags not loaded: ${reviewError}`} />
        <TradesTable d={d} trades={shown} picked={picked} onPick={pick} onTags={onTags} />
      </section>
      <section class="card" data-testid="session-review">
        <h3>What this session teaches</h3>
        {review ? <ReviewPanel stats={review.stats} /> : <p class="muted">{reviewError ? '—' : 'Loading…'}</p>}
      </section>
      <section class="card">
        <h3>Session note and tags</h3>
        <NoteEditor accountId={d.accountId} tradeNumber={null} initial={d.note} placeholder="What went well, what to change next time" multiline />
        <TagsEditor accountId={d.accountId} tradeNumber={null} initial={d.tags} onSaved={(tags) => review && setReview({ ...review, tags })} />
      </section>
    </Frame>
  );
}

/** The trades' heading: how many, a tag filter (the tags the session and its trades carry) and the CSV export. */
function TradesHead({ d, review, tag, onTag, count }: { d: JournalDetail; review: SessionReview | null; tag: string; onTag: (t: string) => void; count: number }) {
  const tags = [...new Set([...(review?.tags ?? []), ...(review?.trades.flatMap((t) => t.tags) ?? [])])].sort();
  const total = d.results.totalTrades;
  const listed = d.trades.length < total ? `the first ${d.trades.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}` : String(d.trades.length);
  return (
    <div class="trades-head">
      <h3>Trades ({tag ? `${count} tagged “${tag}” of ${listed}` : listed})</h3>
      <label class="small">
        Tag{' '}
        <select value={tag} onChange={(e) => onTag((e.target as HTMLSelectElement).value)} data-testid="trade-tag-filter" disabled={tags.length === 0}>
          <option value="">all trades</option>
          {tags.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <a class="button small" href={csvHref(d.accountId)} download data-testid="trades-csv">
        Export CSV
      </a>
    </div>
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
