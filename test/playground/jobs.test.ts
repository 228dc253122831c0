// Playground runs as jobs in a shared PostgreSQL: two nodes (two service sets and apps on one
// database, as two processes would be). Node A has runners; node B has none (its runner shares are
// 0: it never claims), so every run executes on A while B answers for it from the row: polling,
// the event stream, one run per user, pace, stop; and B fails a run whose node went silent, and an
// optimisation whose combination's node went silent once too often fails through B's job queue.
// Real sandboxes on A.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { buildApp } from '../../src/app.ts';
import { type Config, defaultConfig, limits } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { PlaygroundRunStore } from '../../src/store/playground-runs.ts';
import { RunQueueStore } from '../../src/store/run-queue.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { INTERRUPTED_MESSAGE } from '../../src/service/jobs/queue.ts';
import { T0, type TestApp, webCall, webLogin } from '../support/app.ts';
import { IDLE, RUNNER_TEST_CACHE, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';
import { describePg, freshDatabase, templateDatabase } from '../support/postgres.ts';

const DAY = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m' };
const SPIN = 'def on_bar(ctx, bar):\n    while True:\n        pass\n';
const USER = { email: 'quant@example.com', password: 'correct horse battery staple' };

interface Node {
  s: Services;
  app: TestApp;
  clock: ManualClock;
}

async function node(url: string, jwtSecret: Uint8Array, config: Partial<Config>): Promise<Node> {
  const clock = new ManualClock(T0);
  const s = await createServices({
    config: defaultConfig({ runnerCacheDir: RUNNER_TEST_CACHE, runnerPoolSize: 0, playgroundTimeoutS: 600, ...config }),
    clock, db: openDb(':memory:'), sql: await openPostgres(url, { max: 4, idleTimeoutS: 1 }), jwtSecret,
  });
  return { s, clock, app: { app: buildApp(s), s } as unknown as TestApp };
}

/** Server-Sent Events of a response, read to the stream's end: [event, data] pairs (comments dropped). */
async function readEvents(res: Response): Promise<{ event: string; data: any }[]> {
  const text = await res.text();
  return text.trim().split('\n\n').filter((b) => !b.startsWith(':')).map((b) => {
    const [ev, data] = b.split('\n');
    return { event: ev.replace('event: ', ''), data: JSON.parse(data.replace('data: ', '')) };
  });
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(v).slice(0, 400)}`);
    await Bun.sleep(100);
  }
}

// Nested: its hooks run before describePg's own afterAll drops the database.
describePg('playground runs across two nodes on one PostgreSQL', () => describe('node A runs, node B answers', () => {
  let a: Node;
  let b: Node;
  let cookie: string;
  const call = (n: Node, method: string, path: string, body?: unknown) => webCall(n.app, method, `/api/playground/${path}`, { cookie, body });
  const execution = async (n: Node, id: string) => (await call(n, 'GET', `executions/${id}`)).body.execution;
  const events = (n: Node, id: string) =>
    n.app.app.handle(new Request(`http://localhost/api/playground/executions/${id}/events`, { headers: { cookie: `rd_session=${cookie}` } }));

  beforeAll(async () => {
    const template = await templateDatabase('app', async (url) => (await openPostgres(url, { max: 1 })).close());
    const url = await freshDatabase(template ?? undefined);
    const secret = new TextEncoder().encode(randomSecret());
    a = await node(url, secret, { nodeId: 'node-a', runnerMaxConcurrent: 2, runnerPacedMaxConcurrent: 2 });
    // Node B: no runner place of its own, so it never claims a run.
    b = await node(url, secret, { nodeId: 'node-b', runnerMaxConcurrent: 0, runnerPacedMaxConcurrent: 0 });
    const made = await a.s.users.create({ ...USER, plan: 'pro' });
    if (!made.ok) throw new Error(made.error.kind);
    cookie = await webLogin(a.app, USER.email, USER.password);
  }, SANDBOX_HOOK_MS);

  afterAll(async () => {
    for (const n of [a, b]) {
      if (!n) continue;
      await n.s.shutdown();
      n.s.db.close();
    }
  }, SANDBOX_HOOK_MS);

  it('a run started on node A executes there and streams through node B to its end; both read the same record', async () => {
    const started = await call(a, 'POST', 'run', { ...DAY, code: IDLE });
    expect(started.body).toMatchObject({ success: true, status: 'running' });
    const id = started.body.executionId;
    const stream = await events(b, id);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const evs = await readEvents(stream);
    expect(evs[0].event).toBe('progress');
    expect(evs.at(-1)!.event).toBe('done');
    expect(evs.at(-1)!.data).toMatchObject({ id, status: 'completed', error: null, progress: { barsDone: 1380, barsTotal: 1380 } });
    expect(evs.at(-1)!.data.results).toMatchObject({ totalTrades: 0, finalBalance: 50_000 });
    const onA = await execution(a, id);
    expect(await execution(b, id)).toEqual(onA);
    expect(onA).toMatchObject({ status: 'completed', progress: { barsDone: 1380, barsTotal: 1380 } });
    const row = await a.s.sql.get<{ node_id: string; job_json: string | null }>('SELECT node_id, job_json FROM playground_runs WHERE id = $id', { id });
    expect(row?.node_id).toBe('node-a');
    expect(row?.job_json).toBeNull();
  }, SANDBOX_TEST_MS);

  it('node B answers for a run executing on A: one per user, progress from the row, pace and stop', async () => {
    const id = (await call(a, 'POST', 'run', { ...DAY, code: IDLE, speed: 50 })).body.executionId as string;
    // One run per user, whichever node is asked.
    expect((await call(b, 'POST', 'run', { ...DAY, code: IDLE })).body).toEqual({
      executionId: id, success: false, errorCode: 11, errorMessage: 'An execution is already running; stop it first',
    });
    const mid = await until('progress on B', () => execution(b, id), (x) => x.progress.barsDone > 0);
    expect(mid).toMatchObject({ id, status: 'running', speed: 50, progress: { barsTotal: 1380 } });
    expect(mid.progress.barsDone).toBeLessThan(1380);
    // Pace set through B; A applies it at its next heartbeat.
    expect((await call(b, 'POST', 'speed', { speed: 20 })).body).toEqual({ executionId: id, success: true, errorCode: 0, errorMessage: null });
    expect((await until('pace applied on A', () => execution(a, id), (x) => x.speed === 20)).status).toBe('running');
    // B streams it while it runs; B stops it; the stream ends with the stopped run.
    const stream = events(b, id);
    expect((await call(b, 'POST', 'stop', {})).body).toEqual({ executionId: id, success: true, errorCode: 0, errorMessage: null });
    const evs = await readEvents(await stream);
    expect(evs.at(-1)).toMatchObject({ event: 'done', data: { id, status: 'stopped', error: 'Stopped by the user', speed: 20 } });
    expect(evs.at(-1)!.data.progress.barsDone).toBeLessThan(1380);
    expect(await execution(a, id)).toMatchObject({ status: 'stopped', error: 'Stopped by the user' });
    expect((await call(b, 'POST', 'stop', {})).body).toEqual({ success: false, errorCode: 1, errorMessage: 'No execution is running' });
  }, SANDBOX_TEST_MS);

  it('a run whose node stopped heart-beating is failed by another node, and its node ends it', async () => {
    const id = (await call(a, 'POST', 'run', { ...DAY, code: SPIN })).body.executionId as string;
    await until('claimed by A', () => a.s.sql.get<{ n: string | null }>('SELECT node_id AS n FROM playground_runs WHERE id = $id', { id }), (r) => r?.n !== null);
    // B's time runs past the bound while A's heartbeats stay at A's time (as if A had gone silent).
    b.clock.advance(31_000);
    const failed = await until('failed by B', () => execution(b, id), (x) => x.status !== 'running', 60_000);
    expect(failed).toMatchObject({ status: 'failed', error: 'The server restarted while the run was in progress' });
    // A's next heartbeat finds the run gone and kills its sandbox; the record stays as B wrote it.
    await until('ended on A', () => execution(a, id), (x) => x.status !== 'running');
    expect(await execution(a, id)).toMatchObject({ status: 'failed', error: 'The server restarted while the run was in progress' });
    // A's time catches up (its heartbeats are fresh again for B), and the user may run again.
    a.clock.advance(31_000);
    const again = await call(a, 'POST', 'run', { ...DAY, code: IDLE, speed: 1 });
    expect(again.body).toMatchObject({ success: true });
    expect((await call(b, 'POST', 'stop', {})).body).toMatchObject({ success: true, executionId: again.body.executionId });
    await until('stopped', () => execution(b, again.body.executionId), (x) => x.status === 'stopped');
  }, SANDBOX_TEST_MS);

  it("an optimisation's combination whose node went silent goes back to the queue and runs again; the optimisation goes on", async () => {
    const spinUnlessOne = 'def on_bar(ctx, bar):\n    while ctx.params["x"] != 1:\n        pass\n';
    const started = await call(a, 'POST', 'optimize', { ...DAY, code: spinUnlessOne, params: { x: { values: [2] } } });
    expect(started.body).toMatchObject({ success: true });
    const optId = started.body.optimizationId as string;
    const row = () => a.s.sql.get<{ id: string; node_id: string | null; requeues: number; status: string }>(
      'SELECT id, node_id, requeues, status FROM playground_runs WHERE optimization_id = $o', { o: optId });
    const first = await until('claimed by A', row, (r) => r?.node_id === 'node-a');
    // Node B's sweep at a time when A's heartbeat is older than the bound (A went silent).
    expect(await new RunQueueStore(b.s.sql, new PlaygroundRunStore(b.s.sql)).failStale('node-b', INTERRUPTED_MESSAGE, a.clock.nowMs() + 1, a.clock.nowMs() + 1, 2)).toEqual([]);
    // A takes it again (its old copy is let go): the same row, running, put back once.
    expect(await until('claimed again', row, (r) => r?.node_id === 'node-a')).toEqual({ id: first!.id, node_id: 'node-a', requeues: 1, status: 'running' });
    expect((await call(b, 'GET', `optimizations/${optId}`)).body.optimization).toMatchObject({ status: 'running', error: null, progress: { done: 0, total: 1 } });
    expect((await call(b, 'POST', `optimizations/${optId}/stop`, {})).body).toEqual({ optimizationId: optId, success: true, errorCode: 0, errorMessage: null });
    expect(await until('combination stopped', row, (r) => r?.status !== 'running')).toEqual({ id: first!.id, node_id: 'node-a', requeues: 1, status: 'stopped' });
    expect((await call(a, 'GET', `optimizations/${optId}`)).body.optimization).toMatchObject({ status: 'stopped', error: 'Stopped by the user', progress: { done: 1, total: 1 } });
  }, SANDBOX_TEST_MS);

  it("a combination whose node went silent once too often fails, and the node whose queue failed it fails the optimisation at once (no sweep)", async () => {
    const spin = 'def on_bar(ctx, bar):\n    while True:\n        pass\n';
    const started = await call(a, 'POST', 'optimize', { ...DAY, code: spin, params: { x: { values: [1, 2] } } });
    expect(started.body).toMatchObject({ success: true });
    const optId = started.body.optimizationId as string;
    const rows = () => a.s.sql.all<{ id: string; node_id: string | null; status: string; error: string | null }>(
      'SELECT id, node_id, status, error FROM playground_runs WHERE optimization_id = $o ORDER BY opt_combo', { o: optId });
    // A runs one combination at a time (its optimisations' share of two runners); the other waits.
    const [first, second] = await until('the first claimed by A', rows, (r) => r.length === 2 && r[0].node_id === 'node-a');
    // The first has been put back as often as a combination may: B's queue fails it this time.
    await a.s.sql.run('UPDATE playground_runs SET requeues = $n WHERE id = $id', { n: limits.playgroundCombinationRequeuesMax, id: first.id });
    const heard: { id: string; optimizationId: string | null }[] = [];
    const off = b.s.topology.jobs.onEnded((job) => heard.push(job));
    try {
      // A goes silent for B: B's queue finds A's heartbeats too old.
      b.clock.advance(31_000);
      await until('B\'s queue tells of the failed combination', async () => heard, (h) => h.some((j) => j.id === first.id));
      expect(heard.filter((j) => j.id === first.id)).toEqual([{ id: first.id, optimizationId: optId }]);
      const o = await until('the optimisation failed', async () => (await call(b, 'GET', `optimizations/${optId}`)).body.optimization, (x) => x.status !== 'running');
      expect(o).toMatchObject({ status: 'failed', error: INTERRUPTED_MESSAGE });
      // The other, queued (failed with the optimisation) or claimed by A meanwhile (asked to stop by
      // the optimisation's end), ends either way.
      const [c0, c1] = await until('both ended', rows, (r) => r.every((c) => c.status !== 'running'));
      expect(c0).toMatchObject({ id: first.id, status: 'failed', error: INTERRUPTED_MESSAGE });
      expect(c1.id).toBe(second.id);
      expect(['stopped', 'failed']).toContain(c1.status);
    } finally {
      off();
      // A's time catches up (its heartbeats are fresh again for B).
      a.clock.advance(31_000);
    }
  }, SANDBOX_TEST_MS);
}));
