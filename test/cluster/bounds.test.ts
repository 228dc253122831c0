// Every wait in the cluster has a bound, shown on three real nodes over a PostgreSQL of the file's
// own (so it may be restarted): the 10 live sessions per user hold when starts race through every
// node; a node paused (SIGSTOP) costs the sessions it held no more than its lease: requests for them
// on the other nodes answer 503 once the lease lapses, and the retry is served by a new owner while
// the paused node is still stopped; and while PostgreSQL restarts, every answer is a success or a 503
// with Retry-After and the envelope (never a 500), and /health follows the database both ways.

import { afterAll, beforeAll, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { limits } from '../../src/config.ts';
import { type Cluster, type ClusterNode, startCluster } from '../support/cluster.ts';
import { describePg, type OwnPostgres, ownPostgres } from '../support/postgres.ts';

let pg: OwnPostgres;
let c: Cluster;
let token = '';

type Reply = { status: number; body: any; retryAfter: string | null; ms: number };

/** POST to one node's current family; a generous bound, far above anything the cluster should take. */
async function callAt(base: string, path: string, body: unknown, bearer = token): Promise<Reply> {
  const t0 = Date.now();
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after'), ms: Date.now() - t0 };
}

async function owner(accountId: number): Promise<string | undefined> {
  return (await c.db`SELECT node_id FROM session_leases WHERE account_id = ${accountId}`)[0]?.node_id;
}

async function loginAs(email: string): Promise<string> {
  const made = c.admin('user', 'create', '--email', email, '--plan', 'pro');
  const r = await callAt(c.base, 'Auth/loginKey', { userName: email, apiKey: made.apiKey }, '');
  expect(r.body.success).toBe(true);
  return r.body.token;
}

describePg('bounded waits in a cluster of three nodes', () => {
  beforeAll(async () => {
    pg = await ownPostgres();
    const admin = new SQL(pg.url, { max: 1 });
    await admin.unsafe('CREATE DATABASE cluster_bounds');
    await admin.close();
    const url = new URL(pg.url);
    url.pathname = '/cluster_bounds';
    c = await startCluster(3, {}, { databaseUrl: url.toString() });
    token = await loginAs('bounds@example.com');
  }, 300_000);

  afterAll(async () => {
    for (const n of c?.nodes ?? []) if (n.alive) n.server.proc.kill('SIGCONT');
    await c?.stop();
    pg?.stop('immediate');
  });

  it('holds 10 live sessions per user when 20 starts race through the three nodes', async () => {
    const racer = await loginAs('racer@example.com');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => callAt(c.nodes[i % 3].server.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, racer)),
    );
    const started = answers.filter((a) => a.status === 200 && a.body.success);
    const [row] = await c.db`SELECT count(*)::int AS n FROM replay_sessions r JOIN users u ON u.id = r.user_id WHERE u.email = 'racer@example.com' AND r.status = 'active'`;
    expect(row.n).toBe(started.length);
    expect(started.length).toBeLessThanOrEqual(10);
    for (const a of answers.filter((x) => !(x.status === 200 && x.body.success))) {
      // Refused by the cap, or (the user's lock waited on past lock_timeout) told to retry.
      if (a.status === 200) expect(a.body).toMatchObject({ success: false, errorCode: 4, errorMessage: 'Maximum of 10 live replay sessions reached; end one with Replay/end' });
      else expect({ status: a.status, retryAfter: a.retryAfter, success: a.body.success }).toEqual({ status: 503, retryAfter: '1', success: false });
    }
    if (answers.every((a) => a.status === 200)) expect(started.length).toBe(10);
    console.log(`cap: ${started.length} started of 20, ${answers.filter((a) => a.status === 503).length} told to retry`);
  }, 120_000);

  it('a paused node costs its sessions no more than its lease: 503 from the others, then a new owner, while it is still stopped', async () => {
    const paused = c.nodes[0];
    const others = c.nodes.filter((n) => n !== paused);
    // Sessions the paused node holds, stepped through the others (forwarded) until the pause.
    const accounts: number[] = [];
    for (const date of ['2025-03-10', '2025-03-11', '2025-03-12']) {
      const r = await callAt(paused.server.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: date, timeframe: '1m' });
      expect(r.body.success).toBe(true);
      accounts.push(r.body.accountId);
    }
    const acked = new Map<number, number>();
    let stepping = true;
    let pausedAt = 0;
    /** Answers to steps in flight when the node stopped: how long each took from the pause. */
    const inFlight: (Reply & { afterPauseMs: number; accountId: number })[] = [];
    const traffic = accounts.map(async (accountId, i) => {
      while (stepping) {
        const r = await callAt(others[i % 2].server.base, 'Replay/step', { accountId, steps: 1 });
        if (pausedAt > 0) inFlight.push({ ...r, afterPauseMs: Date.now() - pausedAt, accountId });
        if (r.status === 200 && r.body.success) acked.set(accountId, r.body.currentIndex);
      }
    });
    while (accounts.some((a) => (acked.get(a) ?? 0) < 3)) await Bun.sleep(50);
    paused.server.proc.kill('SIGSTOP');
    pausedAt = Date.now();
    stepping = false;
    try {
      // Each bot's step in flight is answered while the node is still stopped, once the owner's
      // lease lapses (it renews nothing) and the hop has fenced it out: a 503 to retry when the step
      // was not carried out, a 504 when a commit was made meanwhile (the step committed as the node
      // stopped: it may have happened), or a success that beat the pause.
      await Promise.all(traffic);
      for (const r of inFlight) {
        if (r.status === 504) expect({ retryAfter: r.retryAfter, success: r.body.success, errorCode: r.body.errorCode }).toEqual({ retryAfter: null, success: false, errorCode: 504 });
        else if (r.status !== 200) expect({ status: r.status, retryAfter: r.retryAfter, success: r.body.success }).toEqual({ status: 503, retryAfter: '1', success: false });
      }
      const lastAcked = new Map(acked);
      const results = await Promise.all(accounts.map((accountId, i) => untilServed(others[i % 2], accountId)));
      for (const [i, r] of results.entries()) {
        // Served while the owner is still stopped, by one of the others, continuing its line of steps:
        // the next one after the last acknowledged, as a 503 said; one more only after a 504.
        const unanswered = inFlight.some((x) => x.accountId === accounts[i] && x.status === 504);
        expect(r.served.body.currentIndex - lastAcked.get(accounts[i])!).toBeOneOf(unanswered ? [1, 2] : [1]);
        expect(others.map((n) => n.id)).toContain((await owner(accounts[i]))!);
        for (const m of r.busy) expect({ status: m.status, retryAfter: m.retryAfter, success: m.body.success }).toEqual({ status: 503, retryAfter: '1', success: false });
        const gap = r.served.body.currentIndex - lastAcked.get(accounts[i])!;
        console.log(`paused owner: account ${accounts[i]}: served by the new owner ${r.servedMs} ms after SIGSTOP (${r.busy.length} 503s on the way), index +${gap} from the last acknowledged${unanswered ? ' (after a 504)' : ''}`);
      }
      console.log(`paused owner: steps in flight at SIGSTOP answered ${inFlight.map((r) => `${r.status} after ${r.afterPauseMs} ms`).join(', ')} (lease ${limits.sessionLeaseTtlMs} ms)`);
    } finally {
      paused.server.proc.kill('SIGCONT');
    }
    // Back, the old owner holds nothing: its requests for the sessions go to the new owners.
    for (const accountId of accounts) {
      const before = (await callThroughBusy(others[0].server.base, accountId)).body.currentIndex as number;
      const via = await callThroughBusy(paused.server.base, accountId);
      expect(via.body).toMatchObject({ success: true, currentIndex: before + 1 });
    }

    /** Steps `accountId` through `n` until served; the 503s on the way, timed from the pause. */
    async function untilServed(n: ClusterNode, accountId: number) {
      const busy: Reply[] = [];
      for (;;) {
        const r = await callAt(n.server.base, 'Replay/step', { accountId, steps: 1 });
        if (r.status === 200 && r.body.success) return { served: r, busy, servedMs: Date.now() - pausedAt };
        expect(r.status).toBe(503);
        busy.push(r);
        await Bun.sleep(Number(r.retryAfter ?? 1) * 100);
      }
    }
  }, 300_000);

  it('while PostgreSQL restarts: successes or 503s with Retry-After and the envelope, never a 500; /health follows both ways', async () => {
    const start = await callAt(c.nodes[1].server.base, 'Replay/start', { instrumentSymbol: 'ES', startDate: '2025-03-03', timeframe: '1m' });
    expect(start.body.success).toBe(true);
    const accountId = start.body.accountId as number;
    const odd: Reply[] = [];
    let answers = 0;
    let running = true;
    const traffic = Array.from({ length: 6 }, async (_, i) => {
      while (running) {
        const n = c.nodes[i % 3];
        const r = await callAt(n.server.base, i % 2 ? 'Replay/step' : 'Account/search', i % 2 ? { accountId, steps: 5 } : { onlyActiveAccounts: true }).catch((e) => ({ status: -1, body: String(e), retryAfter: null, ms: 0 }));
        answers++;
        const enveloped = r.status === 503 && r.retryAfter !== null && r.body?.success === false && r.body?.errorCode === 503 && typeof r.body?.errorMessage === 'string';
        if (r.status !== 200 && !enveloped) odd.push(r);
        if (r.status !== 200) await Bun.sleep(100);
      }
    });
    const healthOf = async (n: ClusterNode) => (await fetch(`${n.server.base}/health`, { signal: AbortSignal.timeout(60_000) })).status;
    await Bun.sleep(500);
    const stoppedAt = Date.now();
    pg.stop('fast');
    const downMs = await Promise.all(c.nodes.map(async (n) => {
      while ((await healthOf(n)) === 200) await Bun.sleep(50);
      return Date.now() - stoppedAt;
    }));
    await Bun.sleep(1_000);
    pg.start();
    const upAt = Date.now();
    // Health follows the database back: on each node, a /health asked right after a request it
    // served answers 200 (no waiting out the failures seen while the database was down).
    const upMs = await Promise.all(c.nodes.map(async (n) => {
      for (;;) {
        const r = await callAt(n.server.base, 'Account/search', { onlyActiveAccounts: true });
        if (r.status === 200) break;
        await Bun.sleep(50);
      }
      const servedMs = Date.now() - upAt;
      expect(await healthOf(n)).toBe(200);
      return { servedMs, healthyMs: Date.now() - upAt };
    }));
    running = false;
    await Promise.all(traffic);
    expect(odd).toEqual([]);
    expect(answers).toBeGreaterThan(0);
    console.log(`postgres restart: /health 503 on every node ${downMs.join(', ')} ms after the stop; after the start, served then /health 200 at ${upMs.map((u) => `${u.servedMs}/${u.healthyMs}`).join(', ')} ms (${answers} answers, none a 500)`);
  }, 300_000);
});

/** Steps through one node until the answer is not a 503. */
async function callThroughBusy(base: string, accountId: number): Promise<Reply> {
  for (;;) {
    const r = await callAt(base, 'Replay/step', { accountId, steps: 1 });
    if (r.status !== 503) return r;
    await Bun.sleep(200);
  }
}
