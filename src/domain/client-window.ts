// A client's time window read on the replay clock (the live profile, docs/decisions.md, "Live profile").
//
// Bots written for the live gateway compute their windows from their own wall clock: "bars of the
// last 3 days until now", "orders of the last 24 hours". During a replay, "now" is the session's
// simulated time S, not the wall clock W. The rule, for bounds in epoch milliseconds:
// - End: a bound at or after W − tolerance is the client's "now" (possibly rounded down, to the
//   minute or the hour) and means S; any other bound after S becomes S, so nothing after the
//   session's time is ever served; a bound at or before S stays as sent.
// - Start: a bound after S cannot be simulated time, so it is a wall-clock time and moves back by
//   W − S: "3 days before now" becomes exactly the 3 days before S. A bound at or before S stays.
// - An absent bound stays absent (the endpoint's default applies).
// Without a session, S is W and only the end's clamp to W remains. A window longer than W − S whose
// start reaches back before S (a replay of yesterday, "the last 3 days") cannot be told from a window
// in simulated time and is read as sent.

export interface ClientWindow {
  /** Epoch ms, or null when the client sent none. */
  readonly startMs: number | null;
  readonly endMs: number | null;
}

export interface ClockTimes {
  /** The session's simulated time S (epoch ms); the wall clock when there is no session. */
  readonly sessionMs: number;
  /** The wall clock W (epoch ms). */
  readonly wallMs: number;
  /** How far before W an end bound still means "now". */
  readonly nowToleranceMs: number;
}

export function readClientWindow(w: ClientWindow, c: ClockTimes): ClientWindow {
  const { sessionMs: s, wallMs } = c;
  const endMs = w.endMs === null ? null : w.endMs >= wallMs - c.nowToleranceMs || w.endMs > s ? s : w.endMs;
  const startMs = w.startMs === null || w.startMs <= s ? w.startMs : w.startMs - Math.max(0, wallMs - s);
  return { startMs, endMs };
}
