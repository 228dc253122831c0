// What a live replay session is, for any browser that opens it (GET /api/auth/replay-sessions/:id):
// the instrument's contract (every one of a session over several), the timeframe, the span, the simulated clock, progress, the chart
// history Replay/start offered and where it begins, playback and the challenge it trades for. Read
// from the live session (`ReplayService.live`, `historyStart`), its starting balance from its fills
// (`ReplayService.results`).
// POST /api/auth/replay-sessions/:accountId/bars reads its bars up to its clock on the console's own
// budget (service/session-bars.ts). GET /api/auth/replay-sessions/:accountId/trailing-stops lists its
// working trailing stops with their trail (the spec's order view shows them as stops). Endpoints
// declared in schemas.ts.

import type { Elysia } from 'elysia';
import { centsToUsd, ticksToPrice } from '../../domain/instrument.ts';
import { OrderType } from '../../engine/types.ts';
import { limits } from '../../config.ts';
import { isoFromEpochS, parseIsoMs } from '../../lib/iso-time.ts';
import type { LiveSession } from '../../service/replay/session.ts';
import type { Services } from '../../service/services.ts';
import { barsResponseOffLoop } from '../shared/bars-worker.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

export function registerReplaySessions<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.replaySessionInfo, async ({ params, user }) => {
    const r = await s.replay.live(user.id, Number(params.accountId));
    return r.ok ? ep.replaySessionInfo.ok(await presentSession(s, r.value)) : mapError(codes.replaySession, r.error);
  });
  route(app, s, ep.replaySessionBars, async ({ params, body, user, request }) => {
    const r = await s.replay.live(user.id, Number(params.accountId));
    if (!r.ok) return mapError(codes.replaySessionBars, r.error);
    const afterMs = body.after == null ? null : parseIsoMs(body.after);
    if (afterMs === undefined) return mapError(codes.replaySessionBars, { kind: 'invalid_after' });
    const x = r.value;
    // A session over several instruments: any of them, by symbol (the panes of the desk).
    const inst = body.symbol == null ? x.inst : x.legs.find((l) => l.inst.symbol === body.symbol)?.inst;
    if (!inst) return mapError(codes.replaySessionBars, { kind: 'invalid_symbol' });
    const firstS = s.replay.historyStart(x) ?? x.startS;
    const afterS = afterMs === null ? null : Math.floor(afterMs / 1000);
    const read = await s.history.sessionBars.read(user.id, x, inst, firstS, afterS, body.limit ?? limits.consoleSessionBarsPerRequestMax);
    if (!read.ok) return mapError(codes.replaySessionBars, read.error);
    const { bars, nowS, currentIndex, totalBars, complete } = read.value;
    // Up to 50,000 bars: encoded off the loop as History's are (shared/bars-worker.ts), the same bytes.
    return barsResponseOffLoop(request, inst, bars, limits.historySliceMs, { currentTime: isoFromEpochS(nowS), currentIndex, totalBars, complete });
  });
  route(app, s, ep.replaySessionTrailingStops, async ({ params, user }) => {
    const r = await s.replay.live(user.id, Number(params.accountId));
    if (!r.ok) return mapError(codes.replaySession, r.error);
    // Under the session's lock: a command's change is read once committed, never half-way.
    const x = r.value;
    return ep.replaySessionTrailingStops.ok({ trailingStops: await x.exclusive(async () => trailingStops(s, x)) });
  });
}

/** The session's working trailing stops, every instrument's, newest first. */
function trailingStops(s: Services, x: LiveSession) {
  const rows = x.legs.flatMap(({ engine, inst }) =>
    engine.book.working
      .filter((o) => o.type === OrderType.TrailingStop && o.trailTicks !== null)
      .map((o) => ({ orderId: o.id, contractId: s.contracts.contractFor(inst).id, trailTicks: o.trailTicks as number, trailPrice: ticksToPrice(inst, o.trailTicks as number) })),
  );
  return rows.sort((a, b) => b.orderId - a.orderId);
}

/** A session's instrument as Contract/search lists its contract (without activeContract). */
function sessionContract(s: Services, inst: LiveSession['inst']) {
  const c = s.contracts.contractFor(inst);
  return { id: c.id, name: c.name, description: inst.description, tickSize: inst.tickSize, tickValue: inst.tickValueCents / 100, symbolId: c.symbolId };
}

async function presentSession(s: Services, x: LiveSession) {
  const historyStart = s.replay.historyStart(x);
  // A practice branch trades for no challenge (branch.practiceOf names the one whose rules it shows).
  const challengeAccountId = x.challenge && !x.challenge.practice ? x.challenge.accountId : null;
  const stats = challengeAccountId === null ? await s.replay.results(x.accountId) : null;
  const challengeName = challengeAccountId === null ? '' : ((await s.accounts.owned(x.userId, challengeAccountId))?.name ?? '');
  return {
    accountId: x.accountId,
    name: (await s.accounts.owned(x.userId, x.accountId))?.name ?? '',
    contract: sessionContract(s, x.inst),
    timeframe: x.tf.text,
    startTime: isoFromEpochS(x.startS),
    endTime: isoFromEpochS(x.endS),
    currentTime: isoFromEpochS(x.nowS),
    currentIndex: x.currentIndex,
    totalBars: x.totalBars,
    historyBars: x.historyBars,
    historyStartTime: historyStart === null ? null : isoFromEpochS(historyStart),
    playing: x.playTimer !== null,
    challenge: challengeAccountId === null ? null : { accountId: challengeAccountId, name: challengeName },
    startingBalance: stats === null ? null : centsToUsd(stats.finalBalanceCents - stats.totalPnlCents),
    // A session over several instruments (instrumentSymbols) names them all, so any browser opens every pane.
    ...(x.multi ? { instruments: x.legs.map((l) => sessionContract(s, l.inst)) } : {}),
    // A branch (Replay/branch) names where it left from.
    ...(x.parentAccountId !== null && x.branchS !== null
      ? { branch: { parentAccountId: x.parentAccountId, time: isoFromEpochS(x.branchS), practiceOf: x.challenge?.practice ? x.challenge.accountId : null } }
      : {}),
  };
}
