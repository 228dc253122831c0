// A replay session's chart drawings: horizontal and trend lines, rectangles, horizontal rays,
// Fibonacci retracements and text notes, kept on the server so that any browser opening the session
// shows them. Each drawing is kept for the session (the default) or for the instrument: the latter
// are the user's on every session of that instrument, so yesterday's levels carry into today's
// session. Read and replaced whole by the console (both sets at once); at most `replayDrawingsMax`
// drawings in all. A session is the user's own replay account with a session row, live or ended (the
// journal reopens ended ones); another user's, or none, reads as `session_not_found`.

import { limits } from '../config.ts';
import { findInstrument, type Instrument, priceToNearestTicks } from '../domain/instrument.ts';
import type { Clock } from '../lib/clock.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { type Drawings, type DrawingsStore, drawingCount, type TrendLineTicks } from '../store/drawings.ts';
import type { ReplayStore } from '../store/replay.ts';

export type DrawingsReadError = { kind: 'session_not_found' };
/** The field whose drawings are malformed (the adapter's parse step, or a price or text the service refuses). */
export type InvalidDrawingsKind = 'invalid_drawings' | 'invalid_rectangles' | 'invalid_rays' | 'invalid_fib_retracements' | 'invalid_texts' | 'invalid_scope' | 'invalid_instrument_drawings';
export type DrawingsWriteError = DrawingsReadError | { kind: 'too_many_drawings' } | { kind: InvalidDrawingsKind };

interface TwoEnds {
  t1S: number;
  p1: number;
  t2S: number;
  p2: number;
}

/** One set of drawings as the adapter parsed them: prices in the instrument's units, times in epoch seconds. */
export interface DrawingsSetInput {
  hlines: readonly number[];
  trends: readonly TwoEnds[];
  rects: readonly TwoEnds[];
  rays: readonly { tS: number; p: number }[];
  fibs: readonly TwoEnds[];
  texts: readonly { tS: number; p: number; text: string }[];
  /** Kinds the request left out: the set keeps the ones it has of them (a client that knows lines only clears nothing else). */
  omitted?: readonly ('rects' | 'rays' | 'fibs' | 'texts')[];
}

export interface DrawingsInput {
  session: DrawingsSetInput;
  /** Null: the instrument's drawings stay as they are (the request did not mean to replace them). */
  instrument: DrawingsSetInput | null;
}

export interface SessionDrawings {
  inst: Instrument;
  /** The session's own. */
  drawings: Drawings;
  /** The user's drawings of the session's instrument, on every session of it. */
  instrument: Drawings;
  /** When either set was last written; null when there are none yet. */
  updatedMs: number | null;
}

const NONE: Drawings = { hlinesTicks: [], trends: [] };

export class DrawingsService {
  constructor(
    private readonly sessions: ReplayStore,
    private readonly store: DrawingsStore,
    private readonly clock: Clock,
  ) {}

  async read(userId: number, accountId: number): Promise<Result<SessionDrawings, DrawingsReadError>> {
    const owned = await this.ownedSession(userId, accountId);
    if (!owned) return err({ kind: 'session_not_found' });
    const row = await this.store.of(accountId);
    const kept = await this.store.ofInstrument(userId, owned.symbol);
    const times = [row?.updatedMs, kept?.updatedMs].filter((t): t is number => t !== undefined);
    const strip = (r: typeof row) => (r ? (({ updatedMs: _, ...d }) => d)(r) : NONE);
    return ok({ inst: owned.inst, drawings: strip(row), instrument: strip(kept), updatedMs: times.length ? Math.max(...times) : null });
  }

  /**
   * Replaces the session's drawings, and the instrument's when `input.instrument` is given; none at all
   * clears them. Prices go to the nearest tick, as the chart draws them. Over `replayDrawingsMax` in
   * all is refused unless the write keeps no more than there were, so a deletion always goes through.
   */
  async replace(userId: number, accountId: number, input: DrawingsInput): Promise<Result<SessionDrawings, DrawingsWriteError>> {
    const owned = await this.ownedSession(userId, accountId);
    if (!owned) return err({ kind: 'session_not_found' });
    const parsed = inTicks(owned.inst, input.session);
    if ('kind' in parsed) return err(parsed);
    const instrumentIn = input.instrument === null ? null : inTicks(owned.inst, input.instrument);
    if (instrumentIn !== null && 'kind' in instrumentIn) return err(instrumentIn);
    const before = { session: (await this.store.of(accountId)) ?? NONE, instrument: (await this.store.ofInstrument(userId, owned.symbol)) ?? NONE };
    const session = keptKinds(parsed, before.session, input.session.omitted ?? []);
    const instrument = instrumentIn ?? strip(before.instrument);
    const count = drawingCount(session) + drawingCount(instrument);
    if (count > limits.replayDrawingsMax && count > drawingCount(before.session) + drawingCount(before.instrument)) return err({ kind: 'too_many_drawings' });
    const nowMs = this.clock.nowMs();
    await this.store.transaction(async () => {
      await this.store.put(accountId, session, nowMs);
      if (instrumentIn !== null) await this.store.putInstrument(userId, owned.symbol, instrumentIn, nowMs);
    });
    return ok({ inst: owned.inst, drawings: session, instrument, updatedMs: nowMs });
  }

  /** The session's instrument when the session is the user's. */
  private async ownedSession(userId: number, accountId: number): Promise<{ inst: Instrument; symbol: string } | null> {
    if (!Number.isSafeInteger(accountId)) return null;
    const row = await this.sessions.session(accountId);
    if (!row || row.userId !== userId) return null;
    const inst = findInstrument(row.symbol, 'all');
    // A session row names an instrument of the catalog it was started from; the catalog only grows.
    if (!inst) throw new Error(`session ${accountId} names unknown instrument ${row.symbol}`);
    return { inst, symbol: row.symbol };
  }
}

const fits = (n: number) => Number.isSafeInteger(n);

/** A stored row's drawings without its time. */
function strip(d: Drawings & { updatedMs?: number }): Drawings {
  const { updatedMs: _, ...rest } = d;
  return rest;
}

/** The drawings written, with the kinds the request left out taken from what the session kept. */
function keptKinds(d: Drawings, kept: Drawings, omitted: readonly ('rects' | 'rays' | 'fibs' | 'texts')[]): Drawings {
  const out: Drawings = { ...d };
  for (const k of omitted) delete out[k];
  return { ...out, ...Object.fromEntries(omitted.filter((k) => kept[k]?.length).map((k) => [k, kept[k]])) };
}

/** The drawings in ticks, or the field holding a price or a time that is not a number that fits (or a blank or long note, or a retracement without a range). */
function inTicks(inst: Instrument, d: DrawingsSetInput): Drawings | { kind: InvalidDrawingsKind } {
  const tick = (p: number) => (Number.isFinite(p) ? priceToNearestTicks(inst, p) : Number.NaN);
  const ends = (t: TwoEnds): TrendLineTicks => ({ t1S: t.t1S, p1Ticks: tick(t.p1), t2S: t.t2S, p2Ticks: tick(t.p2) });
  const endsFit = (t: TrendLineTicks) => fits(t.t1S) && fits(t.p1Ticks) && fits(t.t2S) && fits(t.p2Ticks);
  const hlinesTicks = d.hlines.map(tick);
  const trends = d.trends.map(ends);
  if (!hlinesTicks.every(fits) || !trends.every(endsFit)) return { kind: 'invalid_drawings' };
  const rects = d.rects.map(ends);
  if (!rects.every(endsFit)) return { kind: 'invalid_rectangles' };
  const rays = d.rays.map((y) => ({ tS: y.tS, pTicks: tick(y.p) }));
  if (!rays.every((y) => fits(y.tS) && fits(y.pTicks))) return { kind: 'invalid_rays' };
  const fibs = d.fibs.map(ends);
  if (!fibs.every((f) => endsFit(f) && f.p1Ticks !== f.p2Ticks)) return { kind: 'invalid_fib_retracements' };
  const texts = d.texts.map((x) => ({ tS: x.tS, pTicks: tick(x.p), text: x.text.trim() }));
  const noteFits = (x: (typeof texts)[number]) => fits(x.tS) && fits(x.pTicks) && x.text.length > 0 && x.text.length <= limits.drawingTextCharsMax;
  if (!texts.every(noteFits)) return { kind: 'invalid_texts' };
  return { hlinesTicks, trends, rects, rays, fibs, texts };
}
