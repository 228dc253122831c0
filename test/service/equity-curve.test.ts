// The bounded equity curve (src/service/playground/equity-curve.ts): the whole span at a bounded
// number of points, every bucket's lowest, highest and last close kept, compared with cutting the
// bars at the final width by hand.

import { describe, expect, it } from 'bun:test';
import { EquityCurve, equityBucketsFor, type EquityPoint } from '../../src/service/playground/equity-curve.ts';

/** A deterministic walk of `n` bar closes, one a minute: a random walk with a deep dip at `dipAt`. */
function walk(n: number, dipAt: number): EquityPoint[] {
  let seed = 7;
  let v = 5_000_000;
  return Array.from({ length: n }, (_, i) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    v += (seed % 2001) - 1000;
    return { timeS: 1_700_000_000 + 60 * i, equityCents: i === dipAt ? v - 900_000 : v };
  });
}

/** The points cutting `bars` into buckets of `width` gives, by hand. */
function expected(bars: EquityPoint[], width: number, end: EquityPoint | null): EquityPoint[] {
  const out: EquityPoint[] = [bars[0]];
  for (let s = 0; s < bars.length; s += width) {
    const b = bars.slice(s, s + width);
    const lo = b.reduce((m, p) => (p.equityCents < m.equityCents ? p : m));
    const hi = b.reduce((m, p) => (p.equityCents > m.equityCents ? p : m));
    for (const p of [...[lo, hi].sort((x, y) => x.timeS - y.timeS), b[b.length - 1]]) {
      if (out[out.length - 1].timeS !== p.timeS) out.push(p);
    }
  }
  if (end !== null) {
    if (out[out.length - 1].timeS === end.timeS) out[out.length - 1] = end;
    else out.push(end);
  }
  return out;
}

describe('EquityCurve', () => {
  it('sizes buckets so first, three a bucket and the end fit the bound', () => {
    expect(equityBucketsFor(2000)).toBe(666);
    expect(equityBucketsFor(11)).toBe(2);
    expect(3 * equityBucketsFor(2000) + 2).toBeLessThanOrEqual(2000);
  });

  it('keeps every bar while the buckets are one bar wide', () => {
    const c = new EquityCurve(8);
    const bars = walk(8, 3);
    for (const p of bars) c.add(p.timeS, p.equityCents);
    expect(c.points()).toEqual(bars);
  });

  it.each([
    ['one bucket short of a merge', 8, 8],
    ['just past the first merge', 9, 8],
    ['many merges, a partial last bucket', 1_000, 8],
    ['a year of 1 m bars at the real bound', 358_800, equityBucketsFor(2000)],
  ])('%s: %i bars in at most %i buckets equal cutting them by hand', (_name, n, buckets) => {
    const bars = walk(n, Math.floor(n * 0.61));
    const c = new EquityCurve(buckets);
    for (const p of bars) c.add(p.timeS, p.equityCents);
    const end = { timeS: bars[n - 1].timeS, equityCents: 4_000_000 };
    c.end(end.timeS, end.equityCents);
    let width = 1;
    while (Math.ceil(n / width) > buckets) width *= 2;
    const points = c.points();
    expect(points).toEqual(expected(bars, width, end));
    expect(points.length).toBeLessThanOrEqual(3 * buckets + 2);
    if (n > buckets) expect(Math.ceil(n / width)).toBeGreaterThan(buckets / 2);
    // The whole span, the deepest and highest closes on the curve, times strictly increasing.
    expect(points[0]).toEqual(bars[0]);
    expect(points.at(-1)).toEqual(end);
    const lowest = bars.reduce((m, p) => (p.equityCents < m.equityCents ? p : m));
    const highest = bars.reduce((m, p) => (p.equityCents > m.equityCents ? p : m));
    expect(points).toContainEqual(lowest);
    expect(points).toContainEqual(highest);
    for (let i = 1; i < points.length; i++) expect(points[i].timeS).toBeGreaterThan(points[i - 1].timeS);
  });

  it('an end after the last bar is a point of its own; no bar, no point', () => {
    const c = new EquityCurve(4);
    expect(c.points()).toEqual([]);
    c.add(100, 5);
    c.end(160, 7);
    expect(c.points()).toEqual([{ timeS: 100, equityCents: 5 }, { timeS: 160, equityCents: 7 }]);
  });
});
