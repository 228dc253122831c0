// The hierarchical walk: processes one UTC day's stored bars in a time range by first looking at the
// day's coarse rollups (1 h, then 1 m; data/rollup.ts) and reaching for the stored bars only inside
// the buckets that can matter. Fills are exactly those of walking every stored bar (matching.ts).
//
// Why it is exact:
// - The flat walk (processBars) changes state only at a bar that reaches a trigger (the book's reduced
//   triggers folded with the StopRule's thresholds) or whose time reaches the rule's event time. In
//   between it only moves the mark, to the close of the last bar it passed.
// - A rollup bar is the exact aggregate of its stored bars: its high is their highest high, its low
//   their lowest low, its close the last bar's close. So a rollup bar with high < up, low > down and
//   an end ≤ the event time holds no stored bar the flat scan would stop at, and skipping it leaves the
//   state as the flat walk would, marked at its close.
// - Triggers do not move while nothing happens, so they are asked for again only after a descent.
// - A bucket that can matter is walked by the next finer level, down to the stored bars, which the
//   caller walks with the ordinary loop: the event bar and a halting bar are the flat walk's own.
// - Range edges that cut a bucket (a cursor or cut inside a minute) go to the finer level as well.
//
// What the walk cannot know is the time of the last stored bar in a skipped bucket (rollups keep
// the bucket's start): the caller learns which bucket it was (`skipped`) and fixes the mark's time
// when the walk ends on a skip. Nothing reads the mark's time before that (matching.ts marks every
// bar it walks before the rule sees it).
//
// No clock, no I/O: levels and stored bars come through the host. Allocates nothing per bucket.

import type { BarColumns } from '../data/bar-columns.ts';
import { lowerBound } from '../data/bar-columns.ts';
import type { RuleThresholds } from './stop-rule.ts';

export interface LadderHost {
  /** Number of rollup levels, coarsest first (0 walks stored bars only). */
  readonly levelCount: number;
  /** Bucket width of level k in seconds; each divides the one before and the day. */
  levelWidthS(k: number): number;
  /** The day's rollup at level k, or null when it has none (the walk reads the next finer level). */
  level(k: number): BarColumns | null;
  /** What the flat walk would scan for now: the lowest up-trigger, highest down-trigger, event time. */
  triggers(out: RuleThresholds): void;
  /** Walks the day's stored bars with time in [fromS, toS) like processBars; true when it halted. */
  walkStored(fromS: number, toS: number): boolean;
  /** A stretch of buckets was skipped; the last one starts at `bucketS`, is `widthS` wide, closes at `closeTicks`. */
  skipped(closeTicks: number, bucketS: number, widthS: number): void;
}

/** Walks the day's stored bars with time in [fromS, toS) through the rollup levels; true when halted. */
export function walkLadder(host: LadderHost, fromS: number, toS: number, scratch: RuleThresholds): boolean {
  return walkLevel(host, 0, fromS, toS, scratch);
}

function walkLevel(host: LadderHost, k: number, fromS: number, toS: number, t: RuleThresholds): boolean {
  if (fromS >= toS) return false;
  if (k >= host.levelCount) return host.walkStored(fromS, toS);
  const bars = host.level(k);
  if (bars === null) return walkLevel(host, k + 1, fromS, toS, t);
  const w = host.levelWidthS(k);
  const wholeFromS = Math.ceil(fromS / w) * w;
  const wholeToS = Math.floor(toS / w) * w;
  if (wholeFromS >= wholeToS) return walkLevel(host, k + 1, fromS, toS, t);
  if (walkLevel(host, k + 1, fromS, wholeFromS, t)) return true;
  const time = bars.time;
  const end = lowerBound(time, bars.length, wholeToS);
  let i = lowerBound(time, bars.length, wholeFromS);
  while (i < end) {
    host.triggers(t);
    const j = scanQuietBuckets(bars, i, end, w, t);
    if (j > i) host.skipped(bars.close[j - 1], time[j - 1], w);
    if (j === end) break;
    if (walkLevel(host, k + 1, time[j], time[j] + w, t)) return true;
    i = j + 1;
  }
  return walkLevel(host, k + 1, wholeToS, toS, t);
}

/**
 * First bucket in [from, to) that reaches a trigger or whose span reaches the event time; `to` if
 * none. A bucket whose end is after the event time may hold the event bar, so it is not quiet.
 */
export function scanQuietBuckets(bars: BarColumns, from: number, to: number, widthS: number, t: RuleThresholds): number {
  const time = bars.time;
  const high = bars.high;
  const low = bars.low;
  const up = t.upTicks;
  const down = t.downTicks;
  const lastStartS = t.eventS - widthS;
  for (let i = from; i < to; i++) {
    if (high[i] >= up || low[i] <= down || time[i] > lastStartS) return i;
  }
  return to;
}
