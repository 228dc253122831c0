// Writes the three OpenAPI documents as a checkout's app serves them (an in-memory database, a fixed
// clock), one JSON file per family, so two checkouts' documents can be compared byte for byte:
//
//   ./node_modules/.bin/bun test/support/dump-openapi.ts <checkout> <out dir>
//
// then `cmp` each of one checkout's three files with the other's.
//
// The checkout is imported by absolute path (a relative one would resolve from this file's folder).

import { resolve } from 'node:path';

const [rootArg, outArg] = process.argv.slice(2);
if (!rootArg || !outArg) {
  console.error('usage: bun test/support/dump-openapi.ts <checkout> <out dir>');
  process.exit(2);
}
const root = resolve(rootArg);
const out = resolve(outArg);
const { buildApp } = await import(`${root}/src/app.ts`);
const { defaultConfig } = await import(`${root}/src/config.ts`);
const { ManualClock } = await import(`${root}/src/lib/clock.ts`);
const { createServices } = await import(`${root}/src/service/services.ts`);
const { openDb } = await import(`${root}/src/store/db.ts`);
const services = await createServices({
  config: defaultConfig({}),
  clock: new ManualClock(Date.UTC(2025, 2, 3)),
  db: openDb(':memory:'),
  cluster: false,
  jwtSecret: new TextEncoder().encode('x'.repeat(32)),
});
const app = buildApp(services);
for (const family of ['sim', 'legacy-sim', 'playground']) {
  const res = await app.handle(new Request(`http://localhost/api/${family}/openapi/json`));
  await Bun.write(`${out}/${family}.json`, JSON.stringify(await res.json(), null, 1));
  console.log(`wrote ${out}/${family}.json`);
}
await services.shutdown?.();
process.exit(0);
