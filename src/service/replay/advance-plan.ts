// A long Replay/step or jumpTo in pieces: a step of n bars is steps of fewer bars, a jump is jumps
// to nearer targets, each cut at a bar boundary, so playing the pieces one after the other is the
// same walk as playing it at once (the bars, fills and halts of one walk). The replay service plays
// them under the session's lock and yields to the event loop between slices (advancing.ts).

import { limits } from '../../config.ts';
import { type BarColumns, concatBars } from '../../data/bar-columns.ts';
import { nextBucketStart } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { AdvanceResult, LiveSession } from './session.ts';

/** A long advance yields to the event loop after this much work (no request stalls the server). */
export const ADVANCE_SLICE_MS = limits.replayAdvanceSliceMs;

/**
 * The next piece of an advance, at most about `spanDays` days of data; null when it is complete.
 * `horizonS`: about where the whole advance will end, so the rollups of the days before it can be
 * built off the main thread first (LiveSession.prepare); a guess, never a bound on the walk.
 */
export type AdvancePlan = ((s: LiveSession, spanDays: number) => AdvanceResult | null) & { horizonS(s: LiveSession): number };

/**
 * Where n bars from the cursor end, counted generously: 7/5 of their width for weekends (markets
 * trade five or six UTC days a week), four days more for holidays, calendar bars at their longest.
 */
function stepHorizonS(s: LiveSession, n: number): number {
  const widthS = s.tf.kind === 'fixed' ? s.tf.widthS : s.tf.count * (s.tf.unit === 'w' ? 7 : s.tf.unit === 'M' ? 31 : 366) * DAY_S;
  return s.cursorS + Math.ceil((n * widthS * 7) / 5) + 4 * DAY_S;
}

/** n bars as steps of at most `spanDays` days' worth of bars each (at least one bar). */
export function stepPlan(n: number): AdvancePlan {
  let left = n;
  const next = (s: LiveSession, spanDays: number) => {
    if (left === 0) return null;
    const perPiece = s.tf.kind === 'fixed' ? Math.max(1, Math.floor((spanDays * DAY_S) / s.tf.widthS)) : 1;
    const k = Math.min(left, perPiece);
    const r = s.step(k);
    // Fewer bars than asked: the data ended.
    left = r.played < k ? 0 : left - k;
    return r;
  };
  return Object.assign(next, { horizonS: (s: LiveSession) => stepHorizonS(s, n) });
}

/** A jump as jumps to nearer targets, each at least one bar ahead; the last one is the real target. */
export function jumpPlan(targetS: number): AdvancePlan {
  let done = false;
  const next = (s: LiveSession, spanDays: number) => {
    if (done) return null;
    const target = targetS >= s.endS ? s.endS : targetS;
    const near = Math.max(s.cursorS + spanDays * DAY_S, nextBucketStart(s.tf, s.cursorS));
    if (near >= target) done = true;
    return s.jumpTo(done ? targetS : near);
  };
  return Object.assign(next, { horizonS: () => targetS });
}

/** One result for pieces played one after the other: bars joined, counts added, the last halt. */
export function joinPieces(pieces: AdvanceResult[]): AdvanceResult {
  if (pieces.length === 1) return pieces[0];
  const last = pieces[pieces.length - 1];
  const played = pieces.reduce((n, p) => n + p.played, 0);
  const bars = last.bars === null ? null : concatBars(pieces.map((p) => p.bars as BarColumns));
  const barsByLeg = last.barsByLeg === null ? null : last.barsByLeg.map((_, k) => concatBars(pieces.map((p) => (p.barsByLeg as BarColumns[])[k])));
  return { played, bars, barsByLeg, halted: last.halted, outcome: last.outcome };
}

