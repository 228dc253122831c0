// A replay session's chart drawings (GET and PUT /api/auth/replay-sessions/:accountId/drawings):
// lines, rectangles, rays, Fibonacci retracements and notes, kept with the session or for its
// instrument (src/service/drawings.ts). Prices in the instrument's units, times ISO 8601 UTC; a
// drawing kept for the instrument says `scope: "instrument"`, one of the session's says nothing.
// Endpoints declared in schemas.ts.

import type { Static } from '@sinclair/typebox';
import type { Elysia } from 'elysia';
import { ticksToPrice } from '../../domain/instrument.ts';
import { isoFromEpochMs, isoFromEpochS, parseIsoMs } from '../../lib/iso-time.ts';
import type { DrawingsInput, DrawingsSetInput, InvalidDrawingsKind, SessionDrawings } from '../../service/drawings.ts';
import type { Services } from '../../service/services.ts';
import type { Drawings, TrendLineTicks } from '../../store/drawings.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';
import type { FibRetracement, HorizontalLine, HorizontalRay, Rectangle, TextNote, TrendLine } from './shapes.ts';

type Body = {
  horizontalLines: Static<typeof HorizontalLine>[];
  trendLines: Static<typeof TrendLine>[];
  rectangles?: Static<typeof Rectangle>[];
  rays?: Static<typeof HorizontalRay>[];
  fibRetracements?: Static<typeof FibRetracement>[];
  texts?: Static<typeof TextNote>[];
  instrumentDrawings?: boolean;
};
type Scoped = { scope?: string };

function presentSet(d: SessionDrawings, set: Drawings, instrument: boolean) {
  const price = (ticks: number) => ticksToPrice(d.inst, ticks);
  const scope = instrument ? { scope: 'instrument' } : {};
  const ends = (t: TrendLineTicks) => ({ startTime: isoFromEpochS(t.t1S), startPrice: price(t.p1Ticks), endTime: isoFromEpochS(t.t2S), endPrice: price(t.p2Ticks), ...scope });
  return {
    horizontalLines: set.hlinesTicks.map((t) => ({ price: price(t), ...scope })),
    trendLines: set.trends.map(ends),
    rectangles: (set.rects ?? []).map(ends),
    rays: (set.rays ?? []).map((y) => ({ time: isoFromEpochS(y.tS), price: price(y.pTicks), ...scope })),
    fibRetracements: (set.fibs ?? []).map(ends),
    texts: (set.texts ?? []).map((x) => ({ time: isoFromEpochS(x.tS), price: price(x.pTicks), text: x.text, ...scope })),
  };
}

/** The session's own drawings first, then the instrument's, kind by kind. */
function present(accountId: number, d: SessionDrawings) {
  const own = presentSet(d, d.drawings, false);
  const kept = presentSet(d, d.instrument, true);
  const both = <K extends keyof typeof own>(k: K) => [...own[k], ...kept[k]] as (typeof own)[K];
  return {
    accountId,
    horizontalLines: both('horizontalLines'),
    trendLines: both('trendLines'),
    rectangles: both('rectangles'),
    rays: both('rays'),
    fibRetracements: both('fibRetracements'),
    texts: both('texts'),
    updatedAt: d.updatedMs === null ? null : isoFromEpochMs(d.updatedMs),
  };
}

/** Whole seconds (as bars are), NaN when not ISO 8601. */
function seconds(iso: string): number {
  const ms = parseIsoMs(iso);
  return ms === undefined ? Number.NaN : Math.floor(ms / 1000);
}

const twoEnds = (t: { startTime: string; startPrice: number; endTime: string; endPrice: number }) => ({ t1S: seconds(t.startTime), p1: t.startPrice, t2S: seconds(t.endTime), p2: t.endPrice });
const timed = (xs: readonly { t1S: number; t2S?: number }[] | readonly { tS: number }[]) =>
  (xs as readonly Record<string, number>[]).every((x) => !Number.isNaN(x.t1S ?? x.tS) && !Number.isNaN(x.t2S ?? 0));

const KIND_FIELD = { rects: 'rectangles', rays: 'rays', fibs: 'fibRetracements', texts: 'texts' } as const;

/**
 * One scope's drawings of the request, or the field holding a time that is not ISO 8601. A kind the
 * request omits (rectangles, rays, fibRetracements, texts) is marked omitted: the session keeps its own.
 */
function parsedSet(body: Body, keep: (x: Scoped) => boolean): DrawingsSetInput | { kind: InvalidDrawingsKind } {
  const set: DrawingsSetInput = {
    hlines: body.horizontalLines.filter(keep).map((h) => h.price),
    trends: body.trendLines.filter(keep).map(twoEnds),
    rects: (body.rectangles ?? []).filter(keep).map(twoEnds),
    rays: (body.rays ?? []).filter(keep).map((y) => ({ tS: seconds(y.time), p: y.price })),
    fibs: (body.fibRetracements ?? []).filter(keep).map(twoEnds),
    texts: (body.texts ?? []).filter(keep).map((x) => ({ tS: seconds(x.time), p: x.price, text: x.text })),
    omitted: (['rects', 'rays', 'fibs', 'texts'] as const).filter((k) => body[KIND_FIELD[k]] === undefined),
  };
  if (!timed(set.trends)) return { kind: 'invalid_drawings' };
  if (!timed(set.rects)) return { kind: 'invalid_rectangles' };
  if (!timed(set.rays)) return { kind: 'invalid_rays' };
  if (!timed(set.fibs)) return { kind: 'invalid_fib_retracements' };
  if (!timed(set.texts)) return { kind: 'invalid_texts' };
  return set;
}

/** The request split by scope (absent or "session": the session's; "instrument": the instrument's), or the error to answer. */
function parsed(body: Body): DrawingsInput | { kind: InvalidDrawingsKind } {
  const lists: (readonly Scoped[] | undefined)[] = [body.horizontalLines, body.trendLines, body.rectangles, body.rays, body.fibRetracements, body.texts];
  const all = lists.flatMap((xs) => xs ?? []);
  if (!all.every((x) => x.scope === undefined || x.scope === 'session' || x.scope === 'instrument')) return { kind: 'invalid_scope' };
  const session = parsedSet(body, (x) => x.scope !== 'instrument');
  if ('kind' in session) return session;
  // The instrument's set is every session's of it: replaced only when the request means to (a scoped
  // drawing, or instrumentDrawings: true), so a write that does not name it never clears it.
  if (body.instrumentDrawings !== true && !all.some((x) => x.scope === 'instrument')) return { session, instrument: null };
  const instrument = parsedSet(body, (x) => x.scope === 'instrument');
  if ('kind' in instrument) return instrument;
  return { session, instrument };
}

export function registerDrawings<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.drawings, async ({ params, user }) => {
    const accountId = Number(params.accountId);
    const r = await s.drawings.read(user.id, accountId);
    if (!r.ok) return mapError(codes.drawingsRead, r.error);
    return ep.drawings.ok(present(accountId, r.value));
  });

  route(app, s, ep.drawingsReplace, async ({ params, body, user }) => {
    const accountId = Number(params.accountId);
    const input = parsed(body);
    if ('kind' in input) return mapError(codes.drawingsReplace, input);
    const r = await s.drawings.replace(user.id, accountId, input);
    if (!r.ok) return mapError(codes.drawingsReplace, r.error);
    return ep.drawingsReplace.ok(present(accountId, r.value));
  });
}
