// The desk's time rule: the clock is the close of the last bar played; the jump box reads UTC.
import { describe, expect, it } from 'bun:test';
import { clockAfter, jumpBoxText, parseJumpBox } from '../../src/console/pages/desk/sim-clock.ts';

describe('sim clock', () => {
  it('is the close of the last bar played, at the session timeframe', () => {
    expect(clockAfter('2025-03-03T14:29:00Z', 60)).toBe('2025-03-03T14:30:00.000Z');
    expect(clockAfter('2025-03-03T14:29:50Z', 10)).toBe('2025-03-03T14:30:00.000Z');
    expect(clockAfter('2025-03-03T12:00:00Z', 14_400)).toBe('2025-03-03T16:00:00.000Z');
    expect(clockAfter(null, 60)).toBeNull();
  });

  it.each([
    ['2025-03-03 14:30', '2025-03-03T14:30:00Z'],
    ['2025-03-03T14:30', '2025-03-03T14:30:00Z'],
    [' 2025-03-03 14:30:15Z ', '2025-03-03T14:30:15Z'],
    ['2025-03-03 25:00', null],
    ['2025-02-30 10:00', null],
    ['3/3/2025 2:30 PM', null],
    ['2025-03-03', null],
  ])('reads the jump box %p as %p', (text, iso) => {
    expect(parseJumpBox(text)).toBe(iso);
  });

  it('writes the jump box as it reads it', () => {
    expect(jumpBoxText('2025-03-03T14:30:00.000Z')).toBe('2025-03-03 14:30');
    expect(parseJumpBox(jumpBoxText('2025-03-03T14:30:00.000Z'))).toBe('2025-03-03T14:30:00Z');
  });
});
