// An optimisation's search space (src/service/playground/optimize-space.ts): its size and indexes
// are exact past 2^53 (a random search over six axes of 500 values never ended before), every loop a
// request sizes is bounded before it runs, and a seed keeps the combinations it always drew.

import { describe, expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { type Axis, checkAxisValues, parseAxes, pointAt, searchIndexes, spaceSize } from '../../src/service/playground/optimize-space.ts';
import { findTemplate } from '../../src/service/playground/templates.ts';

const axes = (n: number, size: number): Axis[] => Array.from({ length: n }, (_, i) => ({ name: `p${i}`, values: Array.from({ length: size }, (_, v) => v) }));

describe('a space past 2^53', () => {
  const six = axes(6, 500);

  it('is counted exactly', () => {
    expect(spaceSize(six)).toBe(15_625_000_000_000_000n);
    expect(spaceSize(axes(50, 500))).toBe(500n ** 50n);
  });

  it('gives a random search its count of distinct indexes, ascending, inside the space, the same for one seed', () => {
    const size = spaceSize(six);
    const picked = searchIndexes(size, { kind: 'random', count: 500, seed: 1 });
    expect(picked.length).toBe(500);
    expect(new Set(picked).size).toBe(500);
    for (let i = 1; i < picked.length; i++) expect(picked[i] > picked[i - 1]).toBe(true);
    expect(picked[0] >= 0n && picked[499] < size).toBe(true);
    expect(searchIndexes(size, { kind: 'random', count: 500, seed: 1 })).toEqual(picked);
    expect(searchIndexes(size, { kind: 'random', count: 500, seed: 2 })).not.toEqual(picked);
    // Spread over the space, not bunched at its end (a double's j + 1 stops growing past 2^53).
    expect(picked.filter((x) => x < size / 2n).length).toBeGreaterThan(150);
  });

  it('is sampled over the largest space a request can describe (50 axes of 500 values)', () => {
    const picked = searchIndexes(spaceSize(axes(50, 500)), { kind: 'random', count: 500, seed: 9 });
    expect(new Set(picked).size).toBe(500);
  });

  it('maps an index to its point, last axis fastest', () => {
    const size = spaceSize(six);
    expect(pointAt(six, 0n)).toEqual({ p0: 0, p1: 0, p2: 0, p3: 0, p4: 0, p5: 0 });
    expect(pointAt(six, 501n)).toEqual({ p0: 0, p1: 0, p2: 0, p3: 0, p4: 1, p5: 1 });
    expect(pointAt(six, size - 1n)).toEqual({ p0: 499, p1: 499, p2: 499, p3: 499, p4: 499, p5: 499 });
  });
});

describe('spaces a double counts exactly', () => {
  it('keep the combinations each seed drew before', () => {
    // Drawn by the code before this change (the Number path it keeps).
    expect(searchIndexes(1000n, { kind: 'random', count: 10, seed: 1 })).toEqual([2n, 279n, 425n, 523n, 611n, 621n, 719n, 963n, 975n, 994n]);
    expect(searchIndexes(2n ** 40n, { kind: 'random', count: 5, seed: 7 })).toEqual([12869512191n, 68123824639n, 573335136000n, 768590190079n, 1074121301502n]);
    expect(searchIndexes(2n ** 53n - 1n, { kind: 'random', count: 3, seed: 42 })).toEqual([4037842388910079n, 5414261266317310n, 7678329259819007n]);
  });

  it('a grid, or a sample at least as large as the space, is every point', () => {
    expect(searchIndexes(4n, { kind: 'grid' })).toEqual([0n, 1n, 2n, 3n]);
    expect(searchIndexes(3n, { kind: 'random', count: 10, seed: 1 })).toEqual([0n, 1n, 2n]);
  });

  it('refuses to list a search larger than an optimisation may be (a bug in the caller)', () => {
    expect(() => searchIndexes(BigInt(limits.playgroundOptimizeCombinationsMax + 1), { kind: 'grid' })).toThrow('a search of 501 points');
  });
});

describe('parseAxes counts before it makes or checks values', () => {
  it('custom code: more axes than a run takes params is refused at once', () => {
    const params = Object.fromEntries(Array.from({ length: 22_000 }, (_, i) => [`p${i}`, { values: [1, 2] }]));
    expect(parseAxes(params, null)).toEqual({ ok: false, error: { kind: 'invalid_params', message: 'Too many params (at most 50)' } });
  });

  it('a template: the first unknown param is refused', () => {
    const params = { fast: 5, ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, 1])) };
    expect(parseAxes(params, findTemplate('sma_cross')!)).toEqual({ ok: false, error: { kind: 'invalid_params', message: 'Unknown param p0' } });
  });

  it('a range over too many values is refused before it is made, even one that overflows', () => {
    expect(parseAxes({ x: { min: -1e308, max: 1e308, step: 1e-300 } }, null)).toEqual({
      ok: false, error: { kind: 'invalid_params', message: `Range of x has Infinity values; at most ${limits.playgroundOptimizeCombinationsMax}` },
    });
  });

  it('values are checked one at a time against their param, then one whole point', () => {
    const t = findTemplate('sma_cross')!;
    const shape = parseAxes({ fast: { values: [5, 1] } }, t);
    if (!shape.ok) throw new Error('shape');
    expect(checkAxisValues(shape.value, t, { fast: 10, slow: 30, size: 1 })).toEqual({ ok: false, error: { kind: 'invalid_params', message: 'Param fast must be between 2 and 200' } });
    const custom = parseAxes({ a: { values: [1, Number.MAX_VALUE] }, b: 'x' }, null);
    if (!custom.ok) throw new Error('shape');
    expect(checkAxisValues(custom.value, null, {}).ok).toBe(true);
    // A saved strategy's 49 params plus two axes make 51: the whole point says so.
    const base = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`s${i}`, i]));
    expect(checkAxisValues(custom.value, null, base)).toEqual({ ok: false, error: { kind: 'invalid_params', message: 'Too many params (at most 50)' } });
  });
});
