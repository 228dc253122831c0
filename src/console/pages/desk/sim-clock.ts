// The desk's one time rule. Every time is 24-hour, written `YYYY-MM-DD HH:MM:SS` (the jump box
// takes `YYYY-MM-DD HH:MM`), in the time zone chosen in Settings: UTC unless changed (the console's
// one time format, ../../time-format.ts). Bars are named by their open (the chart's axis and
// crosshair, History's `t`); the session's clock is the simulated now, as the server keeps it: the
// close of the last bar played. So a fill, which happens inside a played bar, never reads later
// than the clock, and a jump to 14:00 leaves the clock at 14:00.

import { formatTime, parseZoned } from '../../time-format.ts';

/** The simulated now after the bar opening at `lastBarOpen` (ISO) was played; `widthS` is the timeframe's width. */
export function clockAfter(lastBarOpen: string | null, widthS: number): string | null {
  if (lastBarOpen === null) return null;
  return new Date(Date.parse(lastBarOpen) + widthS * 1000).toISOString();
}

/** An ISO time as the jump box writes it, in the chosen zone: `2025-03-03 14:30`. */
export function jumpBoxText(iso: string): string {
  return formatTime(iso).slice(0, 16);
}

/**
 * What the jump box holds, a wall time in the chosen zone, as ISO 8601 UTC: `YYYY-MM-DD HH:MM`, with
 * optional `:SS` and a `T` in place of the space; null when it is not such a time.
 */
export function parseJumpBox(text: string): string | null {
  return parseZoned(text);
}
