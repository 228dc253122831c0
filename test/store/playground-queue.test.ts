// The playground run queue in the store (migration 11, store/run-queue.ts), on SQLite and PostgreSQL: admission (one run
// queued or running per user, the runner shares' caps), claims, heartbeats, stop and pace set on the
// row, silent nodes' runs failed. Then on one PostgreSQL database through two pools (two nodes):
// racing admissions and claims.

import { expect, it } from 'bun:test';
import { openPostgres } from '../../src/store/postgres.ts';
import { type NewRun, PlaygroundRunStore, type RunJob } from '../../src/store/playground-runs.ts';
import { RunQueueStore } from '../../src/store/run-queue.ts';
import type { Sql } from '../../src/store/sql.ts';
import { describePg, freshDatabase, templateDatabase } from '../support/postgres.ts';
import { addUser, queuedRun } from '../support/run-rows.ts';
import { eachBackend } from '../support/sql-backends.ts';

const CAPS = { full: 2, paced: 1 };
const JOB: RunJob = { code: 'def on_bar(ctx, bar):\n    pass\n', startS: 1_740_690_000, endS: 1_740_690_000 + 86_400 };

/** The run records and the queue over them, on one database. */
function stores(sql: Sql): { runs: PlaygroundRunStore; store: RunQueueStore } {
  const runs = new PlaygroundRunStore(sql);
  return { runs, store: new RunQueueStore(sql, runs) };
}

function run(id: string, userId: number, speed: number | null = null, startedMs = 1000): NewRun {
  return queuedRun(id, userId, { speed, startedMs });
}

eachBackend('playground run queue', (open) => {
  it('admits one run per user (a second answers with the first id) and counts each share against its cap', async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const [ann, bob, cat, dan] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io'), await addUser(sql, 'cat@x.io'), await addUser(sql, 'dan@x.io')];
    expect(await store.enqueue(run('exe_a1', ann), JOB, false, CAPS)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_a2', ann), JOB, true, CAPS)).toEqual({ kind: 'already_running', executionId: 'exe_a1' });
    expect(await store.enqueue(run('exe_b1', bob), JOB, false, CAPS)).toEqual({ kind: 'queued' });
    // Two full-speed runs fill the full share; the paced share is apart.
    expect(await store.enqueue(run('exe_c1', cat), JOB, false, CAPS)).toEqual({ kind: 'capacity' });
    expect(await store.enqueue(run('exe_c2', cat, 5), JOB, true, CAPS)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_d1', dan, 5), JOB, true, CAPS)).toEqual({ kind: 'capacity' });
    // The unique index holds even for a row written around admission.
    await expect(runs.insert(run('exe_a3', ann))).rejects.toThrow();
    expect(await sql.get('SELECT COUNT(*) AS n FROM playground_runs')).toEqual({ n: 3 });
    // An ended run frees its user and its place.
    await runs.end('exe_b1', { status: 'completed', error: null, totalPnlCents: 0, totalTrades: 0, winRate: 0, barsDone: 1380, speed: null, result: null, completedMs: 2000 });
    expect(await store.enqueue(run('exe_d2', dan), JOB, false, CAPS)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_b2', bob), JOB, false, CAPS)).toEqual({ kind: 'capacity' });
  });

  it('paced runs past the paced share wait, up to `pacedWaiting` more (oldest claimed first, where a paced runner is free); full-speed runs never wait', async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const caps = { full: 1, paced: 1, pacedWaiting: 2 };
    const users = [];
    for (const name of ['ann', 'bob', 'cat', 'dan', 'eve', 'fay']) users.push(await addUser(sql, `${name}@x.io`));
    const [ann, bob, cat, dan, eve, fay] = users;
    expect(await store.enqueue(run('exe_a', ann, 1), JOB, true, caps)).toEqual({ kind: 'queued' });
    expect(await store.claim('node_a', { full: true, paced: true }, 5000)).toMatchObject({ row: { id: 'exe_a', paced: true } });
    // The share is held: two more wait (one per user), the next is refused.
    expect(await store.enqueue(run('exe_b', bob, 1, 1001), JOB, true, caps)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_c', cat, 5, 1002), JOB, true, caps)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_d', dan, 1), JOB, true, caps)).toEqual({ kind: 'capacity' });
    expect(await store.enqueue(run('exe_b2', bob, 1), JOB, true, caps)).toEqual({ kind: 'already_running', executionId: 'exe_b' });
    // Full speed: its own cap, no waiting.
    expect(await store.enqueue(run('exe_e', eve), JOB, false, caps)).toEqual({ kind: 'queued' });
    expect(await store.enqueue(run('exe_f', fay), JOB, false, caps)).toEqual({ kind: 'capacity' });
    expect((await runs.get(bob, 'exe_b'))?.nodeId).toBeNull();
    // A node with a free paced runner takes the oldest waiting one.
    expect(await store.claim('node_b', { full: false, paced: true }, 6000)).toMatchObject({ row: { id: 'exe_b', nodeId: 'node_b', paced: true } });
    expect((await runs.get(cat, 'exe_c'))?.nodeId).toBeNull();
  });

  it('claims the oldest queued run of a share with room, once; heartbeats write progress and read back stop and pace', async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const [ann, bob] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io')];
    await store.enqueue(run('exe_a', ann, 5), JOB, true, CAPS);
    await store.enqueue(run('exe_b', bob), JOB, false, CAPS);
    // Only full-speed room on node A: Bob's run, though Ann's is older.
    const b = await store.claim('node_a', { full: true, paced: false }, 5000);
    expect(b?.row).toMatchObject({ id: 'exe_b', userId: bob, status: 'running', nodeId: 'node_a', heartbeatMs: 5000, paced: false, barsDone: 0 });
    expect(b?.job).toEqual(JOB);
    expect(await store.claim('node_b', { full: true, paced: false }, 5000)).toBeNull();
    const a = await store.claim('node_b', { full: true, paced: true }, 5000);
    expect(a?.row).toMatchObject({ id: 'exe_a', nodeId: 'node_b', paced: true, speed: 5 });
    expect(await store.claim('node_b', { full: true, paced: true }, 5000)).toBeNull();

    const progress = { balanceCents: 5_000_100, equityCents: 5_000_200, stats: { totalTrades: 1 } };
    expect(await store.heartbeat('exe_b', 'node_a', 5300, 120, progress)).toEqual({ speed: null, stopRequested: false, paced: false });
    expect(await runs.get(bob, 'exe_b')).toMatchObject({ barsDone: 120, heartbeatMs: 5300, progress });
    // Only the owner's heartbeat counts.
    expect(await store.heartbeat('exe_b', 'node_b', 5300, 1, progress)).toBeNull();
    // Pace from any node: to a pace, Bob's run moves to the paced share only if it has room (Ann holds it).
    expect(await store.changeSpeed(bob, 10, CAPS)).toEqual({ kind: 'changed', executionId: 'exe_b', nodeId: 'node_a', paced: false });
    expect(await store.heartbeat('exe_b', 'node_a', 5600, 130, progress)).toEqual({ speed: 10, stopRequested: false, paced: false });
    expect(await store.requestStop(bob, 'Stopped by the user', 5700)).toEqual({ id: 'exe_b', nodeId: 'node_a' });
    expect(await store.heartbeat('exe_b', 'node_a', 5900, 140, progress)).toEqual({ speed: 10, stopRequested: true, paced: false });
    expect((await runs.get(bob, 'exe_b'))?.status).toBe('running');
  });

  it('hands a stopping node\'s runs back to the queue from the start; one whose stop was asked ends stopped; other nodes\' runs stay', async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const [ann, bob, cat] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io'), await addUser(sql, 'cat@x.io')];
    for (const [id, user] of [['exe_a', ann], ['exe_b', bob], ['exe_c', cat]] as const) await store.enqueue(run(id, user), JOB, false, { full: 3, paced: 1 });
    for (const node of ['node_a', 'node_a', 'node_b']) await store.claim(node, { full: true, paced: false }, 5000);
    const progress = { balanceCents: 5_000_100, equityCents: 5_000_200, stats: { totalTrades: 1 } };
    await store.heartbeat('exe_a', 'node_a', 5300, 120, progress);
    await store.requestStop(bob, 'Stopped by the user', 5400);
    await store.handBack(['exe_a', 'exe_b', 'exe_c'], 'node_a', 'Stopped by the user', 5500);
    expect(await runs.get(ann, 'exe_a')).toMatchObject({ status: 'running', error: null, nodeId: null, heartbeatMs: null, barsDone: 0, progress: null });
    expect(await runs.get(bob, 'exe_b')).toMatchObject({ status: 'stopped', error: 'Stopped by the user', completedMs: 5500 });
    // Another node's run is not this node's to give back.
    expect(await runs.get(cat, 'exe_c')).toMatchObject({ status: 'running', nodeId: 'node_b' });
    // Queued again with its job, first in line: any node runs it from the start.
    const again = await store.claim('node_b', { full: true, paced: false }, 6000);
    expect(again?.row).toMatchObject({ id: 'exe_a', nodeId: 'node_b', barsDone: 0 });
    expect(again?.job).toEqual(JOB);
  });

  it('a queued run stops at once; pace changes honour the shares; nothing to stop or pace answers null / not_running', async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const [ann, bob, cat] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io'), await addUser(sql, 'cat@x.io')];
    await store.enqueue(run('exe_a', ann), JOB, false, CAPS);
    expect(await store.requestStop(ann, 'Stopped by the user', 7000)).toEqual({ id: 'exe_a', nodeId: null });
    expect(await runs.get(ann, 'exe_a')).toMatchObject({ status: 'stopped', error: 'Stopped by the user', completedMs: 7000 });
    expect(await sql.get(`SELECT job_json FROM playground_runs WHERE id = 'exe_a'`)).toEqual({ job_json: null });
    expect(await store.claim('node_a', { full: true, paced: true }, 7000)).toBeNull();
    expect(await store.requestStop(ann, 'Stopped by the user', 7000)).toBeNull();
    expect(await store.changeSpeed(ann, 5, CAPS)).toEqual({ kind: 'not_running' });

    await store.enqueue(run('exe_b', bob, 5), JOB, true, CAPS);
    await store.enqueue(run('exe_c', cat), JOB, false, CAPS);
    await store.enqueue(run('exe_a2', ann), JOB, false, CAPS);
    // Full share full (Cat, Ann): Bob's paced run cannot go to full speed, and keeps its pace.
    expect(await store.changeSpeed(bob, null, CAPS)).toEqual({ kind: 'capacity' });
    expect(await runs.get(bob, 'exe_b')).toMatchObject({ speed: 5, paced: true });
    // Cat to a pace: the paced share is full (Bob), so Cat keeps her full-speed place.
    expect(await store.changeSpeed(cat, 3, CAPS)).toEqual({ kind: 'changed', executionId: 'exe_c', nodeId: null, paced: false });
    await store.requestStop(ann, 'Stopped by the user', 7100);
    expect(await store.changeSpeed(bob, null, CAPS)).toEqual({ kind: 'changed', executionId: 'exe_b', nodeId: null, paced: false });
    expect(await runs.get(bob, 'exe_b')).toMatchObject({ speed: null, paced: false });
    // The paced share is free now: Cat's pace moves her there.
    expect(await store.changeSpeed(cat, 4, CAPS)).toEqual({ kind: 'changed', executionId: 'exe_c', nodeId: null, paced: true });
  });

  it("fails other nodes' runs whose heartbeat is older than the bound, never this node's or a queued one", async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const [ann, bob, cat, dan] = [await addUser(sql, 'ann@x.io'), await addUser(sql, 'bob@x.io'), await addUser(sql, 'cat@x.io'), await addUser(sql, 'dan@x.io')];
    const caps = { full: 9, paced: 9 };
    for (const [id, u] of [['exe_a', ann], ['exe_b', bob], ['exe_c', cat]] as const) await store.enqueue(run(id, u), JOB, false, caps);
    await store.claim('node_a', { full: true, paced: true }, 1000); // exe_a, silent since 1000
    await store.claim('node_b', { full: true, paced: true }, 1000); // exe_b, beats at 9000
    await store.heartbeat('exe_b', 'node_b', 9000, 10, {});
    await store.enqueue(run('exe_d', dan), JOB, false, caps); // queued, never claimed
    // node_b checks at 10,000 with a 5,000 ms bound: exe_a is stale; exe_b is fresh; exe_c is its own.
    await store.claim('node_b', { full: true, paced: true }, 1000); // exe_c, node_b's own, silent
    expect(await store.failStale('node_b', 'The server restarted while the run was in progress', 5000, 10_000)).toEqual([{ id: 'exe_a', optimizationId: null }]);
    expect(await runs.get(ann, 'exe_a')).toMatchObject({ status: 'failed', error: 'The server restarted while the run was in progress', completedMs: 10_000 });
    expect((await runs.get(bob, 'exe_b'))?.status).toBe('running');
    expect((await runs.get(cat, 'exe_c'))?.status).toBe('running');
    expect((await runs.get(dan, 'exe_d'))?.status).toBe('running');
    // Its node's late heartbeat finds the run gone.
    expect(await store.heartbeat('exe_a', 'node_a', 10_100, 50, {})).toBeNull();
    // Ended rows do not hold a queued job.
    expect(await sql.get(`SELECT job_json FROM playground_runs WHERE id = 'exe_a'`)).toEqual({ job_json: null });
  });

  it("puts a silent node's optimisation combination back in the queue, twice at most; then fails it", async () => {
    const sql = await open();
    const { runs, store } = stores(sql);
    const ann = await addUser(sql, 'ann@x.io');
    await runs.insert({ ...run('exe_c0', ann), optimizationId: 'opt_1', optWindow: null, optCombo: 0 }, JOB);
    const lost = 'The server restarted while the run was in progress';
    for (const [round, node] of [[1, 'node_a'], [2, 'node_b']] as const) {
      const c = await store.claim(node, { full: true, paced: true }, 1000 * round);
      expect(c?.row).toMatchObject({ id: 'exe_c0', nodeId: node });
      expect(c?.job).toEqual(JOB);
      await store.heartbeat('exe_c0', node, 1000 * round, 500, { some: 'progress' });
      // Another node finds it silent: back in the queue from the start, its job kept, not failed.
      expect(await store.failStale('node_z', lost, 1000 * round + 1, 1000 * round + 1, 2)).toEqual([]);
      expect(await sql.get(`SELECT status, node_id, heartbeat_ms, bars_done, progress_json, requeues, job_json IS NOT NULL AS queued FROM playground_runs WHERE id = 'exe_c0'`))
        .toEqual({ status: 'running', node_id: null, heartbeat_ms: null, bars_done: 0, progress_json: null, requeues: round, queued: expect.anything() });
      // The silent node's late heartbeat finds it no longer its own.
      expect(await store.heartbeat('exe_c0', node, 1000 * round + 2, 600, {})).toBeNull();
    }
    // A third silent node: it fails, as a single run does at once.
    await store.claim('node_c', { full: true, paced: true }, 3000);
    expect(await store.failStale('node_z', lost, 3001, 3001, 2)).toEqual([{ id: 'exe_c0', optimizationId: 'opt_1' }]);
    expect(await runs.get(ann, 'exe_c0')).toMatchObject({ status: 'failed', error: lost, completedMs: 3001 });
    // A single run is never put back, whatever the bound.
    await store.enqueue(run('exe_s', ann), JOB, false, { full: 9, paced: 9 });
    await store.claim('node_a', { full: true, paced: true }, 4000);
    expect(await store.failStale('node_z', lost, 4001, 4001, 2)).toEqual([{ id: 'exe_s', optimizationId: null }]);
  });
});

describePg('playground run queue, two nodes on one PostgreSQL', () => {
  async function twoNodes(): Promise<[Sql, Sql]> {
    const template = await templateDatabase('migrated', async (url) => (await openPostgres(url, { max: 1 })).close());
    const url = await freshDatabase(template ?? undefined);
    return [await openPostgres(url, { max: 4 }), await openPostgres(url, { max: 4 })];
  }

  it('racing admissions keep one run per user and the cap; racing claims take each queued run once', async () => {
    const [a, b] = await twoNodes();
    try {
      const [sa, sb] = [stores(a).store, stores(b).store];
      const ann = await addUser(a, 'ann@x.io');
      const users = [ann];
      for (let i = 0; i < 7; i++) users.push(await addUser(a, `u${i}@x.io`));
      // Ann's two nodes race eight starts.
      const same = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? sa : sb).enqueue(run(`exe_ann_${i}`, ann), JOB, false, { full: 9, paced: 9 })));
      const queued = same.filter((r) => r.kind === 'queued');
      expect(queued.length).toBe(1);
      const first = (await a.get<{ id: string }>(`SELECT id FROM playground_runs WHERE user_id = $u`, { u: ann }))!.id;
      expect(same.filter((r) => r.kind === 'already_running')).toEqual(Array(7).fill({ kind: 'already_running', executionId: first }));
      // Seven other users race for a full share of 4 (Ann's run holds one).
      const caps = { full: 4, paced: 1 };
      const many = await Promise.all(users.slice(1).map((u, i) => (i % 2 ? sa : sb).enqueue(run(`exe_u${i}`, u), JOB, false, caps)));
      expect(many.filter((r) => r.kind === 'queued').length).toBe(3);
      expect(many.filter((r) => r.kind === 'capacity').length).toBe(4);
      // Both nodes claim at once until the queue is empty: each of the 4 runs exactly once.
      const claimAll = async (s: RunQueueStore, node: string) => {
        const got: string[] = [];
        for (;;) {
          const c = await s.claim(node, { full: true, paced: true }, 1);
          if (c === null) return got;
          got.push(c.row.id);
        }
      };
      const [ga, gb] = await Promise.all([claimAll(sa, 'node_a'), claimAll(sb, 'node_b')]);
      expect([...ga, ...gb].sort()).toEqual((await a.all<{ id: string }>(`SELECT id FROM playground_runs ORDER BY id`)).map((r) => r.id));
      expect(ga.length + gb.length).toBe(4);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
