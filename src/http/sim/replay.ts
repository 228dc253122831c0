// Replay/start, step, jumpTo, play, pause, end of the current family, and its extensions (addInstrument, removeInstrument, branch).

import type { Elysia } from 'elysia';
import { EMPTY_BARS } from '../../data/bar-columns.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { LegFills } from '../../service/replay/persistence.ts';
import type { AdvanceOutcome } from '../../service/replay/service.ts';
import type { LiveSession } from '../../service/replay/session.ts';
import type { Services } from '../../service/services.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { barsResponse } from '../shared/bars.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { SIM_POLICY } from './policy.ts';
import { presentFilledOrders, presentPropFirm, presentSnapshot, presentViolation } from './present.ts';
import * as ep from './schemas.ts';

function propFirmOf(s: LiveSession) {
  return s.challenge ? presentPropFirm(s.challenge.rule.state) : null;
}

/** Fills of every instrument of a session, each priced in its own ticks, in id order. */
function filledOrders(legFills: readonly LegFills[]) {
  if (legFills.length === 1) return presentFilledOrders(legFills[0].inst, legFills[0].fills);
  const all = legFills.flatMap((l) => l.fills.map((f) => ({ id: f.id, row: presentFilledOrders(l.inst, [f])[0] })));
  return all.sort((a, b) => a.id - b.id).map((x) => x.row);
}

/** An instrument of a session as Replay/start names it: under the live profile, its contract on the session's clock. */
function sessionInstrument(s: Services, session: LiveSession, inst: Instrument, profile: ApiProfile) {
  const contract = s.contracts.contractFor(inst, profile === 'live' ? { atMs: session.nowS * 1000 } : {});
  return { name: contract.name, contractId: contract.id, tickSize: inst.tickSize, tickValue: inst.tickValueCents / 100 };
}

function progress(o: AdvanceOutcome) {
  const s = o.session;
  return {
    barsProcessed: o.advance.played,
    currentIndex: s.currentIndex,
    totalBars: s.totalBars,
    account: presentSnapshot(s.engine),
    propFirm: propFirmOf(s),
    filledOrders: filledOrders(o.legFills),
    // Only rule breaches are violations; a pass shows in propFirm.status.
    violations: o.decided && o.decided.kind === 'violation' ? [presentViolation(o.decided)] : [],
  };
}

export function registerReplay<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.replayStart, async ({ body, principal, profile }) => {
    const r = await s.replay.start(principal.user.id, {
      instrumentSymbol: body.instrumentSymbol,
      contractId: body.contractId,
      instrumentSymbols: body.instrumentSymbols,
      startDate: body.startDate,
      endDate: body.endDate,
      timeframe: body.timeframe,
      accountId: body.accountId,
      listedIn: profile,
    }, SIM_POLICY.start);
    if (!r.ok) return mapError(codes.replayStart, r.error);
    const session = r.value.session;
    // Under the live profile the session's clock is the bot's "now": its contract is the front month
    // on the replayed date, as Contract/* and the hubs name it (docs/gateway-profile.md).
    const instruments = session.instruments.map((inst) => sessionInstrument(s, session, inst, profile));
    return ep.replayStart.ok({
      accountId: session.accountId,
      sessionId: session.sessionId,
      totalBars: session.totalBars,
      historyBars: session.historyBars,
      instrument: instruments[0],
      // A session over several instruments (instrumentSymbols) names them all; one started the spec's way answers the spec's fields.
      ...(session.multi ? { instruments } : {}),
    });
  });

  route(app, s, ep.replayStep, async ({ body, principal, request, profile }) => {
    const r = await s.replay.step(principal.user.id, body.accountId, body.steps, SIM_POLICY.stepsMax);
    if (!r.ok) return mapError(codes.replayAdvance, r.error);
    const { session, advance } = r.value;
    const byLeg = advance.barsByLeg;
    const byContract = byLeg && session.legs.map((l, k) => ({ key: sessionInstrument(s, session, l.inst, profile).contractId, inst: l.inst, bars: byLeg[k] }));
    return barsResponse(request, session.inst, advance.bars ?? EMPTY_BARS, progress(r.value), byContract);
  });

  route(app, s, ep.replayJumpTo, async ({ body, principal }) => {
    const r = await s.replay.jumpTo(principal.user.id, body.accountId, body.targetTime);
    if (!r.ok) return mapError(codes.replayAdvance, r.error);
    return ep.replayJumpTo.ok(progress(r.value));
  });

  route(app, s, ep.replayPlay, async ({ body, principal }) => {
    const r = await s.replay.play(principal.user.id, body.accountId, body.speed, SIM_POLICY.playbackRate);
    if (!r.ok) return mapError(codes.replayPlay, r.error);
    return ep.replayPlay.ok({ playing: true, speed: r.value.speed });
  });

  route(app, s, ep.replayPause, async ({ body, principal }) => {
    const r = await s.replay.pause(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.replaySession, r.error);
    return ep.replayPause.ok({ paused: true, account: presentSnapshot(r.value.engine), propFirm: propFirmOf(r.value) });
  });

  for (const [decl, change] of [[ep.replayAddInstrument, 'addInstrument'], [ep.replayRemoveInstrument, 'removeInstrument']] as const) {
    route(app, s, decl, async ({ body, principal, profile }) => {
      const r = await s.replay[change](principal.user.id, body.accountId, body.instrumentSymbol, profile);
      if (!r.ok) return mapError(codes.replayInstruments, r.error);
      const session = r.value.session;
      return decl.ok({ instruments: session.instruments.map((inst) => sessionInstrument(s, session, inst, profile)) });
    });
  }

  route(app, s, ep.replayEnd, async ({ body, principal }) => {
    const r = await s.replay.end(principal.user.id, body.accountId);
    if (!r.ok) return mapError(codes.replaySession, r.error);
    return ep.replayEnd.ok({ ended: true, account: endSnapshot(r.value.session.engine, r.value.legFills) });
  });
}

/** Replay/branch (docs/decisions.md, "Branching"): the new session's account and where it stands. */
export function registerBranch<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.replayBranch, async ({ body, principal }) => {
    const r = await s.replay.branch(principal.user.id, body.accountId, body.time, SIM_POLICY.start.liveSessionsMax);
    if (!r.ok) return mapError(codes.replayBranch, r.error);
    const b = r.value.session;
    return ep.replayBranch.ok({
      accountId: b.accountId,
      sessionId: b.sessionId,
      parentAccountId: b.parentAccountId ?? 0,
      branchTime: isoFromEpochS(b.nowS),
      currentIndex: b.currentIndex,
      totalBars: b.totalBars,
      historyBars: b.historyBars,
      practiceOf: b.challenge?.practice ? b.challenge.accountId : null,
      account: presentSnapshot(b.engine),
      propFirm: propFirmOf(b),
    });
  });
}

/** The final snapshot: flat after Replay/end, with the closing fills listed. */
function endSnapshot(engine: SessionEngine, legFills: readonly LegFills[]) {
  return { ...presentSnapshot(engine), filledOrders: filledOrders(legFills) };
}
