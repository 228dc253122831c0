// The server's checks on what a runner child sends (src/service/playground/messages.ts): actions
// must be known operations with values in range, in the batch, in order; anything else is a
// protocol violation that fails the run.
import { describe, expect, it } from 'bun:test';
import type { Decoded } from '../../src/lib/json.ts';
import { logLines, logTimes, optionalText, parseActions, RunEnd } from '../../src/service/playground/messages.ts';

describe('parseActions', () => {
  it('accepts places, cancels and closes of the batch, in bar order', () => {
    expect(parseActions([
      [10, 'place', 2, 0, 1, null, null, 8, 12],
      [10, 'cancel', 3],
      [11, 'close', null],
      [12, 'close', 2],
      [12, 'place', 3, 1, 1000, 100, 104, null, null],
    ], 10, 13)).toEqual([
      { k: 10, op: 'place', type: 2, side: 0, size: 1, limit: null, stop: null, sl: 8, tp: 12 },
      { k: 10, op: 'cancel', id: 3 },
      { k: 11, op: 'close', size: null },
      { k: 12, op: 'close', size: 2 },
      { k: 12, op: 'place', type: 3, side: 1, size: 1000, limit: 100, stop: 104, sl: null, tp: null },
    ]);
  });

  const bad: [string, Decoded][] = [
    ['not an array', { 0: [10, 'close', null] }],
    ['a bar before the batch', [[9, 'close', null]]],
    ['a bar after the batch', [[13, 'close', null]]],
    ['bars out of order', [[12, 'close', null], [11, 'close', null]]],
    ['an unknown operation', [[10, 'transfer', 1]]],
    ['a fractional bar', [[10.5, 'close', null]]],
    ['an unknown order type', [[10, 'place', 5, 0, 1, null, null, null, null]]],
    ['an unknown side', [[10, 'place', 2, 2, 1, null, null, null, null]]],
    ['a size over 1000', [[10, 'place', 2, 0, 1001, null, null, null, null]]],
    ['a zero size', [[10, 'place', 2, 0, 0, null, null, null, null]]],
    ['a price beyond the engine range', [[10, 'place', 1, 0, 1, 2e9, null, null, null]]],
    ['a price that is text', [[10, 'place', 1, 0, 1, '100', null, null, null]]],
    ['a short place', [[10, 'place', 2, 0, 1]]],
    ['a cancel without id', [[10, 'cancel']]],
    ['a close of 0', [[10, 'close', 0]]],
  ];
  for (const [what, acts] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => parseActions(acts, 10, 13)).toThrow(RunEnd);
    });
  }

  it('refuses more than 100,000 actions in one batch', () => {
    expect(() => parseActions(Array.from({ length: 100_001 }, () => [10, 'close', null]), 10, 11)).toThrow(RunEnd);
  });
});

describe('texts from the child', () => {
  it('log lines must be strings; error texts are cut at 16 KB', () => {
    expect(logLines(['a', 'b'])).toEqual(['a', 'b']);
    expect(logLines(undefined)).toEqual([]);
    expect(() => logLines(['a', 1])).toThrow(RunEnd);
    expect(() => logLines('a')).toThrow(RunEnd);
    expect(optionalText(null, 'error')).toBeNull();
    expect(optionalText('x'.repeat(20_000), 'error')?.length).toBe(16_384);
    expect(() => optionalText(5, 'error')).toThrow(RunEnd);
  });
});

describe('logTimes', () => {
  it('takes one bar time or null per line inside the run span; absent times are null', () => {
    expect(logTimes([100, null, 199], 3, 100, 200)).toEqual([100, null, 199]);
    expect(logTimes(undefined, 2, 100, 200)).toEqual([null, null]);
  });

  const bad: [string, Decoded][] = [
    ['fewer times than lines', [100]],
    ['a time before the span', [99, null]],
    ['a time at its end', [200, null]],
    ['a fractional time', [100.5, null]],
    ['a time that is text', ['100', null]],
    ['not an array', { 0: 100, 1: null }],
  ];
  for (const [what, v] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => logTimes(v, 2, 100, 200)).toThrow(RunEnd);
    });
  }
});

describe('parseActions: trailing stops and modify (the strategy API\'s gateway order types)', () => {
  it('accepts an 11-field place (trail, stop-loss type) and a modify', () => {
    expect(parseActions([
      [10, 'place', 5, 1, 2, null, null, null, 40, 8, null],
      [10, 'place', 2, 0, 1, null, null, 12, 60, null, 5],
      [11, 'modify', 3, 2, 100, null, null],
      [11, 'modify', 4, null, null, null, 6],
    ], 10, 12)).toEqual([
      { k: 10, op: 'place', type: 5, side: 1, size: 2, limit: null, stop: null, sl: null, tp: 40, trail: 8, slType: null },
      { k: 10, op: 'place', type: 2, side: 0, size: 1, limit: null, stop: null, sl: 12, tp: 60, trail: null, slType: 5 },
      { k: 11, op: 'modify', id: 3, size: 2, limit: 100, stop: null, trail: null },
      { k: 11, op: 'modify', id: 4, size: null, limit: null, stop: null, trail: 6 },
    ]);
  });

  const bad: [string, Decoded][] = [
    ['a trailing stop without its trail', [[10, 'place', 5, 1, 1, null, null, null, null, null, null]]],
    ['a trail on a limit', [[10, 'place', 1, 0, 1, 100, null, null, null, 8, null]]],
    ['a trail of 0', [[10, 'place', 5, 1, 1, null, null, null, null, 0, null]]],
    ['a trail beyond the engine\'s bound', [[10, 'place', 5, 1, 1, null, null, null, null, 1_000_001, null]]],
    ['a limit stop-loss type', [[10, 'place', 2, 0, 1, null, null, 8, null, null, 1]]],
    ['a JoinBid (not in the strategy API)', [[10, 'place', 6, 0, 1, null, null, null, null, null, null]]],
    ['a modify of a size 0', [[10, 'modify', 3, 0, null, null, null]]],
    ['a modify without an id', [[10, 'modify', null, 1, null, null, null]]],
    ['a short modify', [[10, 'modify', 3, 1]]],
  ];
  for (const [what, acts] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => parseActions(acts, 10, 13)).toThrow(RunEnd);
    });
  }
});
