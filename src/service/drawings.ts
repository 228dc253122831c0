// A replay session's chart drawings (horizontal and trend lines), kept with the session so that any
// browser opening it shows them. Read and replaced whole by the console; at most `replayDrawingsMax`
// lines. A session is the user's own replay account with a session row, live or ended (the journal
// reopens ended ones); another user's, or none, reads as `session_not_found`.

import { limits } from '../config.ts';
import { findInstrument, type Instrument, priceToNearestTicks } from '../domain/instrument.ts';
import type { Clock } from '../lib/clock.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { Drawings, DrawingsStore } from '../store/drawings.ts';
import type { ReplayStore } from '../store/replay.ts';

export type DrawingsReadError = { kind: 'session_not_found' };
/** `invalid_drawings`: a field is not a list of lines, a price not a finite number, a time not ISO 8601 (the adapter's parse step). */
export type DrawingsWriteError = DrawingsReadError | { kind: 'too_many_drawings' } | { kind: 'invalid_drawings' };

/** Lines as the adapter parsed them: prices in the instrument's units, times in epoch seconds. */
export interface DrawingsInput {
  hlines: readonly number[];
  trends: readonly { t1S: number; p1: number; t2S: number; p2: number }[];
}

export interface SessionDrawings {
  inst: Instrument;
  drawings: Drawings;
  /** When they were last written; null when the session has none yet. */
  updatedMs: number | null;
}

export class DrawingsService {
  constructor(
    private readonly sessions: ReplayStore,
    private readonly store: DrawingsStore,
    private readonly clock: Clock,
  ) {}

  async read(userId: number, accountId: number): Promise<Result<SessionDrawings, DrawingsReadError>> {
    const inst = await this.ownedSession(userId, accountId);
    if (!inst) return err({ kind: 'session_not_found' });
    const row = await this.store.of(accountId);
    return ok({ inst, drawings: row ?? { hlinesTicks: [], trends: [] }, updatedMs: row?.updatedMs ?? null });
  }

  /** Replaces every line of the session; none at all clears them. Prices go to the nearest tick, as the chart draws them. */
  async replace(userId: number, accountId: number, input: DrawingsInput): Promise<Result<SessionDrawings, DrawingsWriteError>> {
    const inst = await this.ownedSession(userId, accountId);
    if (!inst) return err({ kind: 'session_not_found' });
    if (input.hlines.length + input.trends.length > limits.replayDrawingsMax) return err({ kind: 'too_many_drawings' });
    const drawings = inTicks(inst, input);
    if (!drawings) return err({ kind: 'invalid_drawings' });
    const nowMs = this.clock.nowMs();
    await this.store.put(accountId, drawings, nowMs);
    return ok({ inst, drawings, updatedMs: nowMs });
  }

  /** The session's instrument when the session is the user's. */
  private async ownedSession(userId: number, accountId: number): Promise<Instrument | null> {
    if (!Number.isSafeInteger(accountId)) return null;
    const row = await this.sessions.session(accountId);
    if (!row || row.userId !== userId) return null;
    const inst = findInstrument(row.symbol, 'all');
    // A session row names an instrument of the catalog it was started from; the catalog only grows.
    if (!inst) throw new Error(`session ${accountId} names unknown instrument ${row.symbol}`);
    return inst;
  }
}

/** The lines in ticks, or null when a price or a time is not a number that fits. */
function inTicks(inst: Instrument, input: DrawingsInput): Drawings | null {
  const tick = (p: number) => (Number.isFinite(p) ? priceToNearestTicks(inst, p) : Number.NaN);
  const hlinesTicks = input.hlines.map(tick);
  const trends = input.trends.map((t) => ({ t1S: t.t1S, p1Ticks: tick(t.p1), t2S: t.t2S, p2Ticks: tick(t.p2) }));
  const fits = (n: number) => Number.isSafeInteger(n);
  if (!hlinesTicks.every(fits) || !trends.every((t) => fits(t.t1S) && fits(t.p1Ticks) && fits(t.t2S) && fits(t.p2Ticks))) return null;
  return { hlinesTicks, trends };
}
