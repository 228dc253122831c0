// The earlier family: Replay/start, step, jumpTo, play, pause, end, over the same ReplayService as
// the current family with this family's policy values: a span of trade dates (endDate defaults to
// the startDate session), one live session per user, up to 1,000 steps a call, real-time playback,
// and `results` at the end.

import type { Elysia } from 'elysia';
import { EMPTY_BARS } from '../../data/bar-columns.ts';
import { findLegacyInstrument } from '../../domain/legacy-instruments.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { LiveSession } from '../../service/replay/session.ts';
import type { Services } from '../../service/services.ts';
import { barsResponse } from '../shared/bars.ts';
import { mapError } from '../shared/code-table.ts';
import { type BodyOf, route } from '../shared/endpoint.ts';
import { LEGACY_POLICY } from './policy.ts';
import * as codes from './trading-codes.ts';
import { presentStats } from '../shared/present-common.ts';
import { legacyContractId } from './present-trading.ts';
import * as ep from './schemas.ts';

type StartBody = BodyOf<typeof ep.replayStart.request, typeof ep.replayStart.fields>;

/** The family's eight timeframes (spec), case-sensitive; `1D` is the grammar's `1d`. */
const TIMEFRAMES: ReadonlyMap<string, string> = new Map([
  ['1s', '1s'], ['1m', '1m'], ['5m', '5m'], ['15m', '15m'], ['30m', '30m'], ['1h', '1h'], ['4h', '4h'], ['1D', '1d'],
]);

/** `currentBar`: the 0-based index of the last bar played (-1 before the first); `complete` at the end of data. */
function position(s: LiveSession) {
  return { currentBar: s.currentIndex - 1, totalBars: s.totalBars, complete: s.currentIndex >= s.totalBars || s.finalized };
}

export function registerReplay<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.replayStart, async ({ body, principal }) => {
    const parsed = parseStart(body);
    if (!parsed.ok) return mapError(codes.replayStart, parsed.error);
    const r = await s.replay.start(
      principal.user.id,
      { instrumentSymbol: parsed.baseSymbol, contractId: null, startDate: body.startDate, endDate: body.endDate, timeframe: parsed.timeframe, accountId: body.accountId },
      LEGACY_POLICY.start,
    );
    if (!r.ok) return mapError(codes.replayStart, r.error);
    const session = r.value.session;
    return ep.replayStart.ok({
      accountId: session.accountId,
      contractId: legacyContractId(session.inst, s.clock.nowMs()),
      totalBars: session.totalBars,
      startTime: isoFromEpochS(session.startS),
      endTime: isoFromEpochS(session.endS),
    });
  });

  route(app, s, ep.replayStep, async ({ body, principal, request }) => {
    const r = await s.replay.step(principal.user.id, body.accountId, body.steps, LEGACY_POLICY.stepsMax);
    if (!r.ok) return mapError(codes.replayAdvance, r.error);
    return barsResponse(request, r.value.session.inst, r.value.advance.bars ?? EMPTY_BARS, position(r.value.session));
  });

  route(app, s, ep.replayJumpTo, async ({ body, principal }) => {
    const r = await s.replay.jumpTo(principal.user.id, body.accountId, body.timestamp);
    return r.ok ? ep.replayJumpTo.ok(position(r.value.session)) : mapError(codes.replayAdvance, r.error);
  });

  route(app, s, ep.replayPlay, async ({ body, principal }) => {
    const r = await s.replay.play(principal.user.id, body.accountId, body.speed, LEGACY_POLICY.playbackRate);
    return r.ok ? ep.replayPlay.ok({}) : mapError(codes.replayPlay, r.error);
  });

  route(app, s, ep.replayPause, async ({ body, principal }) => {
    const r = await s.replay.pause(principal.user.id, body.accountId);
    return r.ok ? ep.replayPause.ok({}) : mapError(codes.replaySession, r.error);
  });

  route(app, s, ep.replayEnd, async ({ body, principal }) => {
    const r = await s.replay.end(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.replaySession, r.error);
    return ep.replayEnd.ok({ results: presentStats(await s.replay.results(r.value.session.accountId)) });
  });
}

type ParsedStart = { ok: true; baseSymbol: string; timeframe: string } | { ok: false; error: codes.LegacyStartError };

/**
 * Instrument (this family's symbols), startDate present, timeframe one of the eight (the schema's:
 * anything else arrives INVALID); dates are the service's.
 */
function parseStart(body: StartBody): ParsedStart {
  const sym = body.instrumentSymbol;
  if (typeof sym !== 'string' || sym.trim() === '') return { ok: false, error: { kind: 'instrument_required' } };
  const l = findLegacyInstrument(sym);
  if (!l) return { ok: false, error: { kind: 'instrument_not_found' } };
  if (body.startDate === undefined || body.startDate === null || body.startDate === '') return { ok: false, error: { kind: 'start_date_required' } };
  const tf = typeof body.timeframe === 'string' ? TIMEFRAMES.get(body.timeframe) : undefined;
  if (tf === undefined) return { ok: false, error: { kind: 'invalid_timeframe' } };
  return { ok: true, baseSymbol: l.base.symbol, timeframe: tf };
}
