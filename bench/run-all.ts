// Runs every benchmark in bench/ one after another (each prints its own medians).
// `npm run bench` — or one of them: `./node_modules/.bin/bun bench/<name>.bench.ts`.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dir;
for (const name of readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort()) {
  process.stdout.write(`\n=== ${name}\n`);
  const p = Bun.spawnSync([process.execPath, join(dir, name)], { stdout: 'inherit', stderr: 'inherit' });
  if (p.exitCode !== 0) process.stdout.write(`(${name} exited with ${p.exitCode})\n`);
}
