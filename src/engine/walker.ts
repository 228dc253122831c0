// The one bar walker: every place a session walks stored bars (Replay's advancing, the flat reference
// walk kept as the test oracle, the playground's ledger) walks them here. Its input is a list of
// instrument feeds over one UTC day, merged in time order: at one instant, feeds are walked in the
// list's order (the session's instrument order), each feed's bar at that instant before the next
// feed's. It skips quiet stretches on the feeds' rollups and descends to stored bars only where a
// trigger can be reached. Fills are exactly those of walking every stored bar (matching.ts).
//
// Why skipping is exact:
// - The flat walk (processBars) changes state only at a bar that reaches a trigger (the book's reduced
//   triggers folded with the StopRule's thresholds) or whose time reaches the rule's event time. In
//   between it only moves the mark, to the close of the last bar it passed.
// - A rollup bar is the exact aggregate of its stored bars: its high is their highest high, its low
//   their lowest low, its close the last bar's close. So a rollup bar with high < up, low > down and
//   an end ≤ the event time holds no stored bar the flat scan would stop at, and skipping it leaves the
//   state as the flat walk would, marked at its close.
// - Triggers do not move while nothing happens, so they are asked for again only after a descent.
// - A bucket that can matter is walked by the next finer level, down to the stored bars, which the
//   feed walks with the ordinary loop: the event bar and a halting bar are the flat walk's own.
// - Range edges that cut a bucket (a cursor or cut inside a minute) go to the finer level as well.
// - Several feeds: a bucket span is skipped only when every feed's bucket in it is quiet, and a span
//   where one feed can trigger is descended in all feeds together, so the stored bars of the span
//   are walked merged in time order (`walkMergedStored`). A feed's triggers are asked for before
//   each of its buckets is judged; they must hold while the other feeds' buckets of the span are
//   quiet (true while each feed's triggers depend only on its own book and rule).
//
// What the walk cannot know is the time of the last stored bar in a skipped bucket (rollups keep
// the bucket's start): the feed learns which bucket it was (`skipped`) and fixes the mark's time
// when the walk ends on a skip. Nothing reads the mark's time before that (matching.ts marks every
// bar it walks before the rule sees it).
//
// A feed without levels (levelCount 0) is walked bar by bar: that is the flat reference walk.
// No clock, no I/O: levels and stored bars come through the feeds. The one-feed walk, the hot path,
// allocates nothing per bucket or bar; the merged walk allocates a few small arrays per level visit.

import type { BarColumns } from '../data/bar-columns.ts';
import { lowerBound } from '../data/bar-columns.ts';
import { DAY_S } from '../lib/time-units.ts';
import type { RuleThresholds } from './stop-rule.ts';

/** One instrument's bars over one UTC day, as the walker reads them. */
export interface WalkFeed {
  /** Number of rollup levels, coarsest first (0 walks stored bars only: the flat walk). */
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
  /** The day's stored bars' times (only the merged walk of several feeds reads them). */
  storedTimes?(): { time: Uint32Array; length: number };
}

/** A feed the day driver (`walkDays`) moves from one UTC day to the next. */
export interface DayFeed extends WalkFeed {
  /** The walk enters UTC day `day` at `fromS` (the range's start within it). */
  startDay(day: number, fromS: number): void;
}

/** The one-feed name the ladder tests and older callers use. */
export type LadderHost = WalkFeed;

/** Walks one feed's stored bars with time in [fromS, toS) (one UTC day) through its levels; true when halted. */
export function walkLadder(host: WalkFeed, fromS: number, toS: number, scratch: RuleThresholds): boolean {
  return walkLevel(host, 0, fromS, toS, scratch);
}

/**
 * Walks the feeds' stored bars with time in [fromS, toS) (one UTC day), merged in time order, the
 * list's order at one instant; true when a feed halted (the walk stops there; the feed knows where).
 */
export function walkFeeds(feeds: readonly WalkFeed[], fromS: number, toS: number, scratch: RuleThresholds): boolean {
  if (feeds.length === 1) return walkLevel(feeds[0], 0, fromS, toS, scratch);
  return walkMergedLevel(feeds, 0, sharedLevelCount(feeds), fromS, toS, scratch);
}

/** Walks [fromS, toS) day by day (each feed told the day first); true when a feed halted. */
export function walkDays(feeds: readonly DayFeed[], fromS: number, toS: number, scratch: RuleThresholds): boolean {
  for (let day = Math.floor(fromS / DAY_S); day * DAY_S < toS; day++) {
    const a = Math.max(fromS, day * DAY_S);
    for (const f of feeds) f.startDay(day, a);
    if (walkFeeds(feeds, a, Math.min(toS, (day + 1) * DAY_S), scratch)) return true;
  }
  return false;
}

function walkLevel(host: WalkFeed, k: number, fromS: number, toS: number, t: RuleThresholds): boolean {
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

/** True when bucket i of a level `widthS` wide can reach a trigger or the event time. */
export function bucketCanTrigger(bars: BarColumns, i: number, widthS: number, t: RuleThresholds): boolean {
  return bars.high[i] >= t.upTicks || bars.low[i] <= t.downTicks || bars.time[i] > t.eventS - widthS;
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

// ---- several feeds ----

/** Levels the feeds can walk together: those of equal width in every feed, coarsest first. */
function sharedLevelCount(feeds: readonly WalkFeed[]): number {
  let n = feeds[0].levelCount;
  for (const f of feeds) {
    let k = 0;
    while (k < n && k < f.levelCount && f.levelWidthS(k) === feeds[0].levelWidthS(k)) k++;
    n = k;
  }
  return n;
}

function walkMergedLevel(feeds: readonly WalkFeed[], k: number, levels: number, fromS: number, toS: number, t: RuleThresholds): boolean {
  if (fromS >= toS) return false;
  if (k >= levels) return walkMergedStored(feeds, fromS, toS);
  const w = feeds[0].levelWidthS(k);
  const bars: BarColumns[] = [];
  for (const f of feeds) {
    const b = f.level(k);
    // A feed without this rollup today: the span goes to the finer level for all of them.
    if (b === null) return walkMergedLevel(feeds, k + 1, levels, fromS, toS, t);
    bars.push(b);
  }
  const wholeFromS = Math.ceil(fromS / w) * w;
  const wholeToS = Math.floor(toS / w) * w;
  if (wholeFromS >= wholeToS) return walkMergedLevel(feeds, k + 1, levels, fromS, toS, t);
  if (walkMergedLevel(feeds, k + 1, levels, fromS, wholeFromS, t)) return true;
  const at = bars.map((b) => lowerBound(b.time, b.length, wholeFromS));
  const end = bars.map((b) => lowerBound(b.time, b.length, wholeToS));
  for (;;) {
    const bucketS = nextBucketS(bars, at, end);
    if (bucketS < 0) break;
    let quiet = true;
    for (let f = 0; f < feeds.length && quiet; f++) {
      if (at[f] === end[f] || bars[f].time[at[f]] !== bucketS) continue;
      feeds[f].triggers(t);
      quiet = !bucketCanTrigger(bars[f], at[f], w, t);
    }
    if (!quiet && walkMergedLevel(feeds, k + 1, levels, bucketS, bucketS + w, t)) return true;
    for (let f = 0; f < feeds.length; f++) {
      if (at[f] === end[f] || bars[f].time[at[f]] !== bucketS) continue;
      if (quiet) feeds[f].skipped(bars[f].close[at[f]], bucketS, w);
      at[f]++;
    }
  }
  return walkMergedLevel(feeds, k + 1, levels, wholeToS, toS, t);
}

/** The earliest next bucket start over the feeds (−1: none left). */
function nextBucketS(bars: readonly BarColumns[], at: readonly number[], end: readonly number[]): number {
  let s = -1;
  for (let f = 0; f < bars.length; f++) {
    if (at[f] < end[f] && (s < 0 || bars[f].time[at[f]] < s)) s = bars[f].time[at[f]];
  }
  return s;
}

/**
 * The feeds' stored bars in [fromS, toS), merged: at each step the earliest pending bar's feed (the
 * first in the list at a tie) walks its run of bars that precede every other feed's pending bar
 * (or share its instant, for a feed later in the list).
 */
function walkMergedStored(feeds: readonly WalkFeed[], fromS: number, toS: number): boolean {
  const times = feeds.map((f) => (f.storedTimes as () => { time: Uint32Array; length: number })());
  const at = times.map((c) => lowerBound(c.time, c.length, fromS));
  const end = times.map((c) => lowerBound(c.time, c.length, toS));
  for (;;) {
    let f = -1;
    for (let g = 0; g < feeds.length; g++) {
      if (at[g] < end[g] && (f < 0 || times[g].time[at[g]] < times[f].time[at[f]])) f = g;
    }
    if (f < 0) return false;
    let untilS = toS;
    for (let g = 0; g < feeds.length; g++) {
      if (g === f || at[g] === end[g]) continue;
      const s = times[g].time[at[g]] + (g > f ? 1 : 0);
      if (s < untilS) untilS = s;
    }
    if (feeds[f].walkStored(times[f].time[at[f]], untilS)) return true;
    at[f] = lowerBound(times[f].time, end[f], untilS, at[f]);
  }
}
