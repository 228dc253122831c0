// Startup cost of the API reference: loading the plugin, what mounting it adds to building the app,
// what the first request for each document costs (the document is built then, from the endpoint
// registries, and cached by the plugin), and what later requests cost. Cold figures are medians
// over fresh processes, since a process builds each document once.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only openapi` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/openapi.bench.ts

import { load } from './root.ts';
import { median } from './support.ts';

const PROCESSES = 7;
const WARM_REQUESTS = 200;

interface Cold {
  /** Loading @elysiajs/openapi once Elysia and the families are loaded. */
  importMs: number;
  mountMs: number;
  firstMs: Record<string, number>;
  warmMs: Record<string, number>;
  bytes: Record<string, number>;
  buildWarmMs: Record<string, number>;
}

async function child(): Promise<Cold> {
  await import('elysia');
  await load<typeof import('../src/http/sim/index.ts')>('src/http/sim/index.ts');
  await load<typeof import('../src/http/legacy/index.ts')>('src/http/legacy/index.ts');
  await load<typeof import('../src/http/playground/index.ts')>('src/http/playground/index.ts');
  await load<typeof import('../src/http/web/index.ts')>('src/http/web/index.ts');
  let t = performance.now();
  await import('@elysiajs/openapi');
  const importMs = performance.now() - t;
  const { buildApp } = await load<typeof import('../src/app.ts')>('src/app.ts');
  const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
  const { ManualClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
  const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
  const { apiReference, REFERENCE_MOUNTS } = await load<typeof import('../src/http/openapi/index.ts')>('src/http/openapi/index.ts');
  const { buildDocument } = await load<typeof import('../src/http/openapi/document.ts')>('src/http/openapi/document.ts');
  const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
  const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
  const s = await createServices({ config: defaultConfig({}), clock: new ManualClock(Date.UTC(2025, 2, 3)), db: openDb(':memory:'), jwtSecret: new TextEncoder().encode(randomSecret()) });
  t = performance.now();
  apiReference();
  const mountMs = performance.now() - t;
  const app = buildApp(s);
  const out: Cold = { importMs, mountMs, firstMs: {}, warmMs: {}, bytes: {}, buildWarmMs: {} };
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
  console.log(`import @elysiajs/openapi, cold (median of ${PROCESSES} processes): ${f(median(runs.map((r) => r.importMs)))}`);
  console.log(`apiReference() mount, cold: ${f(median(runs.map((r) => r.mountMs)))}`);
  for (const p of Object.keys(runs[0].firstMs)) {
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
