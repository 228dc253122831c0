// Playground tests: an app whose runner uses a cache shared by every test file (the Pyodide snapshot
// is built once per machine, a few seconds), a logged-in Pro web user, and helpers to run a strategy
// through the HTTP API and wait for its end.
//
// No test may depend on the machine's speed. On a loaded 2-core machine (load average 10-15) a
// sandbox that starts in half a second takes 10-20 s, the snapshot build a minute; bun's default bound of 5 s per test and per hook is far too short
// (bunfig.toml's `timeout` key is not read by bun 1.4). So every test and hook that starts a
// sandbox passes one of the bounds below, tests wait on the execution's own end event, and the
// apps' run deadline is far above any normal run, so only the tests that want a timeout get one.

import { afterAll, beforeAll } from 'bun:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../src/config.ts';
import { makeApp, makeWebUser, type Reply, type TestApp, webCall, webLogin } from './app.ts';

export const RUNNER_TEST_CACHE = join(tmpdir(), 'replaydesk-test-runner');

// Measured at load average 20-25 (two CPU hogs per core beside other jobs): the deep-recursion
// attack took 200 s, the paced-share test of runs.test.ts 110 s, the restart test (two apps
// opened and closed) 37 s.
/** Bound of a test that runs strategies in the sandbox (generous: a hung test still fails, later). */
export const SANDBOX_TEST_MS = 900_000;
/** Bound of a hook that builds or closes a playground app (login hash, snapshot build, shutdown). */
export const SANDBOX_HOOK_MS = 300_000;
/** How long `waitEnd` waits for a run's end by default: above the run deadline of the apps below. */
export const RUN_END_WAIT_MS = 660_000;
/** The run deadline of test apps: the spec's 10 minutes, far above any normal run's. */
const TEST_RUN_TIMEOUT_S = 600;

export interface PlaygroundApp extends TestApp {
  cookie: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** POST run, expecting acceptance; returns the execution id. */
  run(body: Record<string, unknown>): Promise<string>;
  /** Waits for the run's end event (bounded), then returns the execution as GET executions/:id reads it. */
  waitEnd(id: string, opts?: { timeoutMs?: number; cookie?: string }): Promise<any>;
  close(): Promise<void>;
}

export async function makePlaygroundApp(config: Partial<Config> = {}, opts: { nowMs?: number; dbPath?: string } = {}): Promise<PlaygroundApp> {
  const t = await makeApp({
    config: { runnerCacheDir: RUNNER_TEST_CACHE, runnerPoolSize: 1, playgroundTimeoutS: TEST_RUN_TIMEOUT_S, ...config },
    nowMs: opts.nowMs,
    dbPath: opts.dbPath,
  });
  // On a reopened database the user exists already, with the same password.
  const user = { email: 'quant@example.com', password: 'correct horse battery staple' };
  if (!(await t.s.users.list()).some((u) => u.email === user.email)) await makeWebUser(t, user);
  const cookie = await webLogin(t, user.email, user.password);
  const userId = (await t.s.users.list()).find((u) => u.email === user.email)!.id;
  const p: PlaygroundApp = Object.assign(t, {
    cookie,
    call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      webCall(t, method, `/api/playground/${path}`, { cookie, body, headers }),
    async run(body: Record<string, unknown>) {
      const r = await p.call('POST', 'run', body);
      if (!r.body.success) throw new Error(`run refused: ${JSON.stringify(r.body)}`);
      return r.body.executionId as string;
    },
    async waitEnd(id: string, { timeoutMs = RUN_END_WAIT_MS, cookie: as = cookie }: { timeoutMs?: number; cookie?: string } = {}) {
      // Any user's run (the owner read from the store), read back with that user's cookie.
      const owner = t.s.db.query('SELECT user_id FROM playground_runs WHERE id = $id').get({ id }) as { user_id: number } | null;
      // The end event, not a poll: a loaded machine makes polls late, never the event.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`execution ${id} still running after ${timeoutMs} ms`)), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          // The service says `done` once the end is committed: the read below comes from the store.
          resolve();
        };
        const unsubscribe = t.s.runs.subscribe(owner?.user_id ?? userId, id, (e) => {
          if (e.type !== 'done') return;
          unsubscribe?.();
          done();
        });
        if (unsubscribe === null) done();
      });
      const r = await webCall(t, 'GET', `/api/playground/executions/${id}`, { cookie: as });
      if (!r.body.success) throw new Error(`read failed: ${JSON.stringify(r.body)}`);
      if (r.body.execution.status === 'running') throw new Error(`execution ${id} ended but reads running`);
      return r.body.execution;
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

/**
 * A playground app for a whole test file: opened before its tests and closed after them, within the
 * hook bound. The returned holder's `app` is set once the hook ran.
 */
export function playgroundAppPerFile(config: Partial<Config> = {}): { app: PlaygroundApp } {
  const holder = {} as { app: PlaygroundApp };
  beforeAll(async () => {
    holder.app = await makePlaygroundApp(config);
  }, SANDBOX_HOOK_MS);
  afterAll(async () => {
    await holder.app?.close();
  }, SANDBOX_HOOK_MS);
  return holder;
}
