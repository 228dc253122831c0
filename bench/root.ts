// Which checkout a bench measures: `ROOT=/path/to/checkout` (default: this one). The bench file and
// its helpers in bench/ stay this checkout's; the code under test (src/, runner/) is loaded from ROOT,
// so one bench measures any commit since the previous release (a git worktree of it, with
// node_modules linked) and `npm run bench -- --baseline <commit>` can run A and B in turn.
// A bench imports only modules and exports every such commit has; what it needs beyond them it brings
// (bench/support.ts, bench/nodes.ts), never the checkout's test/support.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The checkout under test. */
export const ROOT = resolve(process.env.ROOT || join(import.meta.dir, '..'));

/** A module of the checkout under test, typed as this checkout's (`rel` from the checkout's root). */
export async function load<T>(rel: string): Promise<T> {
  return (await import(join(ROOT, rel))) as T;
}

/** True when the bench measures another checkout than its own. */
export const FOREIGN = ROOT !== resolve(join(import.meta.dir, '..'));

/** A module of the checkout under test that older commits lack: null where the file does not exist. */
export async function loadIfPresent<T>(rel: string): Promise<T | null> {
  return existsSync(join(ROOT, rel)) ? load<T>(rel) : null;
}
