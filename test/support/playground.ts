// Playground tests: an app whose runner uses a cache shared by every test file (the Pyodide snapshot
// is built once per machine, a few seconds), a logged-in Pro web user, and helpers to run a strategy
// through the HTTP API and wait for its end.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../src/config.ts';
import { makeApp, makeWebUser, type Reply, type TestApp, webCall, webLogin } from './app.ts';

export const RUNNER_TEST_CACHE = join(tmpdir(), 'replaydesk-test-runner');

export interface PlaygroundApp extends TestApp {
  cookie: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** POST run, expecting acceptance; returns the execution id. */
  run(body: Record<string, unknown>): Promise<string>;
  /** Polls GET executions/:id until the run has ended; returns the execution. */
  waitEnd(id: string, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

export async function makePlaygroundApp(config: Partial<Config> = {}, opts: { nowMs?: number; dbPath?: string } = {}): Promise<PlaygroundApp> {
  const t = await makeApp({
    config: { runnerCacheDir: RUNNER_TEST_CACHE, runnerPoolSize: 1, playgroundTimeoutS: 60, ...config },
    nowMs: opts.nowMs,
    dbPath: opts.dbPath,
  });
  // On a reopened database the user exists already, with the same password.
  const user = { email: 'quant@example.com', password: 'correct horse battery staple' };
  if (!t.s.users.list().some((u) => u.email === user.email)) await makeWebUser(t, user);
  const cookie = await webLogin(t, user.email, user.password);
  const p: PlaygroundApp = Object.assign(t, {
    cookie,
    call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      webCall(t, method, `/api/playground/${path}`, { cookie, body, headers }),
    async run(body: Record<string, unknown>) {
      const r = await p.call('POST', 'run', body);
      if (!r.body.success) throw new Error(`run refused: ${JSON.stringify(r.body)}`);
      return r.body.executionId as string;
    },
    async waitEnd(id: string, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await p.call('GET', `executions/${id}`);
        if (!r.body.success) throw new Error(`poll failed: ${JSON.stringify(r.body)}`);
        if (r.body.execution.status !== 'running') return r.body.execution;
        if (Date.now() > deadline) throw new Error(`execution ${id} still running after ${timeoutMs} ms`);
        await Bun.sleep(20);
      }
    },
    async close() {
      await t.s.shutdown();
      t.s.db.close();
    },
  });
  return p;
}

/** A strategy with one on_bar that does nothing. */
export const IDLE = 'def on_bar(ctx, bar):\n    pass\n';
