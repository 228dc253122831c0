// Ownership decided at the edge, on two nodes in this process on one PostgreSQL with real HTTP
// between them (src/http/shared/edge.ts). A request for a session the other node runs is passed on
// before this node authenticates it, reads its body as the endpoint's or runs its handler: the owner
// does each, once, and its answer comes back. Whatever names the session: the body's `accountId`
// (current family), the earlier family's order ID `<account>-<order>`, the console's path. A request
// for an account whose session no node runs is answered where it lands.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { randomSecret } from '../../src/lib/secrets.ts';
import { type InProcessNode, inProcessNode, postAt, userToken } from '../support/in-process-node.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

const SECRET = new TextEncoder().encode(randomSecret());

/** What a node did itself: authentications and the services' calls behind the handlers used here. */
interface Seen {
  authorize: number;
  webAuthenticate: number;
  step: number;
  live: number;
  cancel: number;
}

/** Counts `n`'s own authentications and handlers' service calls (wrapping its services' methods). */
function watch(n: InProcessNode): Seen {
  const seen: Seen = { authorize: 0, webAuthenticate: 0, step: 0, live: 0, cancel: 0 };
  const wrap = <O extends object>(o: O, method: keyof O & string, key: keyof Seen) => {
    const f = (o[method] as (...a: unknown[]) => unknown).bind(o);
    Object.assign(o, { [method]: (...a: unknown[]) => (seen[key]++, f(...a)) });
  };
  wrap(n.s.auth, 'authorize', 'authorize');
  wrap(n.s.webAuth, 'authenticate', 'webAuthenticate');
  wrap(n.s.replay, 'step', 'step');
  wrap(n.s.replay, 'live', 'live');
  wrap(n.s.trading, 'cancel', 'cancel');
  return seen;
}

async function call(base: string, method: string, path: string, opts: { token?: string; cookie?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.cookie ? { cookie: `rd_session=${opts.cookie}` } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

// The nodes stop (inner afterAll) before describePg drops the database.
describePg('ownership at the edge', () => describe('two nodes', () => {
  let a: InProcessNode;
  let b: InProcessNode;

  beforeAll(async () => {
    const url = await freshDatabase();
    a = await inProcessNode(url, 'edge-a', SECRET);
    b = await inProcessNode(url, 'edge-b', SECRET);
  }, 120_000);

  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('passes a request for the other node\'s session on before authenticating, checking or handling it: the owner does each, once', async () => {
    const token = await userToken(a, 'edge@example.com');
    const start = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' }, token);
    expect(start.body).toMatchObject({ success: true });
    const accountId = start.body.accountId as number;
    const [onA, onB] = [watch(a), watch(b)];

    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 2 }, token)).body).toMatchObject({ success: true, currentIndex: 2 });
    // A field the endpoint leaves to its service: the owner's handler answers it.
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 'two' }, token)).body).toEqual({ success: false, errorCode: 2, errorMessage: 'steps must be a whole number from 1 to 100' });
    // A credential B never looks at: the owner refuses it.
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, 'not-a-token')).status).toBe(401);
    expect(onB).toMatchObject({ authorize: 0, step: 0 });
    expect(onA).toMatchObject({ authorize: 3, step: 2 });

    // Nobody runs it once it ended: B answers itself.
    expect((await postAt(a.base, 'Replay/end', { accountId }, token)).body).toMatchObject({ success: true });
    expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toEqual({ success: false, errorCode: 1, errorMessage: 'No active replay session for this account' });
    expect(onB).toMatchObject({ authorize: 1, step: 1 });
  }, 120_000);

  it('finds the session in the earlier family\'s order ID and in the console\'s path', async () => {
    const token = await userToken(a, 'edge-legacy@example.com');
    const legacy = (base: string, path: string, body: unknown) => call(base, 'POST', `/api/legacy-sim/${path}`, { token, body });
    const start = await legacy(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' });
    expect(start.body).toMatchObject({ success: true });
    const { accountId, contractId } = start.body;
    const placed = await legacy(a.base, 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1000 });
    expect(placed.body).toMatchObject({ success: true, orderStatus: 6 });

    const password = 'correct horse battery staple';
    expect((await a.s.users.create({ email: 'edge-web@example.com', password, plan: 'pro' })).ok).toBe(true);
    const login = await fetch(`${a.base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'edge-web@example.com', password }) });
    const cookie = /rd_session=([^;]*)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect(cookie).not.toBe('');
    const web = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'ES', startDate: '2025-02-24', timeframe: '1m' }, '', { cookie: `rd_session=${cookie}` });
    expect(web.body).toMatchObject({ success: true });
    const [onA, onB] = [watch(a), watch(b)];

    expect((await legacy(b.base, 'Order/cancel', { orderId: placed.body.orderId })).body).toEqual({ success: true, errorCode: 0, errorMessage: null });
    const info = await call(b.base, 'GET', `/api/auth/replay-sessions/${web.body.accountId}`, { cookie });
    expect(info).toMatchObject({ status: 200, body: { success: true, accountId: web.body.accountId, timeframe: '1m' } });
    expect(onB).toMatchObject({ authorize: 0, webAuthenticate: 0, cancel: 0, live: 0 });
    expect(onA).toMatchObject({ authorize: 1, webAuthenticate: 1, cancel: 1, live: 2 });
  }, 120_000);
}));
