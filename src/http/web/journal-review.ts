// The journal that teaches (issue 30): a session's review (GET /journal/:accountId/review), the
// statistics across sessions (GET /journal/review), tags (PUT /journal/:accountId/tags) and the
// trades as CSV (GET /journal/:accountId/trades.csv). src/service/journal-review.ts and
// journal-tags.ts; endpoints declared in schemas.ts.

import type { Elysia } from 'elysia';
import { centsToUsd, type Instrument, ticksToPrice } from '../../domain/instrument.ts';
import type { ReviewStats } from '../../engine/session-review.ts';
import { civilFromDays } from '../../lib/civil-date.ts';
import type { ReviewedTrade } from '../../service/journal-review.ts';
import { tagKey } from '../../service/journal-tags.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { presentRoundTrip } from '../shared/present-common.ts';
import * as codes from './codes.ts';
import { journalCsv } from './journal-csv.ts';
import { WEEKDAYS } from './review-shapes.ts';
import * as ep from './schemas.ts';

export function presentReviewTrade(t: ReviewedTrade) {
  const r = t.review;
  const inst = t.inst;
  return {
    tradeNumber: t.tradeNumber,
    ...presentRoundTrip(inst, t.trade),
    initialStop: r.initialStopTicks === null ? null : ticksToPrice(inst, r.initialStopTicks),
    risk: r.riskCents === null ? null : centsToUsd(r.riskCents),
    rMultiple: r.rMultiple,
    mae: centsToUsd(r.maeCents),
    mfe: centsToUsd(r.mfeCents),
    maeTicks: r.maeTicks,
    mfeTicks: r.mfeTicks,
    durationSeconds: r.durationS,
    tags: t.tags,
    note: t.note,
  };
}

/** A day number as YYYY-MM-DD. */
function dateOf(day: number): string {
  const [y, m, d] = civilFromDays(day);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function presentBucket(b: { trades: number; wins: number; losses: number; pnlCents: number }) {
  return { trades: b.trades, wins: b.wins, losses: b.losses, pnl: centsToUsd(b.pnlCents) };
}

export function presentReviewStats(st: ReviewStats) {
  return {
    trades: st.trades,
    expectancy: centsToUsd(st.expectancyCents),
    expectancyR: st.expectancyR,
    tradesWithR: st.tradesWithR,
    calendar: st.days.map((d) => ({ date: dateOf(d.day), ...presentBucket(d) })),
    byWeekday: st.weekdays.map((d) => ({ weekday: WEEKDAYS[d.weekday - 1], ...presentBucket(d) })),
    byHour: st.hours.map((h) => ({ hour: h.hour, ...presentBucket(h) })),
  };
}

const zoneOf = (q: Record<string, string | undefined>) => (q.timeZone === undefined || q.timeZone === '' ? 'UTC' : q.timeZone);

export function registerJournalReview<P extends string>(app: Elysia<P>, s: Services): void {
  // Declared before /journal/:accountId/… reads: a static segment wins over a parameter either way.
  route(app, s, ep.journalSummary, async ({ user, query }) => {
    const r = await s.journalReview.summary(user.id, query.tag, zoneOf(query));
    if (!r.ok) return mapError(codes.journalSummary, r.error);
    const tag = query.tag && tagKey(query.tag) !== '' ? tagKey(query.tag) : null;
    return ep.journalSummary.ok({ timeZone: zoneOf(query), tag, sessions: r.value.sessions, stats: presentReviewStats(r.value.stats) });
  });

  route(app, s, ep.journalReview, async ({ params, user, query }) => {
    const r = await s.journalReview.review(user.id, Number(params.accountId), zoneOf(query));
    if (!r.ok) return mapError(codes.journalReview, r.error);
    const v = r.value;
    return ep.journalReview.ok({
      accountId: v.session.accountId, timeZone: zoneOf(query), tags: v.tags, trades: v.trades.map(presentReviewTrade), stats: presentReviewStats(v.stats),
    });
  });

  route(app, s, ep.journalTags, async ({ params, body, user }) => {
    const r = await s.journalTags.setTags(user.id, Number(params.accountId), body.tradeNumber, body.tags);
    if (!r.ok) return mapError(codes.journalTags, r.error);
    return ep.journalTags.ok({ tradeNumber: body.tradeNumber, tags: r.value });
  });

  route(app, s, ep.journalTradesCsv, async ({ params, user }) => {
    const r = await s.journalReview.review(user.id, Number(params.accountId), 'UTC');
    if (!r.ok) return mapError(codes.journalSession, { kind: 'session_not_found' });
    const v = r.value;
    return new Response(journalCsv(v.trades.map((t) => ({ inst: t.inst, row: presentReviewTrade(t) }))), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="journal-${v.session.accountId}-trades.csv"`,
        'cache-control': 'no-store',
      },
    });
  });
}
