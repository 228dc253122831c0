// The desk's chart drawing a jump: the console's PriceChart in headless
// Chromium appending a month of 1 m bars (28,740) at once, as a jump does, against the same bars
// appended one by one (each append of up to 50 bars is per-bar updates, as playback is; before
// the fix every append was, and a one-month jump took 51 s in the browser). Timed inside the page;
// prints medians, and the per-bar rate of the update path at sizes it can finish.
//
// Run: ./node_modules/.bin/bun bench/chart-append.bench.ts   (needs Chromium: apt-get install -y chromium)

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BunPlugin } from 'bun';
import { ROOT } from './root.ts';
import { median } from './support.ts';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/chromium-headless-shell'].find((p) => p && existsSync(p));
if (!CHROMIUM) {
  console.log('chart-append: no Chromium found (apt-get install -y chromium); skipped');
  process.exit(0);
}

// The page is this checkout's; the chart it draws is the checkout under test's (ROOT, bench/root.ts).
const underTest: BunPlugin = {
  name: 'chart-under-test',
  setup(b) {
    b.onResolve({ filter: /\/src\/console\/chart\.ts$/ }, () => ({ path: join(ROOT, 'src/console/chart.ts') }));
  },
};
const built = await Bun.build({ entrypoints: [join(import.meta.dir, 'chart-append-page.ts')], target: 'browser', minify: true, plugins: [underTest] });
if (!built.success) throw new Error(built.logs.map(String).join('\n'));
const js = await built.outputs[0].text();
const html = `<!doctype html><html><body style="margin:0"><div id="chart" style="position:absolute;inset:0"></div><script type="module">${js}</script></body></html>`;
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(html, { headers: { 'content-type': 'text/html' } }) });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });

interface Run {
  ms: number;
  bars: number;
  lastTime: string;
}

try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await page.goto(`http://127.0.0.1:${server.port}/`);
  await page.waitForFunction('typeof window.benchRun === "function"');
  const time = async (n: number, chunk: number, runs: number): Promise<number> => {
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = (await page.evaluate(`window.benchRun(${n}, ${chunk})`)) as Run;
      if (r.bars !== 500 + n) throw new Error(`chart holds ${r.bars} bars, expected ${500 + n}`);
      ms.push(r.ms);
    }
    return median(ms);
  };
  console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
  const month = await time(28_740, 28_740, 5);
  console.log(`one append of 28,740 bars (a month of 1 m, one setData): median ${month.toFixed(0)} ms over 5 runs`);
  const day = await time(1_380, 1_380, 5);
  console.log(`one append of 1,380 bars (a day of 1 m): median ${day.toFixed(1)} ms`);
  for (const n of [500, 2_000]) {
    const perBar = await time(n, 1, 3);
    console.log(`${n.toLocaleString('en-US')} appends of 1 bar (per-bar updates): median ${perBar.toFixed(0)} ms, ${((perBar / n) * 1000).toFixed(0)} µs a bar`);
    const once = await time(n, n, 5);
    console.log(`  the same ${n.toLocaleString('en-US')} bars in one append: median ${once.toFixed(1)} ms — ${(perBar / once).toFixed(0)}× faster`);
  }
} finally {
  await browser.close();
  server.stop(true);
}
