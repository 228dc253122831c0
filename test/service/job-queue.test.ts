// The playground's job queue (src/service/jobs/queue.ts) through its interface, one suite for both
// implementations as Hono runs one router suite over each router: the local queue on SQLite, the
// shared one on SQLite and PostgreSQL. Admission, claims, heartbeats, completion heard by the
// listeners, combinations added and cancelled in their caller's transaction, jobs given back. Then
// what differs by deployment: what each recovers at start, whether a job let go at shutdown goes
// back, and the shared queue's timer failing a silent node's job and telling its listeners.

import { afterEach, describe, expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { LocalJobQueue } from '../../src/service/jobs/local-queue.ts';
import { INTERRUPTED_MESSAGE, type JobQueue, type JobWorker, type RunRef, STOPPED_MESSAGE } from '../../src/service/jobs/queue.ts';
import { SharedJobQueue } from '../../src/service/jobs/shared-queue.ts';
import type { LogError, QueueDeps } from '../../src/service/jobs/store-queue.ts';
import { type NewRun, PlaygroundRunStore, type RunEndFields, type RunJob } from '../../src/store/playground-runs.ts';
import { RunQueueStore } from '../../src/store/run-queue.ts';
import type { Sql } from '../../src/store/sql.ts';
import { addUser, queuedRun } from '../support/run-rows.ts';
import { eachBackend, freshSqlite, type OpenSql } from '../support/sql-backends.ts';

const T0 = 1_800_000_000_000;
const CAPS = { full: 4, paced: 2 };
const ALL_ROOM = { full: true, paced: true };
const STATS = {
  totalPnlCents: 1_250, totalTrades: 1, winningTrades: 1, losingTrades: 0, winRate: 1, averageWinCents: 1_250, averageLossCents: 0,
  largestWinCents: 1_250, largestLossCents: 0, profitFactor: null, maxDrawdownCents: 0, finalBalanceCents: 5_001_250,
};
const PROGRESS = { balanceCents: 5_001_250, equityCents: 5_001_300, stats: STATS };
const JOB: RunJob = { code: 'def on_bar(ctx, bar):\n    pass\n', startS: 1_740_690_000, endS: 1_740_776_400 };

type MakeQueue = (d: QueueDeps) => JobQueue;

/** A worker that claims nothing itself: it counts the queue's calls and records what it is told to stop. */
class RecordingWorker implements JobWorker {
  claims = 0;
  readonly stopped: string[][] = [];
  async claim(): Promise<void> {
    this.claims++;
  }
  stop(ids: readonly string[]): void {
    this.stopped.push([...ids]);
  }
}

interface Harness {
  sql: Sql;
  runs: PlaygroundRunStore;
  q: JobQueue;
  worker: RecordingWorker;
  clock: ManualClock;
  heard: RunRef[];
  logged: { message: string; fields: Record<string, unknown> }[];
}

async function harness(sql: Sql, make: MakeQueue, nodeId = 'node-a', clock = new ManualClock(T0)): Promise<Harness> {
  const runs = new PlaygroundRunStore(sql);
  const logged: Harness['logged'] = [];
  const logError: LogError = (message, fields) => logged.push({ message, fields });
  const q = make({ queue: new RunQueueStore(sql, runs), records: runs, nodeId, clock, logError });
  const worker = new RecordingWorker();
  q.serve(worker);
  const heard: RunRef[] = [];
  q.onEnded((job) => heard.push(job));
  return { sql, runs, q, worker, clock, heard, logged };
}

function run(id: string, userId: number, over: Partial<NewRun> = {}): NewRun {
  return queuedRun(id, userId, { startedMs: T0, ...over });
}

function combo(id: string, userId: number, optimizationId: string, index: number): { run: NewRun; job: RunJob } {
  return { run: run(id, userId, { optimizationId, optWindow: null, optCombo: index }), job: JOB };
}

function ended(over: Partial<RunEndFields> = {}): RunEndFields {
  return { status: 'completed', error: null, totalPnlCents: 0, totalTrades: 0, winRate: 0, barsDone: 1380, speed: null, result: null, completedMs: T0 + 1, ...over } as RunEndFields;
}

async function until<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(v)}`);
    await Bun.sleep(20);
  }
}

/** What every job queue does, whatever the deployment. */
function conformance(open: OpenSql, make: MakeQueue): void {
  it('a single run: admitted once per user, claimed here, heart-beaten (stop and pace read back), completed once; the listeners hear it', async () => {
    const h = await harness(await open(), make);
    const ann = await addUser(h.sql, 'ann@x.io');
    expect(await h.q.enqueue(run('exe_a', ann), JOB, false, CAPS)).toEqual({ kind: 'queued' });
    expect(await h.q.enqueue(run('exe_a2', ann), JOB, false, CAPS)).toEqual({ kind: 'already_running', executionId: 'exe_a' });
    const c = await h.q.claim(ALL_ROOM);
    expect(c?.row).toMatchObject({ id: 'exe_a', nodeId: 'node-a', heartbeatMs: T0, status: 'running' });
    expect(c?.job).toEqual(JOB);
    expect(await h.q.claim(ALL_ROOM)).toBeNull();
    h.clock.advance(300);
    expect(await h.q.heartbeat('exe_a', 120, PROGRESS)).toEqual({ speed: null, stopRequested: false, paced: false });
    expect(await h.runs.get(ann, 'exe_a')).toMatchObject({ barsDone: 120, heartbeatMs: T0 + 300, progress: PROGRESS });
    expect(await h.q.pace(ann, 5, CAPS)).toEqual({ kind: 'changed', executionId: 'exe_a', nodeId: 'node-a', paced: true });
    expect(await h.q.cancel(ann)).toEqual({ id: 'exe_a', nodeId: 'node-a' });
    expect(await h.q.heartbeat('exe_a', 130, PROGRESS)).toEqual({ speed: 5, stopRequested: true, paced: true });
    expect(h.heard).toEqual([]);
    await h.q.complete({ id: 'exe_a', optimizationId: null }, ended({ status: 'stopped', error: STOPPED_MESSAGE, barsDone: 130, speed: 5 }));
    expect(h.heard).toEqual([{ id: 'exe_a', optimizationId: null }]);
    expect(await h.runs.get(ann, 'exe_a')).toMatchObject({ status: 'stopped', error: STOPPED_MESSAGE, barsDone: 130 });
    // Ended: no longer this node's to heart-beat; the user may run again.
    expect(await h.q.heartbeat('exe_a', 140, PROGRESS)).toBeNull();
    expect(await h.q.cancel(ann)).toBeNull();
    expect(await h.q.enqueue(run('exe_a3', ann), JOB, false, CAPS)).toEqual({ kind: 'queued' });
  });

  it("an optimisation's combinations: added in the caller's transaction, claimed after single runs; cancelled in one, the worker told to stop its running ones once that commits", async () => {
    const h = await harness(await open(), make);
    const [ann, bob] = [await addUser(h.sql, 'ann@x.io'), await addUser(h.sql, 'bob@x.io')];
    await h.sql.transaction(() => h.q.add([combo('exe_c0', ann, 'opt_1', 0), combo('exe_c1', ann, 'opt_1', 1)]));
    await h.q.enqueue(run('exe_b', bob), JOB, false, CAPS);
    expect((await h.q.claim(ALL_ROOM))?.row.id).toBe('exe_b');
    // No room for combinations: none is taken.
    expect(await h.q.claim({ ...ALL_ROOM, optimizations: false })).toBeNull();
    expect((await h.q.claim(ALL_ROOM))?.row).toMatchObject({ id: 'exe_c0', optimizationId: 'opt_1', optCombo: 0 });
    await h.q.wake();
    expect(h.worker.claims).toBe(1);
    let stoppedInside: string[][] = [];
    const ids = await h.sql.transaction(async () => {
      const r = await h.q.cancelOptimization('opt_1', 'stopped', STOPPED_MESSAGE);
      stoppedInside = [...h.worker.stopped];
      return r;
    });
    expect(ids).toEqual(['exe_c0']);
    expect(stoppedInside).toEqual([]);
    expect(h.worker.stopped).toEqual([['exe_c0']]);
    expect(await h.runs.get(ann, 'exe_c1')).toMatchObject({ status: 'stopped', error: STOPPED_MESSAGE, completedMs: T0 });
    expect(await h.runs.get(ann, 'exe_c0')).toMatchObject({ status: 'running', stopRequested: true });
    await h.q.complete({ id: 'exe_c0', optimizationId: 'opt_1' }, ended({ status: 'stopped', error: STOPPED_MESSAGE }));
    expect(h.heard).toEqual([{ id: 'exe_c0', optimizationId: 'opt_1' }]);
  });

  it('requeue gives claimed jobs back from the start (one whose stop was asked ends stopped); fail ends one still running', async () => {
    const h = await harness(await open(), make);
    const [ann, bob] = [await addUser(h.sql, 'ann@x.io'), await addUser(h.sql, 'bob@x.io')];
    await h.q.enqueue(run('exe_a', ann), JOB, false, CAPS);
    await h.q.enqueue(run('exe_b', bob), JOB, false, CAPS);
    await h.q.claim(ALL_ROOM);
    await h.q.claim(ALL_ROOM);
    await h.q.heartbeat('exe_a', 500, PROGRESS);
    await h.q.cancel(bob);
    await h.q.requeue(['exe_a', 'exe_b']);
    expect(await h.runs.get(ann, 'exe_a')).toMatchObject({ status: 'running', nodeId: null, heartbeatMs: null, barsDone: 0, progress: null });
    expect(await h.runs.get(bob, 'exe_b')).toMatchObject({ status: 'stopped', error: STOPPED_MESSAGE });
    const again = await h.q.claim(ALL_ROOM);
    expect([again?.row.id, again?.job]).toEqual(['exe_a', JOB]);
    await h.q.fail('exe_a', 'The strategy sandbox could not be started; try again later');
    await h.q.fail('exe_b', 'not this one: it ended');
    expect(await h.runs.get(ann, 'exe_a')).toMatchObject({ status: 'failed', error: 'The strategy sandbox could not be started; try again later' });
    expect(await h.runs.get(bob, 'exe_b')).toMatchObject({ status: 'stopped', error: STOPPED_MESSAGE });
    expect(h.heard).toEqual([]);
  });

  it('a listener that throws is logged and the others still hear; one unsubscribed hears nothing more', async () => {
    const h = await harness(await open(), make);
    const ann = await addUser(h.sql, 'ann@x.io');
    const off = h.q.onEnded(() => {
      throw new Error('listener bug');
    });
    await h.q.enqueue(run('exe_a', ann), JOB, false, CAPS);
    await h.q.claim(ALL_ROOM);
    await h.q.complete({ id: 'exe_a', optimizationId: null }, ended());
    expect(h.heard).toEqual([{ id: 'exe_a', optimizationId: null }]);
    expect(h.logged).toEqual([{ message: 'playground job listener failed', fields: { executionId: 'exe_a', error: 'Error: listener bug' } }]);
    off();
    await h.q.enqueue(run('exe_a2', ann), JOB, false, CAPS);
    await h.q.claim(ALL_ROOM);
    await h.q.complete({ id: 'exe_a2', optimizationId: null }, ended());
    expect(h.logged.length).toBe(1);
    expect(h.heard.map((j) => j.id)).toEqual(['exe_a', 'exe_a2']);
  });
}

const local: MakeQueue = (d) => new LocalJobQueue(d);
const shared: MakeQueue = (d) => new SharedJobQueue(d);

describe('job queue: local [sqlite]', () => {
  const opened: Sql[] = [];
  const open: OpenSql = async () => {
    const sql = await freshSqlite();
    opened.push(sql);
    return sql;
  };
  afterEach(async () => {
    for (const sql of opened.splice(0)) await sql.close();
  });
  conformance(open, local);

  it('at start every job left running or queued reads failed with the reason; a job let go at shutdown is not given back', async () => {
    const h = await harness(await open(), local);
    const [ann, bob] = [await addUser(h.sql, 'ann@x.io'), await addUser(h.sql, 'bob@x.io')];
    await h.q.enqueue(run('exe_a', ann), JOB, false, CAPS);
    await h.q.claim(ALL_ROOM);
    await h.q.enqueue(run('exe_b', bob), JOB, false, CAPS);
    h.clock.advance(5_000);
    await h.q.recover();
    for (const [user, id] of [[ann, 'exe_a'], [bob, 'exe_b']] as const) {
      expect(await h.runs.get(user, id)).toMatchObject({ status: 'failed', error: INTERRUPTED_MESSAGE, completedMs: T0 + 5_000 });
    }
    expect(h.q.requeuesAtShutdown).toBe(false);
  });
});

eachBackend('job queue: shared', (open) => {
  conformance(open, shared);

  it("at start only other nodes' silent jobs: a single run fails, a combination goes back to the queue; this node's and fresh ones stay", async () => {
    const sql = await open();
    const a = await harness(sql, shared, 'node-a');
    const b = await harness(sql, shared, 'node-b', new ManualClock(T0));
    const [ann, bob, cat] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io'), await addUser(sql, 'cat@x.io')];
    await a.q.enqueue(run('exe_a', ann), JOB, false, CAPS);
    await a.q.add([combo('exe_c', ann, 'opt_1', 0)]);
    await a.q.claim(ALL_ROOM);
    await a.q.claim(ALL_ROOM);
    await b.q.enqueue(run('exe_b', bob), JOB, false, CAPS);
    await b.q.claim(ALL_ROOM);
    b.clock.advance(limits.playgroundRunStaleMs + 1);
    await b.q.enqueue(run('exe_fresh', cat), JOB, false, CAPS);
    await b.q.recover();
    expect(await b.runs.get(ann, 'exe_a')).toMatchObject({ status: 'failed', error: INTERRUPTED_MESSAGE });
    expect(await b.runs.get(ann, 'exe_c')).toMatchObject({ status: 'running', nodeId: null });
    expect(await b.runs.get(bob, 'exe_b')).toMatchObject({ status: 'running', nodeId: 'node-b' });
    expect(await b.runs.get(cat, 'exe_fresh')).toMatchObject({ status: 'running', nodeId: null });
    expect(b.q.requeuesAtShutdown).toBe(true);
  });

  it("open: on its timer it fails a silent node's job and tells its listeners (a combination past its requeues included), then has its worker claim", async () => {
    const sql = await open();
    const a = await harness(sql, shared, 'node-a');
    const b = await harness(sql, shared, 'node-b', new ManualClock(T0));
    const [ann, bob] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io')];
    await a.q.enqueue(run('exe_a', ann), JOB, false, CAPS);
    await a.q.add([combo('exe_c', bob, 'opt_1', 0), combo('exe_d', bob, 'opt_1', 1)]);
    for (let i = 0; i < 3; i++) await a.q.claim(ALL_ROOM);
    // exe_d has been put back as often as a combination may: this time it fails.
    await sql.run(`UPDATE playground_runs SET requeues = $n WHERE id = 'exe_d'`, { n: limits.playgroundCombinationRequeuesMax });
    b.clock.advance(limits.playgroundRunStaleMs + 1);
    try {
      b.q.open();
      const heard = await until('the listeners told', () => b.heard, (h) => h.length >= 2);
      expect([...heard].sort((x, y) => x.id.localeCompare(y.id))).toEqual([{ id: 'exe_a', optimizationId: null }, { id: 'exe_d', optimizationId: 'opt_1' }]);
      await until('the worker asked to claim', () => b.worker.claims, (n) => n >= 1);
      expect(await b.runs.get(bob, 'exe_c')).toMatchObject({ status: 'running', nodeId: null });
      expect(await b.runs.get(bob, 'exe_d')).toMatchObject({ status: 'failed', error: INTERRUPTED_MESSAGE });
      // The silent node's heartbeat finds its jobs gone.
      expect(await a.q.heartbeat('exe_a', 1, PROGRESS)).toBeNull();
      expect(a.heard).toEqual([]);
    } finally {
      b.q.close();
    }
  });
});
