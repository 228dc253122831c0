// Builders for known bar data in tests.
import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';

/** `n` consecutive bars every `stepS` seconds from `startS`: open = base + i, high +2, low −1, close +1, volume 1. */
export function rampBars(startS: number, n: number, baseTicks: number, stepS = 1): BarColumns {
  const b = allocBars(n);
  for (let i = 0; i < n; i++) {
    b.time[i] = startS + i * stepS;
    b.open[i] = baseTicks + i;
    b.high[i] = baseTicks + i + 2;
    b.low[i] = baseTicks + i - 1;
    b.close[i] = baseTicks + i + 1;
    b.volume[i] = 1;
  }
  b.length = n;
  return b;
}

/** Bars from rows `[timeS, o, h, l, c, v]` in ticks. */
export function barsOf(rows: number[][]): BarColumns {
  const b = allocBars(rows.length);
  rows.forEach(([t, o, h, l, c, v], i) => {
    b.time[i] = t;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = v ?? 1;
  });
  b.length = rows.length;
  return b;
}

export const dayOf = (iso: string) => Math.floor(Date.parse(iso) / 86_400_000);
export const secondsOf = (iso: string) => Math.floor(Date.parse(iso) / 1000);
