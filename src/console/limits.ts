// The browser bundle's bounds (it imports no server module, so its limits live here, not in config.ts).

/** Hub connection attempts (start or reconnect) before the page gives up and says so: about ten minutes. */
export const HUB_ATTEMPTS_MAX = 64;

/** Above this many new bars a chart append is one setData over the merged rows instead of per-bar updates. */
export const CHART_UPDATES_PER_APPEND_MAX = 50;

/**
 * A chart hands its series at most this many of the latest bars at once (desk, issue 30): a month of
 * 1 m bars set at once held the tab for over a second. Every bar is kept; scrolling to the oldest
 * drawn bars draws this many more.
 */
export const CHART_DRAWN_BARS_MAX = 4_000;

// Unit-suffixed limits that lived beside their code until a tidy rule brought them here (seam-tidy).

/** Waits before each hub reconnect attempt: quick at first, then every 10 s. */
export const HUB_RETRY_DELAYS_MS: readonly number[] = [0, 1000, 2000, 5000, 10_000];

/** The desk's challenge panel reads the figures at most once every this long (one read in flight). */
export const CHALLENGE_READ_GAP_MS = 350;

// Desk order tools (issue 30): bracket templates (templates-model.ts).

/** At most this many bracket templates, kept in this browser. */
export const BRACKET_TEMPLATES_MAX = 20;

/** A bracket template's name has at most this many characters (a select lists them). */
export const TEMPLATE_NAME_CHARS_MAX = 32;
