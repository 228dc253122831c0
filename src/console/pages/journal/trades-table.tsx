// A journal session's round trips: side, size, entry and exit (times in the chosen zone, prices to
// the tick), time in trade, P&L, R from the initial stop, MAE and MFE, tags and the note. A row
// picked (clicked) zooms the chart to its trade; a tag filter keeps the trades carrying it.

import { money, signClass, utc } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import { duration, type JournalDetail, type JournalTrade, type ReviewTrade, tickPrice } from './model.ts';
import { sessionSymbol } from './marks.ts';
import { NoteEditor } from './note.tsx';
import { TagsEditor } from './tags.tsx';

type Trade = JournalTrade | ReviewTrade;

const reviewed = (t: Trade): t is ReviewTrade => 'rMultiple' in t;

/** The exit's time, without its date when the entry's is the same (the table fits a laptop's width). */
function exitText(t: Trade): string {
  const entry = utc(t.entryTime);
  const exit = utc(t.exitTime);
  return exit.slice(0, 10) === entry.slice(0, 10) ? exit.slice(11) : exit;
}

function RCell({ t }: { t: Trade }) {
  if (!reviewed(t)) return <td class="num muted">…</td>;
  if (t.rMultiple === null) {
    return (
      <td class="num muted" title="No stop-loss was working when the trade opened: no risk, so no R">
        no stop
      </td>
    );
  }
  const r = t.rMultiple;
  return (
    <td class={`num ${signClass(r)}`} title={`Risk ${money(t.risk)} to the initial stop at ${t.initialStop}`} data-testid={`trade-r-${t.tradeNumber}`}>
      {`${r >= 0 ? '+' : ''}${r.toFixed(2)}R`}
    </td>
  );
}

function Excursion({ usd, ticks, cls }: { usd: number; ticks: number; cls: string }) {
  return (
    <td class={`num ${usd > 0 ? cls : ''}`} title={`${ticks} ticks from the average entry`}>
      {money(usd)}
    </td>
  );
}

interface RowProps {
  accountId: number;
  t: Trade;
  /** The session's instrument's tick; a trade of another contract (a session over several) keeps the server's decimals. */
  tickSize: number;
  /** The session's own symbol: a trade naming another is marked with its contract. */
  symbol: string;
  picked: boolean;
  onPick: (n: number) => void;
  onTags: (n: number, tags: string[]) => void;
}

function TradeRow({ accountId, t, tickSize, symbol, picked, onPick, onTags }: RowProps) {
  const other = t.symbol !== undefined && t.symbol !== symbol;
  const price = (p: number) => (other ? String(p) : tickPrice(p, tickSize));
  // A click on the row picks it; one in its editors (typing a note, a tag) does not.
  const pick = (e: MouseEvent) => {
    if (!(e.target as HTMLElement).closest('input, button, textarea')) onPick(t.tradeNumber);
  };
  return (
    <tr
      data-trade={t.tradeNumber}
      class={`clickable ${picked ? 'picked' : ''}`}
      onClick={pick}
      // Reachable by keyboard too: Tab to the row, Enter picks it (Enter in its editors saves them instead).
      tabIndex={0}
      onKeyDown={(e) => e.key === 'Enter' && e.target === e.currentTarget && onPick(t.tradeNumber)}
      aria-selected={picked}
      title="Show this trade on the chart"
    >
      <td class="num">{t.tradeNumber}</td>
      <td class={t.side === 'long' ? 'pos' : 'neg'}>
        {t.side === 'long' ? 'Long' : 'Short'}
        {t.symbol !== undefined && (
          <span class="chip" data-testid={`trade-symbol-${t.tradeNumber}`} title="The contract this round trip traded">
            {t.symbol}
          </span>
        )}
      </td>
      <td class="num">{t.size}</td>
      <td class="mono">{utc(t.entryTime)}</td>
      <td class="num">{price(t.entryPrice)}</td>
      <td class="mono">{exitText(t)}</td>
      <td class="num">{price(t.exitPrice)}</td>
      <td class="num mono">{reviewed(t) ? duration(t.durationSeconds) : '…'}</td>
      <td class={`num ${signClass(t.pnl)}`} data-testid={`trade-pnl-${t.tradeNumber}`} title={`Fees ${money(t.fees)}`}>
        {money(t.pnl)}
      </td>
      <RCell t={t} />
      {reviewed(t) ? <Excursion usd={t.mae} ticks={t.maeTicks} cls="neg" /> : <td class="num muted">…</td>}
      {reviewed(t) ? <Excursion usd={t.mfe} ticks={t.mfeTicks} cls="pos" /> : <td class="num muted">…</td>}
      <td class="tags-col">{reviewed(t) && <TagsEditor accountId={accountId} tradeNumber={t.tradeNumber} initial={t.tags} onSaved={(tags) => onTags(t.tradeNumber, tags)} />}</td>
      <td class="note-col">
        <NoteEditor accountId={accountId} tradeNumber={t.tradeNumber} initial={t.note} placeholder="Why in, why out" />
      </td>
    </tr>
  );
}

interface Props {
  d: JournalDetail;
  trades: readonly Trade[];
  picked: number | null;
  onPick: (n: number) => void;
  onTags: (n: number, tags: string[]) => void;
}

export function TradesTable({ d, trades, picked, onPick, onTags }: Props) {
  if (trades.length === 0) return <p class="empty">No round trip here: the session never went from flat to a position and back, or no trade carries the tag.</p>;
  const z = zoneLabel();
  const heads = ['#', 'Side', 'Size', `Entry (${z})`, 'Entry', `Exit (${z})`, 'Exit', 'Time', 'P&L', 'R', 'MAE', 'MFE'];
  const num = new Set(['#', 'Size', 'Entry', 'Exit', 'Time', 'P&L', 'R', 'MAE', 'MFE']);
  return (
    <div class="table-scroll">
    <table data-testid="journal-trades" class="journal-trades">
      <thead>
        <tr>
          {heads.map((h) => (
            <th key={h} class={num.has(h) ? 'num' : ''}>
              {h}
            </th>
          ))}
          <th class="tags-col">Tags</th>
          <th class="note-col">Note</th>
        </tr>
      </thead>
      <tbody>
        {trades.map((t) => (
          <TradeRow key={t.tradeNumber} accountId={d.accountId} t={t} tickSize={d.contract.tickSize} symbol={sessionSymbol(d)} picked={picked === t.tradeNumber} onPick={onPick} onTags={onTags} />
        ))}
      </tbody>
    </table>
    </div>
  );
}
