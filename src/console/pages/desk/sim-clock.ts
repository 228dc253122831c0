// The desk's one time rule. Every time is UTC, 24-hour, written `YYYY-MM-DD HH:MM:SS` (the jump box
// takes `YYYY-MM-DD HH:MM`). Bars are named by their open (the chart's axis and crosshair, History's
// `t`); the session's clock is the simulated now, as the server keeps it: the close of the last bar
// played. So a fill, which happens inside a played bar, never reads later than the clock, and a jump
// to 14:00 leaves the clock at 14:00.

/** The simulated now after the bar opening at `lastBarOpen` (ISO) was played; `widthS` is the timeframe's width. */
export function clockAfter(lastBarOpen: string | null, widthS: number): string | null {
  if (lastBarOpen === null) return null;
  return new Date(Date.parse(lastBarOpen) + widthS * 1000).toISOString();
}

/** An ISO time as the jump box writes it: `2025-03-03 14:30`. */
export function jumpBoxText(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

/**
 * What the jump box holds, as ISO 8601 UTC: `YYYY-MM-DD HH:MM`, with optional `:SS`, a `T` in place
 * of the space, and a trailing `Z`; null when it is not such a time.
 */
export function parseJumpBox(text: string): string | null {
  const m = /^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?\s*$/.exec(text);
  if (!m) return null;
  const iso = `${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}Z`;
  const ms = Date.parse(iso);
  // Date.parse rolls 25:00 or 02-30 over instead of refusing: a round trip catches it.
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== iso.slice(0, 19) ? null : iso;
}
