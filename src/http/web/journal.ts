// The journal (GET /api/auth/journal, GET /journal/:accountId, POST /journal/:accountId/note): the
// user's replay sessions kept after they end, with statistics, round-trip trades, the balance curve
// and notes (src/service/journal.ts). Money in USD, prices in the instrument's units, times ISO 8601
// UTC. Endpoints declared in schemas.ts.

import { tradeInstrument } from '../../service/journal-review.ts';
import type { Elysia } from 'elysia';
import { centsToUsd } from '../../domain/instrument.ts';
import { isoFromEpochMs, isoFromEpochS } from '../../lib/iso-time.ts';
import type { JournalEntry } from '../../service/journal.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { presentRoundTrip, presentStats } from '../shared/present-common.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

function presentEntry(s: Services, e: JournalEntry, tags: string[]) {
  const c = s.contracts.contractFor(e.inst);
  const x = e.session;
  return {
    accountId: x.accountId,
    name: e.accountName,
    contract: { id: c.id, name: c.name, description: e.inst.description, tickSize: e.inst.tickSize, tickValue: e.inst.tickValueCents / 100, symbolId: c.symbolId },
    timeframe: x.timeframe,
    startTime: isoFromEpochS(x.startS),
    endTime: isoFromEpochS(x.endS),
    currentTime: isoFromEpochS(x.cursorS),
    barsPlayed: x.currentIndex,
    historyBars: x.historyBars,
    status: x.status,
    endedAt: x.endedMs === null ? null : isoFromEpochMs(x.endedMs),
    endReason: x.endReason,
    challengeAccountId: x.challengeId,
    results: presentStats(e.stats),
    note: e.note,
    tags,
    ...(x.parentAccountId != null && x.branchS != null ? { branch: { parentAccountId: x.parentAccountId, time: isoFromEpochS(x.branchS), practiceOf: x.practiceOf ?? null } } : {}),
  };
}

const isoOrNull = (epochS: number | null) => (epochS === null ? null : isoFromEpochS(epochS));

export function registerJournal<P extends string>(app: Elysia<P>, s: Services): void {
  // `?tag=`: only the sessions carrying the tag on the session or on one of their trades.
  route(app, s, ep.journal, async ({ user, query }) => {
    let entries = await s.journal.list(user.id);
    if (query.tag) {
      const tagged = await s.journalTags.sessionsTagged(user.id, query.tag);
      entries = entries.filter((e) => tagged.has(e.session.accountId));
    }
    const tags = await s.journalTags.sessionTagsOf(entries.map((e) => e.session.accountId));
    return ep.journal.ok({ sessions: entries.map((e) => presentEntry(s, e, tags.get(e.session.accountId) ?? [])) });
  });

  route(app, s, ep.journalSession, async ({ params, user }) => {
    const r = await s.journal.detail(user.id, Number(params.accountId));
    if (!r.ok) return mapError(codes.journalSession, r.error);
    const d = r.value;
    const tags = (await s.journalTags.sessionTagsOf([d.session.accountId])).get(d.session.accountId) ?? [];
    return ep.journalSession.ok({
      ...presentEntry(s, d, tags),
      historyStartTime: isoOrNull(s.replay.historyStartOf(d.inst, d.session.timeframe, d.session.startS, d.session.historyBars)),
      trades: d.trades.map((t) => ({ tradeNumber: t.tradeNumber, ...presentRoundTrip(tradeInstrument(t.trade, d.inst), t.trade), note: t.note })),
      equity: d.equity.map((p) => ({ time: isoFromEpochS(p.timeS), balance: centsToUsd(p.balanceCents) })),
    });
  });

  route(app, s, ep.journalNote, async ({ params, body, user }) => {
    const r = await s.journal.setNote(user.id, Number(params.accountId), body.tradeNumber, body.text);
    if (!r.ok) return mapError(codes.journalNote, r.error);
    return ep.journalNote.ok({ tradeNumber: r.value.tradeNumber, text: r.value.text, updatedAt: isoFromEpochMs(r.value.updatedMs) });
  });
}
