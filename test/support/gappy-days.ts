// Random days for the walk tests (test/service/ladder-walk.test.ts, test/service/walker.test.ts): a
// seeded xorshift generator, and imported-looking days of 1 s bars with gaps across minutes and hours,
// so the walks meet rollups with holes and stretches that end inside a bucket.

import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';

const D = 86_400;

/** A seeded xorshift32 generator of numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4_294_967_296;
  };
}

/** An imported day of 1 s bars: a random walk from `baseTicks` in stretches, with gaps across minutes and hours. */
export function importedDay(day: number, baseTicks: number, seed: number): BarColumns {
  const r = rng(seed);
  const out = allocBars(D);
  let n = 0;
  let px = baseTicks;
  let t = day * D + Math.floor(r() * 3_000);
  while (t < (day + 1) * D) {
    const runS = 60 + Math.floor(r() * 5_000);
    for (let k = 0; k < runS && t < (day + 1) * D; k++, t++) {
      const o = px;
      const c = o + Math.round((r() - 0.5) * 4);
      out.time[n] = t;
      out.open[n] = o;
      out.high[n] = Math.max(o, c) + (r() < 0.2 ? 1 : 0);
      out.low[n] = Math.min(o, c) - (r() < 0.2 ? 1 : 0);
      out.close[n] = c;
      out.volume[n] = 1 + Math.floor(r() * 50);
      px = c;
      n++;
    }
    t += Math.floor(r() * 7_200);
  }
  out.length = n;
  return out;
}
