// A client's window read on the replay clock (src/domain/client-window.ts): one row per case, with
// the session at S = 2025-03-05 15:00 and the wall clock at W = 2026-11-28 09:00, tolerance 1 h.
import { describe, expect, it } from 'bun:test';
import { readClientWindow } from '../../src/domain/client-window.ts';

const ms = (iso: string) => Date.parse(iso);
const S = ms('2025-03-05T15:00:00Z');
const W = ms('2026-11-28T09:00:00Z');
const H = 3_600_000;
const D = 24 * H;
const clock = { sessionMs: S, wallMs: W, nowToleranceMs: H };

describe('readClientWindow', () => {
  // name, [start, end] as sent, [start, end] as read
  const table: [string, [number | null, number | null], [number | null, number | null]][] = [
    ['"the last 3 days until now" is the 3 days before S', [W - 3 * D, W], [S - 3 * D, S]],
    ['"the last 24 hours until now" is the 24 hours before S', [W - D, W], [S - D, S]],
    ['a "now" rounded down to the minute still means S', [W - 3 * D - 30_000, W - 30_000], [S - 3 * D - 30_000, S]],
    ['a "now" rounded down to the hour (at the tolerance) still means S', [W - 3 * D - H, W - H], [S - 3 * D - H, S]],
    ['a client clock ahead of the server: an end after W means S', [W - D + 5_000, W + 5_000], [S - D + 5_000, S]],
    ['an end after S (a wall-clock day ago) is never the future: S', [W - 2 * D, W - D], [S - 2 * D, S]],
    ['a window in simulated time is read as sent', [S - 2 * D, S - D], [S - 2 * D, S - D]],
    ['an end at S stays', [S - D, S], [S - D, S]],
    ['a simulated start with a wall-clock end: the start stays, the end is S', [ms('2025-03-01T00:00:00Z'), W], [ms('2025-03-01T00:00:00Z'), S]],
    ['no bounds: both absent (the endpoint\'s defaults)', [null, null], [null, null]],
    ['a wall-clock start alone moves back; the end stays absent', [W - 3 * D, null], [S - 3 * D, null]],
    ['a simulated end alone stays; the start stays absent', [null, S - H], [null, S - H]],
    ['a wall-clock end alone means S', [null, W], [null, S]],
  ];
  it.each(table)('%s', (_name, [startMs, endMs], [startRead, endRead]) => {
    expect(readClientWindow({ startMs, endMs }, clock)).toEqual({ startMs: startRead, endMs: endRead });
  });

  it('without a session S is W: only the end is held to W', () => {
    const wall = { sessionMs: W, wallMs: W, nowToleranceMs: H };
    expect(readClientWindow({ startMs: W - 3 * D, endMs: W }, wall)).toEqual({ startMs: W - 3 * D, endMs: W });
    expect(readClientWindow({ startMs: W - 3 * D, endMs: W + D }, wall)).toEqual({ startMs: W - 3 * D, endMs: W });
  });

  it('a session within the tolerance of the wall clock: an end between W − tolerance and S still means S', () => {
    const recent = { sessionMs: W - 10 * 60_000, wallMs: W, nowToleranceMs: H };
    expect(readClientWindow({ startMs: null, endMs: W - 20 * 60_000 }, recent)).toEqual({ startMs: null, endMs: W - 10 * 60_000 });
    // Before the tolerance it is a simulated time.
    expect(readClientWindow({ startMs: null, endMs: W - 2 * H }, recent)).toEqual({ startMs: null, endMs: W - 2 * H });
  });
});
