// Builds the child's code (runner/child, the engine it imports, the Python harness as text) into one
// ES module in a directory of its own under the runner cache, named by the content's hash. The
// child may read that directory and nothing else of ours, so it must hold nothing but the bundle.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = join(import.meta.dir, '..', 'child', 'main.ts');

export interface RunnerBundle {
  /** Directory holding only runner.mjs. */
  dir: string;
  file: string;
  /** SHA-256 of the bundle text: keys the snapshot, which embeds the harness. */
  hash: string;
}

export async function buildBundle(cacheDir: string): Promise<RunnerBundle> {
  const r = await Bun.build({ entrypoints: [ENTRY], target: 'browser', format: 'esm', loader: { '.py': 'text' } });
  if (!r.success || r.outputs.length !== 1) {
    throw new Error(`runner bundle failed: ${r.logs.map((l) => String(l)).join('\n')}`);
  }
  const text = await r.outputs[0].text();
  const hash = createHash('sha256').update(text).digest('hex');
  const dir = join(cacheDir, `bundle-${hash.slice(0, 16)}`);
  const file = join(dir, 'runner.mjs');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    // Write then rename: a concurrent builder (another test process) never sees half a file.
    const tmp = join(dir, `.runner.mjs.${process.pid}.tmp`);
    writeFileSync(tmp, text, { mode: 0o644 });
    renameSync(tmp, file);
  }
  return { dir, file, hash };
}
