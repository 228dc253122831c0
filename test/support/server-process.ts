// The real server process (`bun src/main.ts`), as `npm start` runs it: on an ephemeral loopback port,
// started and awaited until it logs that it listens. Used by the end-to-end and browser tests.

import { join } from 'node:path';
import type { Subprocess } from 'bun';

const ROOT = join(import.meta.dir, '..', '..');

export interface ServerProcess {
  proc: Subprocess<'ignore', 'ignore', 'pipe'>;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything the server has logged so far. */
  log: () => string;
}

/**
 * Starts the server with `env` over this process's environment and waits for its "listening" line;
 * `root` is the checkout whose `src/main.ts` runs (this one unless a bench names another).
 */
export async function spawnServer(opts: { env: Record<string, string>; cwd?: string; timeoutMs?: number; root?: string }): Promise<ServerProcess> {
  const root = opts.root ?? ROOT;
  const proc = Bun.spawn([process.execPath, '--max-http-header-size=65536', join(root, 'src', 'main.ts')], {
    cwd: opts.cwd ?? root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...opts.env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  });
  let text = '';
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (!/listening url=(\S+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`server did not start:\n${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited:\n${text}`);
    text += decoder.decode(value);
  }
  const base = /listening url=(\S+)/.exec(text)![1];
  // Keep reading so the pipe never fills; the log stays inspectable.
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  })();
  return { proc, base, log: () => text };
}
