// A client told 503 "retry" by the forward hop is never served the same request a second time: on
// two nodes in this process on one PostgreSQL database, with real HTTP between them.
//
// A hop that reaches its node late (the node was paused with the request unread in its socket, and
// the hop gave up on it meanwhile) is not carried out, nor passed on to the session's new holder:
// its sender answered its client long ago.
//
// Between the hop and the owner, a TCP proxy holds what the owner has not read yet (a paused node)
// or what it answered (the answer lost): the owner's lease lapses meanwhile. Then the hop takes the
// lease, so the owner can no longer commit, and answers 503 (retry) only if no commit was made under
// the lease since it sent the request; if one was, 504: the request may have been carried out. A
// lease the owner released (it ended the session) is no lapse: the hop waits for its answer.
//
// A call queued on a session its node lets go meanwhile (the lease moved) is told to retry, not
// that a live session ended.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { limits } from '../../src/config.ts';
import { forwardTo, SESSION_MOVING, SESSION_UNANSWERED } from '../../src/http/shared/forward.ts';
import { enterRequest } from '../../src/http/shared/request-context.ts';
import type { ManualClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { T0 } from '../support/app.ts';
import { type InProcessNode, inProcessNode, postAt, setLease, storedIndex, userToken } from '../support/in-process-node.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

const SECRET = new TextEncoder().encode(randomSecret());

describePg('the forward hop', () => describe('what a client is told', () => {
  let url = '';
  let db: SQL;
  const nodes: InProcessNode[] = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    url = await freshDatabase();
    db = new SQL(url, { max: 2 });
  }, 120_000);

  afterAll(async () => {
    for (const p of proxies) await p.stop();
    for (const n of nodes) await n.stop();
    await db?.close();
  });

  async function node(id: string): Promise<InProcessNode> {
    const n = await inProcessNode(url, id, SECRET);
    nodes.push(n);
    return n;
  }

  /** Owner A behind a proxy (B reaches A through it), B, a user, and A's session stepped once. */
  async function behindProxy(name: string) {
    const a = await node(`${name}-a`);
    const proxy = await TcpProxy.start(Number(new URL(a.base).port));
    proxies.push(proxy);
    a.advertise(`http://127.0.0.1:${proxy.port}`);
    const b = await node(`${name}-b`);
    const token = await userToken(a, `${name}@example.com`);
    const start = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' }, token);
    expect(start.body).toMatchObject({ success: true });
    const accountId = start.body.accountId as number;
    expect((await postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 1 });
    await setLease(db, accountId, a, true);
    return { a, b, proxy, token, accountId };
  }

  it('a hop reaching its node after its signature\'s window is refused (503), neither served nor passed on to the new holder', async () => {
    const a = await node('late-a');
    const b = await node('late-b');
    const token = await userToken(a, 'late-hop@example.com');
    const start = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' }, token);
    expect(start.body).toMatchObject({ success: true });
    const accountId = start.body.accountId as number;
    expect((await postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 1 });

    // B's hop of one step to A, signed longer ago than the window: what A reads from its socket when
    // it resumes after a pause longer than that (B has long answered its client).
    const captured = await captureHop(b, accountId, token, T0 - limits.forwardSkewMs - 1_000);

    // Meanwhile the session moved to B (A's lease lapsed and B took it), and A let its copy go.
    await setLease(db, accountId, b, true);
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 2 });
    expect((await postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token)).status).toBe(503);
    expect(await storedIndex(db, accountId)).toBe(2);

    const late = await postAt(a.base, 'Replay/step', captured.body, '', captured.headers);
    expect({ status: late.status, retryAfter: late.retryAfter, body: late.body }).toEqual({
      status: 503,
      retryAfter: '1',
      body: { success: false, errorCode: 503, errorMessage: SESSION_MOVING },
    });
    expect(await storedIndex(db, accountId)).toBe(2);
    // The session carries on where its acknowledged steps left it.
    expect((await postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 3 });
  }, 120_000);

  it('a step the paused owner had not read: 503, and once the owner reads it, it cannot commit it (the retry is the one step)', async () => {
    const { a, b, proxy, token, accountId } = await behindProxy('unread');
    proxy.holdUpstream();
    const told = postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token);
    await until('the step to wait unread at A', () => proxy.keptBytes() > 0);
    await setLease(db, accountId, a, false);
    const r = await told;
    expect({ status: r.status, retryAfter: r.retryAfter, body: r.body }).toEqual({ status: 503, retryAfter: '1', body: { success: false, errorCode: 503, errorMessage: SESSION_MOVING } });
    // B fenced A out before answering: the lease is B's now.
    expect((await db`SELECT node_id FROM session_leases WHERE account_id = ${accountId}`)[0].node_id).toBe(b.id);

    // A resumes and reads the step (signed moments ago: a trusted hop), and cannot commit it.
    proxy.releaseUpstream();
    await until('A to answer the step it read late', () => proxy.serverSent('HTTP/1.1 '));
    expect(proxy.serverSent('HTTP/1.1 503')).toBe(true);
    expect(await storedIndex(db, accountId)).toBe(1);
    // The client's retry is the step: served by B, one step on from what the client was told.
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 2 });
  }, 120_000);

  it('a step the owner committed but whose answer never came: 504, never "retry"', async () => {
    const { a, b, proxy, token, accountId } = await behindProxy('unanswered');
    proxy.holdDownstream();
    const told = postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token);
    await until('A to answer the step (held)', () => proxy.heldContains('HTTP/1.1 200'));
    expect(await storedIndex(db, accountId)).toBe(2);
    await setLease(db, accountId, a, false);
    const r = await told;
    expect({ status: r.status, retryAfter: r.retryAfter, body: r.body }).toEqual({ status: 504, retryAfter: null, body: { success: false, errorCode: 504, errorMessage: SESSION_UNANSWERED } });
    // The client checks, and carries on from what happened.
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 3 });
  }, 120_000);

  it('a session ended by the owner (its lease released) whose answer is slow: the owner\'s answer, not 504', async () => {
    const { b, proxy, token, accountId } = await behindProxy('ended');
    proxy.holdDownstream();
    const told = postAt(b.base, 'Replay/end', { accountId }, token);
    await until('A to end the session and answer (held)', () => proxy.heldContains('HTTP/1.1 200'));
    expect(await db`SELECT 1 FROM session_leases WHERE account_id = ${accountId}`).toHaveLength(0);
    // The hop looks at the lease meanwhile (every second) and finds it gone: it keeps waiting.
    expect(await Promise.race([told.then(() => 'answered'), Bun.sleep(3 * limits.forwardLeaseCheckMs).then(() => 'waiting')])).toBe('waiting');
    proxy.releaseDownstream();
    expect((await told).body).toMatchObject({ success: true, ended: true });
  }, 120_000);

  it('a call waiting for a session its node lets go (the lease moved) is told to retry, not that the session ended', async () => {
    const a = await node('let-go-a');
    const b = await node('let-go-b');
    const token = await userToken(a, 'let-go@example.com');
    const [{ id: userId }] = await db`SELECT id FROM users WHERE email = 'let-go@example.com'`;
    const start = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' }, token);
    const accountId = start.body.accountId as number;
    await setLease(db, accountId, a, true);
    // A step on A holds the session while its commit's fence waits for the lease's row, which the
    // test holds; an end queues behind it; then the lease moves to B (A resumed after a pause, its
    // renewal overdue), and A lets the session go.
    const outcome = await db.begin(async (tx) => {
      await tx`SELECT 1 FROM session_leases WHERE account_id = ${accountId} FOR UPDATE`;
      const step = postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token);
      await untilAsync('the step to wait for the lease row', async () => (await db`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE session_leases%'`)[0].n > 0);
      const ended = a.s.replay.end(Number(userId), accountId).then((r) => ({ r }), (e: Error) => ({ thrown: e.name }));
      await Bun.sleep(50);
      await tx`UPDATE session_leases SET node_id = ${b.id}, node_url = ${b.url} WHERE account_id = ${accountId}`;
      return { step, ended };
    });
    expect((await outcome.step).status).toBe(503);
    expect(await outcome.ended).toEqual({ thrown: 'SessionMoving' });
    // The session lives on at B, where A now passes its requests.
    expect((await postAt(a.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 1 });
  }, 120_000);
}));

async function untilAsync(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}`);
    await Bun.sleep(20);
  }
}

/** Waits for `done` with a generous bound (the machine may be loaded). */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}`);
    await Bun.sleep(20);
  }
}

/** A real hop of one step from `from`, signed at `atMs` on its clock, as its receiver would read it: headers and body. */
async function captureHop(from: InProcessNode, accountId: number, token: string, atMs: number): Promise<{ headers: Record<string, string>; body: string }> {
  const seen: { headers: Record<string, string>; body: string }[] = [];
  const catcher = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      seen.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return Response.json({ success: true });
    },
  });
  const body = JSON.stringify({ accountId, steps: 1 });
  const sent = new Request(`${from.base}/api/sim/Replay/step`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
  const clock = from.s.clock as ManualClock;
  const now = clock.nowMs();
  clock.set(atMs);
  try {
    const to = { nodeUrl: `http://127.0.0.1:${catcher.port}`, accountId, commits: null };
    expect((await forwardTo(from.s, enterRequest(sent, '203.0.113.9'), to)).status).toBe(200);
  } finally {
    clock.set(now);
    catcher.stop(true);
  }
  const headers = { ...seen[0].headers };
  for (const k of ['host', 'content-length', 'connection', 'accept', 'accept-encoding', 'user-agent']) delete headers[k];
  return { headers, body: seen[0].body };
}
