// A long Replay/step or jumpTo in pieces: a step of n bars is steps of fewer bars, a jump is jumps
// to nearer targets, each cut at a bar boundary, so playing the pieces one after the other is the
// same walk as playing it at once (the bars, fills and halts of one walk). The replay service plays
// them under the session's lock and yields to the event loop between slices (service.ts).

import { limits } from '../../config.ts';
import { type BarColumns, concatBars } from '../../data/bar-columns.ts';
import { nextBucketStart } from '../../domain/timeframe.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { AdvanceResult, LiveSession } from './session.ts';

/** A long advance yields to the event loop after this much work (issue 10: no request stalls the server). */
export const ADVANCE_SLICE_MS = 20;

/** The next piece of an advance, at most about `spanDays` days of data; null when it is complete. */
export type AdvancePlan = (s: LiveSession, spanDays: number) => AdvanceResult | null;

/** n bars as steps of at most `spanDays` days' worth of bars each (at least one bar). */
export function stepPlan(n: number): AdvancePlan {
  let left = n;
  return (s, spanDays) => {
    if (left === 0) return null;
    const perPiece = s.tf.kind === 'fixed' ? Math.max(1, Math.floor((spanDays * DAY_S) / s.tf.widthS)) : 1;
    const k = Math.min(left, perPiece);
    const r = s.step(k);
    // Fewer bars than asked: the data ended.
    left = r.played < k ? 0 : left - k;
    return r;
  };
}

/** A jump as jumps to nearer targets, each at least one bar ahead; the last one is the real target. */
export function jumpPlan(targetS: number): AdvancePlan {
  let done = false;
  return (s, spanDays) => {
    if (done) return null;
    const target = targetS >= s.endS ? s.endS : targetS;
    const near = Math.max(s.cursorS + spanDays * DAY_S, nextBucketStart(s.tf, s.cursorS));
    if (near >= target) done = true;
    return s.jumpTo(done ? targetS : near);
  };
}

/** One result for pieces played one after the other: bars joined, counts added, the last halt. */
export function joinPieces(pieces: AdvanceResult[]): AdvanceResult {
  if (pieces.length === 1) return pieces[0];
  const last = pieces[pieces.length - 1];
  const played = pieces.reduce((n, p) => n + p.played, 0);
  const bars = last.bars === null ? null : concatBars(pieces.map((p) => p.bars as BarColumns));
  return { played, bars, halted: last.halted, outcome: last.outcome };
}

