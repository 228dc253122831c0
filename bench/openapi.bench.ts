// Startup cost of the API reference: what mounting it adds to building the app, what the first
// request for each document costs (the document is built then, from the endpoint registries, and
// cached by the plugin), and what later requests cost. Cold figures are medians over fresh
// processes, since a process builds each document once.
//
// Run: ./node_modules/.bin/bun bench/openapi.bench.ts

import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import { ManualClock } from '../src/lib/clock.ts';
import { randomSecret } from '../src/lib/secrets.ts';
import { apiReference, REFERENCE_MOUNTS } from '../src/http/openapi/index.ts';
import { buildDocument } from '../src/http/openapi/document.ts';
import { createServices } from '../src/service/services.ts';
import { openDb } from '../src/store/db.ts';
import { median } from './support.ts';

const PROCESSES = 7;
const WARM_REQUESTS = 200;

interface Cold {
  mountMs: number;
  firstMs: Record<string, number>;
  warmMs: Record<string, number>;
  bytes: Record<string, number>;
  buildWarmMs: Record<string, number>;
}

async function child(): Promise<Cold> {
  const s = createServices({ config: defaultConfig({}), clock: new ManualClock(Date.UTC(2025, 2, 3)), db: openDb(':memory:'), jwtSecret: new TextEncoder().encode(randomSecret()) });
  let t = performance.now();
  apiReference();
  const mountMs = performance.now() - t;
  const app = buildApp(s);
  const out: Cold = { mountMs, firstMs: {}, warmMs: {}, bytes: {}, buildWarmMs: {} };
  for (const m of REFERENCE_MOUNTS) {
    const url = `http://localhost${m.pagePath}/json`;
    t = performance.now();
    const body = await (await app.handle(new Request(url))).text();
    out.firstMs[m.pagePath] = performance.now() - t;
    out.bytes[m.pagePath] = body.length;
    const warm: number[] = [];
    for (let i = 0; i < WARM_REQUESTS; i++) {
      t = performance.now();
      await (await app.handle(new Request(url))).text();
      warm.push(performance.now() - t);
    }
    out.warmMs[m.pagePath] = median(warm);
    const builds: number[] = [];
    for (let i = 0; i < 20; i++) {
      t = performance.now();
      buildDocument(m.reference);
      builds.push(performance.now() - t);
    }
    out.buildWarmMs[m.pagePath] = median(builds);
  }
  return out;
}

async function main(): Promise<void> {
  const runs: Cold[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    const p = Bun.spawnSync([process.execPath, import.meta.path, '--child'], { stderr: 'inherit' });
    runs.push(JSON.parse(p.stdout.toString()));
  }
  const f = (x: number) => `${x.toFixed(2)} ms`;
  console.log(`apiReference() mount, cold (median of ${PROCESSES} processes): ${f(median(runs.map((r) => r.mountMs)))}`);
  for (const m of REFERENCE_MOUNTS) {
    const p = m.pagePath;
    console.log(
      `${p}/json: first request (builds the document) ${f(median(runs.map((r) => r.firstMs[p])))}, ` +
        `later requests ${f(median(runs.map((r) => r.warmMs[p])))}, ` +
        `buildDocument warm ${f(median(runs.map((r) => r.buildWarmMs[p])))}, ${runs[0].bytes[p].toLocaleString('en-US')} bytes`,
    );
  }
}

if (process.argv.includes('--child')) {
  process.stdout.write(JSON.stringify(await child()));
  process.exit(0);
} else {
  await main();
}
