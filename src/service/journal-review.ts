// The journal that teaches (issue 30): per trade, its initial stop and R-multiple, its excursions
// read on the stored bars and its time in trade (src/engine/trade-review.ts); per session and
// across sessions, expectancy, a calendar of daily P&L and P&L by weekday and hour
// (src/engine/session-review.ts); tags on sessions and trades, with a filter (journal-tags.ts).
//
// A session's trades are the journal's detail's (the first `journalTradesListedMax`, numbered as
// the notes number them). Across sessions means the sessions the journal lists (the user's latest
// `journalSessionsListedMax` ended ones); excursions need the bars, so they are read for one
// session's review only, never across sessions.

import { limits } from '../config.ts';
import type { BarColumns } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import { findInstrument, type Instrument } from '../domain/instrument.ts';
import { utcDayOf } from '../domain/trading-hours.ts';
import type { TradeRecord } from '../engine/results.ts';
import { type ReviewStats, reviewStats } from '../engine/session-review.ts';
import { initialStopTicks, reviewTrade, type StopOrders, type TradeFills, type TradeReview } from '../engine/trade-review.ts';
import { OrderSide } from '../engine/types.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { JournalStore } from '../store/journal.ts';
import { type JournalTagStore, SESSION_TAGS } from '../store/journal-tags.ts';
import type { ReplayStore, SessionRow, StoredOrder } from '../store/replay.ts';
import type { JournalReadError, JournalService } from './journal.ts';
import { tagKey } from './journal-tags.ts';
import { reviewClock } from './review-clock.ts';

export type ReviewError = JournalReadError | { kind: 'invalid_time_zone' };

export interface ReviewedTrade {
  tradeNumber: number;
  trade: TradeRecord;
  /** The trade's contract's instrument (a session over several trades more than one). */
  inst: Instrument;
  review: TradeReview;
  tags: string[];
  note: string;
}

export interface SessionReview {
  session: SessionRow;
  inst: Instrument;
  /** The session's own tags. */
  tags: string[];
  trades: ReviewedTrade[];
  /** Over `trades` (the listed ones). */
  stats: ReviewStats;
}

export interface JournalSummary {
  /** Sessions with at least one trade counted. */
  sessions: number;
  stats: ReviewStats;
}

export class JournalReviewService {
  constructor(
    private readonly journal: JournalService,
    private readonly sessions: ReplayStore,
    private readonly notes: JournalStore,
    private readonly tags: JournalTagStore,
    private readonly bars: BarSource,
  ) {}

  /** One session's trades reviewed, with their tags and notes, and its statistics (hours in `zone`). */
  async review(userId: number, accountId: number, zone: string | undefined): Promise<Result<SessionReview, ReviewError>> {
    const row = await this.journal.ownedSession(userId, accountId);
    if (!row) return err({ kind: 'session_not_found' });
    const clock = reviewClock(zone);
    if (!clock) return err({ kind: 'invalid_time_zone' });
    const { entry, fold } = await this.journal.fold(row);
    const stops = new TradeStops(await this.sessions.stopOrdersOf(row.accountId, limits.journalStopOrdersReadMax));
    const walked = await this.sessions.walkedFillKeysOf(row.accountId, limits.journalStopOrdersReadMax);
    const tags = await this.tags.tagsOf(row.accountId);
    const notes = new Map((await this.notes.notesOf(row.accountId)).map((n) => [n.tradeNumber, n.text]));
    // A session over several instruments: each trade is read on its own contract's bars and stops.
    const days = new Map<string, DayCache>();
    const trades = fold.trades.map((trade, i) => {
      const inst = tradeInstrument(trade, entry.inst);
      let cache = days.get(inst.symbol);
      if (!cache) days.set(inst.symbol, (cache = new DayCache(this.bars, inst)));
      const bars = cache.between(trade.entryTimeS, trade.exitTimeS);
      const review = reviewTrade(trade, initialStopTicks(trade, stops.of(trade.symbol)), bars, fillsOf(trade, walked), inst.tickValueCents);
      return { tradeNumber: i + 1, trade, inst, review, tags: tags.get(i + 1) ?? [], note: notes.get(i + 1) ?? '' };
    });
    const stats = reviewStats(trades.map(statsInput), clock);
    return ok({ session: row, inst: entry.inst, tags: tags.get(SESSION_TAGS) ?? [], trades, stats });
  }

  /**
   * The statistics of every trade of the sessions the journal lists, or, with `tag`, of the trades
   * that carry it or whose session does (a tag is matched case-folded).
   */
  async summary(userId: number, tag: string | undefined, zone: string | undefined): Promise<Result<JournalSummary, { kind: 'invalid_time_zone' }>> {
    const clock = reviewClock(zone);
    if (!clock) return err({ kind: 'invalid_time_zone' });
    const wanted = tag === undefined || tagKey(tag) === '' ? null : tagKey(tag);
    let rows = await this.sessions.endedOf(userId, limits.journalSessionsListedMax);
    if (wanted !== null) {
      const tagged = await this.tags.sessionsTagged(userId, wanted);
      rows = rows.filter((r) => tagged.has(r.accountId));
    }
    const picked: Array<{ entryTimeS: number; exitTimeS: number; pnlCents: number; rMultiple: number | null }> = [];
    let sessions = 0;
    for (const row of rows) {
      const before = picked.length;
      await this.pickTrades(row, wanted, picked);
      if (picked.length > before) sessions++;
    }
    return ok({ sessions, stats: reviewStats(picked, clock) });
  }

  /** Adds a session's trades (those matching `wanted`, when given) with their R to `out`; no bars are read. */
  private async pickTrades(row: SessionRow, wanted: string | null, out: Array<ReturnType<typeof statsInput>>): Promise<void> {
    const { entry, fold } = await this.journal.fold(row);
    const tags = wanted === null ? null : await this.tags.tagsOf(row.accountId);
    const whole = tags !== null && (tags.get(SESSION_TAGS) ?? []).includes(wanted as string);
    let stops: TradeStops | null = null;
    for (let i = 0; i < fold.trades.length; i++) {
      if (tags !== null && !whole && !(tags.get(i + 1) ?? []).includes(wanted as string)) continue;
      stops ??= new TradeStops(await this.sessions.stopOrdersOf(row.accountId, limits.journalStopOrdersReadMax));
      const t = fold.trades[i];
      const inst = tradeInstrument(t, entry.inst);
      out.push(statsInput({ trade: t, review: reviewTrade(t, initialStopTicks(t, stops.of(t.symbol)), [], NO_BARS_FILLS, inst.tickValueCents) }));
    }
  }
}

const NO_BARS_FILLS: TradeFills = { entryWalked: false, exitWalked: false };

/** A trade's instrument: its own symbol's in a session over several, else the session's. */
export function tradeInstrument(t: TradeRecord, sessionInst: Instrument): Instrument {
  return t.symbol === undefined ? sessionInst : (findInstrument(t.symbol, 'all') ?? sessionInst);
}

/** A session's stop orders by the contract they work on (orders of a one-instrument session name none). */
class TradeStops {
  private readonly bySymbol = new Map<string, StopOrders>();

  constructor(private readonly all: { stops: readonly StoredOrder[]; parents: StopOrders['parents'] }) {}

  of(symbol: string | undefined): StopOrders {
    if (symbol === undefined) return this.all;
    let s = this.bySymbol.get(symbol);
    if (!s) this.bySymbol.set(symbol, (s = { stops: this.all.stops.filter((o) => o.symbol === symbol), parents: this.all.parents }));
    return s;
  }
}

/** Whether the trade's entry and exit were fills of working orders (on their side, at their second, on its contract). */
function fillsOf(t: TradeRecord, walked: ReadonlySet<string>): TradeFills {
  const entrySide = t.direction === 1 ? OrderSide.Buy : OrderSide.Sell;
  const exitSide = t.direction === 1 ? OrderSide.Sell : OrderSide.Buy;
  const on = t.symbol === undefined ? '' : `:${t.symbol}`;
  return { entryWalked: walked.has(`${t.entryTimeS}:${entrySide}${on}`), exitWalked: walked.has(`${t.exitTimeS}:${exitSide}${on}`) };
}

function statsInput(t: { trade: TradeRecord; review: TradeReview }) {
  return { entryTimeS: t.trade.entryTimeS, exitTimeS: t.trade.exitTimeS, pnlCents: t.trade.pnlCents, rMultiple: t.review.rMultiple };
}

/** A session's stored bars by UTC day, each read once per review. */
class DayCache {
  private readonly days = new Map<number, BarColumns>();

  constructor(
    private readonly bars: BarSource,
    private readonly inst: Instrument,
  ) {}

  /** The stored-resolution bars of the UTC days from `fromS` to `toS` (at most `journalExcursionDaysMax` days). */
  between(fromS: number, toS: number): BarColumns[] {
    const first = utcDayOf(fromS);
    const last = Math.min(utcDayOf(toS), first + limits.journalExcursionDaysMax - 1);
    const out: BarColumns[] = [];
    for (let d = first; d <= last; d++) {
      let b = this.days.get(d);
      if (!b) this.days.set(d, (b = this.bars.day(this.inst, d)));
      out.push(b);
    }
    return out;
  }
}
