// Cross-cutting behaviour of the current family: prefixes, 401s, malformed input, ping, health.
import { describe, expect, it } from 'bun:test';
import { makeApp } from '../../support/app.ts';

const PROTECTED = [
  'Auth/logout',
  'Account/search',
  'Contract/search',
  'Contract/available',
  'Contract/searchById',
];

describe('protected endpoints', () => {
  it.each(PROTECTED)('%s without a token → 401 Unauthorized envelope', async (path) => {
    const t = await makeApp();
    const r = await t.post(path, {});
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, errorCode: 401, errorMessage: 'Unauthorized' });
  });

  it.each([
    ['unknown token', async () => 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln'],
    [
      'expired token',
      async (t: any) => {
        const token = await t.login();
        t.clock.advance(24 * 3600 * 1000);
        return token;
      },
    ],
    [
      'logged-out token',
      async (t: any) => {
        const token = await t.login();
        await t.post('Auth/logout', {}, token);
        return token;
      },
    ],
    [
      'token signed by another instance',
      async () => {
        const other = await makeApp();
        return other.login();
      },
    ],
  ])('%s → 401', async (_n, make) => {
    const t = await makeApp();
    const token = await make(t);
    const r = await t.post('Account/search', {}, token);
    expect(r.status).toBe(401);
    expect(r.body.errorMessage).toBe('Unauthorized');
  });
});

describe('bad input', () => {
  it('malformed JSON → 400 envelope, no stack trace', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/search', '{"searchText": ', token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, errorCode: 400, errorMessage: 'Malformed JSON body' });
  });

  it('malformed JSON on login does not count as a login and changes nothing', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', '{oops');
    expect(r.status).toBe(400);
    expect(r.body.errorMessage).toBe('Malformed JSON body');
  });

  it('a JSON array or string body is treated as an empty object', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', '[1,2]');
    expect(r.body).toEqual({ success: false, errorCode: 3, errorMessage: 'Invalid credentials' });
  });

  it('unknown routes → 404 envelope', async () => {
    const t = await makeApp();
    const r = await t.post('Nope/nothing', {});
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, errorCode: 404, errorMessage: 'Not found' });
  });
});

describe('compatibility', () => {
  it('every route is also served under /api/sim/api/', async () => {
    const t = await makeApp();
    const res = await t.app.handle(
      new Request('http://localhost/api/sim/api/Auth/loginKey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: t.email, apiKey: t.apiKey }),
      }),
    );
    const body: any = await res.json();
    expect(body.success).toBe(true);
    const search = await t.app.handle(
      new Request('http://localhost/api/sim/api/Contract/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${body.token}` },
        body: JSON.stringify({ searchText: 'NQ', live: false }),
      }),
    );
    expect(((await search.json()) as any).contracts.length).toBe(2);
  });

  it('a JSON body sent as text/plain is read', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', JSON.stringify({ userName: t.email, apiKey: t.apiKey }), null, {
      'content-type': 'text/plain',
    });
    expect(r.body.success).toBe(true);
  });
});

describe('Status/ping and /health', () => {
  it.each(['/api/sim/Status/ping', '/api/sim/api/Status/ping'])('GET %s → plain pong', async (path) => {
    const t = await makeApp();
    const res = await t.app.handle(new Request(`http://localhost${path}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    expect(await res.text()).toBe('pong');
  });

  it('GET /health reports uptime and database status', async () => {
    const t = await makeApp();
    t.clock.advance(5000);
    const res = await t.app.handle(new Request('http://localhost/health'));
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({ status: 'ok', uptimeS: 5, database: 'ok' });
    expect(body.schemaVersion).toBeGreaterThanOrEqual(1);
  });
});
