// Browser side of bench/chart-append.bench.ts: the console's PriceChart on a page, timed from the
// page itself. Bundled by the bench with Bun.build; not part of the console.

import { type ApiBar, PriceChart } from '../src/console/chart.ts';

/** `n` one-minute bars from 2025-02-03, a deterministic walk (xorshift32) around 20,000. */
function bars(n: number, fromS: number): ApiBar[] {
  const out: ApiBar[] = [];
  let seed = 0x9e3779b9;
  let p = 20_000;
  for (let i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    const o = p;
    p += ((seed >>> 0) % 9) - 4;
    out.push({ t: new Date((fromS + i * 60) * 1000).toISOString(), o: o / 4, h: (Math.max(o, p) + 1) / 4, l: (Math.min(o, p) - 1) / 4, c: p / 4, v: 10 + ((seed >>> 0) % 90) });
  }
  return out;
}

const HISTORY = 500;
const FROM_S = Date.UTC(2025, 1, 3) / 1000;

/**
 * Draws HISTORY bars, then appends `n` more in appends of `chunk` bars (1: bar by bar, as the
 * market hub delivers playback; n: one jump). Returns the time of the appends and what the chart holds.
 */
function run(n: number, chunk: number): { ms: number; bars: number; lastTime: string } {
  const el = document.getElementById('chart')!;
  const all = bars(HISTORY + n, FROM_S);
  const c = new PriceChart(el, { precision: 2, minMove: 0.25 });
  c.setBars(all.slice(0, HISTORY));
  c.showLast(160);
  const t0 = performance.now();
  for (let i = HISTORY; i < all.length; i += chunk) c.appendBars(all.slice(i, i + chunk));
  const ms = performance.now() - t0;
  const out = { ms, bars: c.barCount, lastTime: el.dataset.lastTime ?? '' };
  c.destroy();
  return out;
}

(window as unknown as { benchRun: typeof run }).benchRun = run;
