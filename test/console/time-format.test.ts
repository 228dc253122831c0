// The console's one time format in each zone Settings offers: times written in the zone, times typed
// in the zone read back as the same instant (the jump box), daylight-saving edges included.
import { afterEach, describe, expect, it } from 'bun:test';
import { jumpBoxText, parseJumpBox } from '../../src/console/pages/desk/sim-clock.ts';
import { formatTime, parseZoned, setTimeZone, zoneLabel } from '../../src/console/time-format.ts';

afterEach(() => setTimeZone('UTC'));

describe('formatTime', () => {
  it.each([
    ['UTC', '2025-03-03T14:30:05Z', '2025-03-03 14:30:05', 'UTC'],
    ['America/Chicago', '2025-03-03T14:30:05Z', '2025-03-03 08:30:05', 'CT'], // CST, UTC−6
    ['America/Chicago', '2025-07-01T14:30:05Z', '2025-07-01 09:30:05', 'CT'], // CDT, UTC−5
    ['America/New_York', '2025-03-03T14:30:05Z', '2025-03-03 09:30:05', 'ET'],
    ['America/New_York', '2025-03-03T04:00:00Z', '2025-03-02 23:00:00', 'ET'], // the day before
  ] as const)('%s: %s reads %s', (zone, iso, text, label) => {
    setTimeZone(zone);
    expect(formatTime(iso)).toBe(text);
    expect(formatTime(Date.parse(iso))).toBe(text);
    expect(zoneLabel()).toBe(label);
  });

  it('writes — for no time', () => expect(formatTime(null)).toBe('—'));
});

describe('parseZoned and the jump box', () => {
  it.each([
    ['UTC', '2025-03-03 14:30', '2025-03-03T14:30:00Z'],
    ['America/Chicago', '2025-03-03 08:30', '2025-03-03T14:30:00Z'],
    ['America/Chicago', '2025-07-01 09:30:15', '2025-07-01T14:30:15Z'],
    ['America/New_York', '2025-03-09 01:59', '2025-03-09T06:59:00Z'], // the last minute of EST
    ['America/New_York', '2025-03-09 03:00', '2025-03-09T07:00:00Z'], // the first of EDT
  ] as const)('%s: %s is %s, and writes back the same', (zone, text, iso) => {
    setTimeZone(zone);
    expect(parseZoned(text)).toBe(iso);
    expect(parseJumpBox(text)).toBe(iso);
    expect(jumpBoxText(iso)).toBe(text.slice(0, 16));
  });

  it.each(['2025-03-03', '14:30', '2025-02-30 10:00', '2025-03-03 25:00', '3/3/2025 2:30 PM'])('refuses %s', (text) => {
    setTimeZone('America/Chicago');
    expect(parseZoned(text)).toBeNull();
  });
});
