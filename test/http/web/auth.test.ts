// The web login (cookie JWT): login, me, logout, throttle, CSRF guard, Pro gate, token confusion,
// and secrets never at rest or in logs.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type Logger } from '../../../src/app.ts';
import { limits } from '../../../src/config.ts';
import { createFetch } from '../../../src/server.ts';
import { UserStore } from '../../../src/store/users.ts';
import { makeApp, makeWebUser, type Reply, sessionCookieOf, type TestApp, webCall, webLogin } from '../../support/app.ts';

const INVALID = { success: false, errorCode: 1, errorMessage: 'Invalid credentials' };
const UNAUTHORIZED = { success: false, errorCode: 401, errorMessage: 'Unauthorized' };
const CROSS_SITE = { success: false, errorCode: 403, errorMessage: 'Cross-site request refused' };
const PRO_REQUIRED = { success: false, errorCode: 403, errorMessage: 'Pro subscription required for the Playground' };
const TOO_MANY = { success: false, errorCode: 429, errorMessage: 'Too many requests' };

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

async function signedIn(opts: Parameters<typeof makeWebUser>[1] = {}, config = {}) {
  const t = await makeApp({ config });
  const u = await makeWebUser(t, opts);
  return { t, ...u, cookie: await webLogin(t, u.email, u.password) };
}

const login = (t: TestApp, body: unknown, headers: Record<string, string> = {}) => webCall(t, 'POST', '/api/auth/login', { body, headers });
const me = (t: TestApp, cookie: string | null) => webCall(t, 'GET', '/api/auth/me', { cookie });

describe('POST /api/auth/login', () => {
  it('answers the user and sets rd_session: HttpOnly, SameSite=Lax, Path=/, Max-Age 24 h, not Secure over http', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const r = await login(t, { email: u.email, password: u.password });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ user: { email: 'web@example.com', plan: 'pro' }, success: true, errorCode: 0, errorMessage: null });
    const cookie = sessionCookieOf(r)!;
    expect(r.headers.get('set-cookie')).toBe(`rd_session=${cookie}; Max-Age=${limits.tokenTtlS}; Path=/; HttpOnly; SameSite=Lax`);
    const [header, payload] = cookie.split('.');
    expect(decode(header)).toEqual({ alg: 'HS256', typ: 'rd-web+jwt' });
    const claims = decode(payload);
    expect(claims).toEqual({
      sub: String((await t.s.users.list()).find((x) => x.email === u.email)!.id),
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      iat: expect.any(Number),
      exp: Math.floor(t.clock.nowMs() / 1000) + 24 * 3600,
      iss: 'replaydesk',
      aud: 'replaydesk-web',
    });
  });

  it('sets Secure over https, and behind a trusted proxy that saw https', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const https = await t.app.handle(
      new Request('https://localhost/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(u) }),
    );
    expect(https.headers.get('set-cookie')).toEndWith('; Path=/; HttpOnly; Secure; SameSite=Lax');
    // X-Forwarded-Proto counts only with TRUST_PROXY.
    const untrusted = await login(t, u, { 'x-forwarded-proto': 'https' });
    expect(untrusted.headers.get('set-cookie')).not.toContain('Secure');
    const p = await makeApp({ config: { trustProxy: true } });
    await makeWebUser(p);
    const proxied = await login(p, u, { 'x-forwarded-proto': 'https' });
    expect(proxied.headers.get('set-cookie')).toContain('; Secure');
  });

  it('takes the email in any case and with spaces; free users may sign in', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t, { email: 'free@example.com', plan: 'free' });
    const r = await login(t, { email: '  FREE@Example.com ', password: u.password, extra: true });
    expect(r.body).toEqual({ user: { email: 'free@example.com', plan: 'free' }, success: true, errorCode: 0, errorMessage: null });
  });

  it.each([
    ['missing email', (u: any) => ({ password: u.password })],
    ['missing password', (u: any) => ({ email: u.email })],
    ['empty body', () => ({})],
    ['empty password', (u: any) => ({ email: u.email, password: '' })],
    ['blank email', (u: any) => ({ email: '  ', password: u.password })],
    ['non-string password', (u: any) => ({ email: u.email, password: 12345 })],
    ['non-string email', (u: any) => ({ email: ['web@example.com'], password: u.password })],
    ['wrong password', (u: any) => ({ email: u.email, password: `${u.password}!` })],
    ['unknown email', (u: any) => ({ email: 'ghost@example.com', password: u.password })],
    ['user without a password (API key only)', (u: any) => ({ email: 'trader@example.com', password: u.password })],
    ['disabled user', (u: any) => ({ email: 'disabled@example.com', password: u.password })],
    ['unverified user', (u: any) => ({ email: 'unverified@example.com', password: u.password })],
    ['an email longer than any address', (u: any) => ({ email: `${'a'.repeat(300)}@example.com`, password: u.password })],
    ['a password over the maximum length', (u: any) => ({ email: u.email, password: 'x'.repeat(limits.passwordLengthMax + 1) })],
  ])('%s → errorCode 1 Invalid credentials, no cookie', async (_name, makeBody) => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    await makeWebUser(t, { email: 'disabled@example.com', password: u.password, disabled: true });
    await makeWebUser(t, { email: 'unverified@example.com', password: u.password, verified: false });
    const r = await login(t, makeBody(u));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(INVALID);
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it('malformed JSON → HTTP 400', async () => {
    const t = await makeApp();
    const r = await login(t, '{"email":');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, errorCode: 400, errorMessage: 'Malformed JSON body' });
  });

  it('throttles failed attempts per email with HTTP 429 and Retry-After, then recovers after the window', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
      expect((await login(t, { email: u.email, password: 'wrong' })).body).toEqual(INVALID);
    }
    const r = await login(t, u);
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(r.headers.get('retry-after')).toBe(String(limits.loginWindowMs / 1000));
    expect(r.headers.get('set-cookie')).toBeNull();
    t.clock.advance(limits.loginWindowMs + 1);
    expect((await login(t, u)).body.success).toBe(true);
  });

  it('throttles failed attempts per client address across emails', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const u = await makeWebUser(t);
    const h = { 'x-forwarded-for': '203.0.113.7' };
    // Missing credentials count against the address without a hash each: the flood bound is high.
    for (let i = 0; i < limits.loginFailuresPerAddressMax - 5; i++) await login(t, { email: '', password: '' }, h);
    for (let i = 0; i < 5; i++) expect((await login(t, { email: `u${i}@example.com`, password: 'x' }, h)).body).toEqual(INVALID);
    const r = await login(t, u, h);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).not.toBeNull();
    expect((await login(t, u, { 'x-forwarded-for': '203.0.113.8' })).body.success).toBe(true);
  });

  it('parallel wrong passwords past the limit: each attempt counts from its start, so only the limit gets a verdict', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const replies = await Promise.all(Array.from({ length: limits.loginFailuresPerEmailAddressMax + 5 }, () => login(t, { email: u.email, password: 'wrong' })));
    expect(replies.filter((r) => r.status === 200 && r.body.errorCode === 1)).toHaveLength(limits.loginFailuresPerEmailAddressMax);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(5);
  });

  describe('successes count per user, not against the email or the address', () => {
    // A cheap argon2id hash for this user, so that a hundred logins stay quick; login reads the
    // parameters from the stored hash, and the throttle is what is tested here.
    async function cheapUser(t: TestApp) {
      const u = await makeWebUser(t);
      const id = (await t.s.users.list()).find((x) => x.email === u.email)!.id;
      await new UserStore(t.s.sql).setPasswordHash(id, await Bun.password.hash(u.password, { algorithm: 'argon2id', memoryCost: 256, timeCost: 1 }));
      return u;
    }

    it('40 logins of one user from one address in a row all get sessions', async () => {
      const t = await makeApp();
      const u = await cheapUser(t);
      const cookies = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const r = await login(t, u);
        expect(r.body.success).toBe(true);
        cookies.add(sessionCookieOf(r)!);
      }
      expect(cookies.size).toBe(40);
    });

    it('a right password after failures (under the limit) signs in and clears the email\'s failures', async () => {
      const t = await makeApp();
      const u = await cheapUser(t);
      for (let i = 0; i < limits.loginFailuresPerEmailAddressMax - 1; i++) await login(t, { email: u.email, password: 'wrong' });
      expect((await login(t, u)).body.success).toBe(true);
      for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) expect((await login(t, { email: u.email, password: 'wrong' })).body).toEqual(INVALID);
      expect((await login(t, u)).status).toBe(429);
    });

    it(`over ${limits.loginSuccessesPerUserMax} a minute → 429 with Retry-After, no cookie`, async () => {
      const t = await makeApp();
      const u = await cheapUser(t);
      for (let i = 0; i < limits.loginSuccessesPerUserMax; i++) expect((await login(t, u)).body.success).toBe(true);
      const r = await login(t, u);
      expect(r.status).toBe(429);
      expect(r.body).toEqual(TOO_MANY);
      expect(r.headers.get('retry-after')).toBe(String(limits.loginWindowMs / 1000));
      expect(r.headers.get('set-cookie')).toBeNull();
    });
  });

  it('unknown emails and wrong passwords get the same status and body', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const a = await login(t, { email: 'ghost@example.com', password: u.password });
    const b = await login(t, { email: u.email, password: 'nope' });
    expect([a.status, a.body]).toEqual([b.status, b.body]);
  });
});

describe('GET /api/auth/me and POST /api/auth/logout', () => {
  it('me answers the signed-in user; without a valid cookie HTTP 401', async () => {
    const { t, cookie } = await signedIn({ plan: 'free' });
    expect((await me(t, cookie)).body).toEqual({ user: { email: 'web@example.com', plan: 'free' }, success: true, errorCode: 0, errorMessage: null });
    for (const bad of [null, 'garbage', `${cookie}x`, cookie.split('.').slice(0, 2).join('.')]) {
      const r = await me(t, bad);
      expect(r.status).toBe(401);
      expect(r.body).toEqual(UNAUTHORIZED);
    }
  });

  it('logout revokes the session and clears the cookie; the old value then gets 401 everywhere', async () => {
    const { t, cookie } = await signedIn();
    const r = await webCall(t, 'POST', '/api/auth/logout', { cookie });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, errorCode: 0, errorMessage: null });
    expect(r.headers.get('set-cookie')).toBe('rd_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
    expect((await me(t, cookie)).status).toBe(401);
    expect((await webCall(t, 'GET', '/api/playground/strategies', { cookie })).status).toBe(401);
    // Logging out again, or without any cookie, still succeeds and clears.
    for (const c of [cookie, null]) {
      const again = await webCall(t, 'POST', '/api/auth/logout', { cookie: c });
      expect(again.body).toEqual({ success: true, errorCode: 0, errorMessage: null });
      expect(sessionCookieOf(again)).toBe('');
    }
  });

  it('logout ends only that session', async () => {
    const { t, email, password, cookie } = await signedIn();
    const other = await webLogin(t, email, password);
    await webCall(t, 'POST', '/api/auth/logout', { cookie });
    expect((await me(t, other)).status).toBe(200);
  });

  it('a session expires after 24 hours', async () => {
    const { t, cookie } = await signedIn();
    t.clock.advance(limits.tokenTtlS * 1000 - 1000);
    expect((await me(t, cookie)).status).toBe(200);
    t.clock.advance(1000);
    expect((await me(t, cookie)).status).toBe(401);
  });

  it('disabling a user cuts its sessions at once; a downgrade to free closes the Playground at once', async () => {
    const { t, email, cookie } = await signedIn();
    expect((await webCall(t, 'GET', '/api/playground/strategies', { cookie })).status).toBe(200);
    await t.s.users.set(email, { plan: 'free' });
    const free = await webCall(t, 'GET', '/api/playground/strategies', { cookie });
    expect(free.status).toBe(403);
    expect(free.body).toEqual(PRO_REQUIRED);
    await t.s.users.set(email, { disabled: true });
    expect((await me(t, cookie)).status).toBe(401);
    expect((await webCall(t, 'GET', '/api/playground/strategies', { cookie })).body).toEqual(UNAUTHORIZED);
  });

  it('a new password ends every session of the user; the old password stops working', async () => {
    const { t, email, password, cookie } = await signedIn();
    const r = await t.s.webAuth.setPassword(email, 'a brand new passphrase');
    expect(r).toEqual({ ok: true, value: { email } });
    expect((await me(t, cookie)).status).toBe(401);
    expect((await login(t, { email, password })).body).toEqual(INVALID);
    expect((await login(t, { email, password: 'a brand new passphrase' })).body.success).toBe(true);
  });

  it('expired session rows are pruned a day after expiry', async () => {
    const { t } = await signedIn();
    const count = () => (t.s.db.query('SELECT COUNT(*) AS n FROM web_sessions').get() as { n: number }).n;
    expect(count()).toBe(1);
    t.clock.advance(limits.tokenTtlS * 1000 + 86_400_000 - 1000);
    await t.s.webAuth.pruneSessions();
    expect(count()).toBe(1);
    t.clock.advance(2000);
    await t.s.webAuth.pruneSessions();
    expect(count()).toBe(0);
  });
});

describe('CSRF guard on cookie requests that change state', () => {
  const SAVE = { name: 'S', code: 'pass', instrument: 'NQ', timeframe: '1m', params: {} };
  const save = (t: TestApp, cookie: string, headers: Record<string, string> = {}, body: unknown = SAVE) =>
    webCall(t, 'POST', '/api/playground/strategies/save', { cookie, body, headers });

  function refused(r: Reply) {
    expect(r.status).toBe(403);
    expect(r.body).toEqual(CROSS_SITE);
  }

  it('refuses a foreign Origin (logout, save, delete) and changes nothing', async () => {
    const { t, cookie } = await signedIn();
    const id = (await save(t, cookie)).body.id;
    const evil = { origin: 'https://evil.example' };
    refused(await webCall(t, 'POST', '/api/auth/logout', { cookie, headers: evil }));
    refused(await save(t, cookie, evil));
    refused(await webCall(t, 'DELETE', `/api/playground/strategies/${id}`, { cookie, headers: evil }));
    refused(await webCall(t, 'POST', '/api/auth/logout', { cookie, headers: { origin: 'null' } }));
    refused(await webCall(t, 'POST', '/api/auth/logout', { cookie, headers: { origin: 'http://localhost:8080' } }));
    expect((await me(t, cookie)).status).toBe(200);
    const list = await webCall(t, 'GET', '/api/playground/strategies', { cookie });
    expect(list.body.strategies.map((x: any) => x.id)).toEqual([id]);
  });

  it('refuses Sec-Fetch-Site: cross-site', async () => {
    const { t, cookie } = await signedIn();
    refused(await save(t, cookie, { 'sec-fetch-site': 'cross-site' }));
    refused(await webCall(t, 'POST', '/api/auth/logout', { cookie, headers: { 'sec-fetch-site': 'cross-site' } }));
    expect((await save(t, cookie, { 'sec-fetch-site': 'same-origin' })).body.success).toBe(true);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', ''])(
    'refuses a POST with content type %p',
    async (type) => {
      const { t, cookie } = await signedIn();
      const headers: Record<string, string> = { 'content-type': type };
      refused(await save(t, cookie, headers));
      refused(await webCall(t, 'POST', '/api/auth/login', { body: { email: 'web@example.com', password: 'x' }, headers }));
    },
  );

  it('a DELETE without a body needs no type; with an untyped body it is refused like any unsafe method', async () => {
    const { t, cookie } = await signedIn();
    const a = (await save(t, cookie)).body.id;
    const b = (await save(t, cookie)).body.id;
    const del = (id: string, init: RequestInit) => t.app.handle(new Request(`http://localhost/api/playground/strategies/${id}`, { method: 'DELETE', ...init }));
    const refusedDelete = await del(a, { headers: { cookie: `rd_session=${cookie}`, 'content-type': 'text/plain' }, body: 'x' });
    expect([refusedDelete.status, await refusedDelete.json()]).toEqual([403, CROSS_SITE]);
    expect(((await (await del(b, { headers: { cookie: `rd_session=${cookie}` } })).json()) as { success: boolean }).success).toBe(true);
    const list = await webCall(t, 'GET', '/api/playground/strategies', { cookie });
    expect(list.body.strategies.map((x: any) => x.id)).toEqual([a]);
  });

  it('refuses a cross-site login (login CSRF)', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const r = await login(t, u, { origin: 'https://evil.example' });
    refused(r);
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it('accepts same-origin requests, requests without Origin, JSON with a charset, and reads with any Origin', async () => {
    const { t, cookie } = await signedIn();
    expect((await save(t, cookie, { origin: 'http://localhost' })).body.success).toBe(true);
    expect((await save(t, cookie, { origin: 'http://LOCALHOST' })).body.success).toBe(true);
    expect((await save(t, cookie, { 'content-type': 'application/json; charset=utf-8' })).body.success).toBe(true);
    expect((await save(t, cookie, { 'content-type': 'Application/JSON;charset=UTF-8' })).body.success).toBe(true);
    const h = await t.app.handle(
      new Request('http://127.0.0.1:8080/api/playground/strategies/save', {
        method: 'POST',
        headers: { host: 'replaydesk.example:8443', origin: 'https://replaydesk.example:8443', 'content-type': 'application/json', cookie: `rd_session=${cookie}` },
        body: JSON.stringify(SAVE),
      }),
    );
    expect(((await h.json()) as any).success).toBe(true);
    expect((await webCall(t, 'GET', '/api/playground/strategies', { cookie, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  it('behind a trusted proxy, X-Forwarded-Host is the host Origin must match', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const u = await makeWebUser(t);
    const headers = { host: 'backend:8080', 'x-forwarded-host': 'app.example', origin: 'https://app.example' };
    expect((await login(t, u, headers)).body.success).toBe(true);
    refused(await login(t, u, { ...headers, origin: 'https://backend:8080' }));
  });
});

describe('Pro gate and token confusion', () => {
  it('a free user gets HTTP 403 on a Pro endpoint (and not a 401)', async () => {
    const { t, cookie } = await signedIn({ plan: 'free' });
    for (const [method, path] of [
      ['GET', '/api/playground/strategies'],
      ['POST', '/api/playground/strategies/save'],
      ['GET', '/api/playground/strategies/stg_0000000000000000'],
      ['DELETE', '/api/playground/strategies/stg_0000000000000000'],
      ['GET', '/api/playground/strategies/stg_0000000000000000/runs'],
    ]) {
      const r = await webCall(t, method, path, { cookie });
      expect([method, path, r.status, r.body]).toEqual([method, path, 403, PRO_REQUIRED]);
    }
  });

  it('a bearer token is refused as a cookie, and a cookie JWT as a bearer token on /api/sim', async () => {
    const { t, cookie } = await signedIn();
    const token = await t.login();
    expect((await me(t, token)).status).toBe(401);
    expect((await webCall(t, 'GET', '/api/playground/strategies', { cookie: token })).status).toBe(401);
    const asBearer = await t.post('Account/search', {}, cookie);
    expect(asBearer.status).toBe(401);
    expect(asBearer.body).toEqual(UNAUTHORIZED);
    expect((await t.post('Auth/validate', {}, cookie)).body).toEqual({ newToken: null, success: false, errorCode: 1, errorMessage: 'Invalid session' });
    expect((await t.post('Auth/logout', {}, cookie)).status).toBe(401);
    // Both still work where they belong.
    expect((await me(t, cookie)).status).toBe(200);
    expect((await t.post('Account/search', {}, token)).status).toBe(200);
  });

  it('a cookie signed with another secret is refused', async () => {
    const a = await signedIn();
    const b = await signedIn();
    expect((await me(a.t, b.cookie)).status).toBe(401);
  });
});

describe('passwords and cookies at rest and in logs', () => {
  it('the database holds neither the password, nor the cookie value, nor its jti', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-web-secrets-'));
    const t = await makeApp({ dbPath: join(dir, 'replaydesk.db') });
    const u = await makeWebUser(t, { password: 'Sup3r-Secret-Passphrase-42' });
    const cookie = await webLogin(t, u.email, u.password);
    await webCall(t, 'POST', '/api/auth/logout', { cookie });
    const cookie2 = await webLogin(t, u.email, u.password);
    await t.s.webAuth.setPassword(u.email, 'An0ther-Secret-Passphrase');
    const jtis = [cookie, cookie2].map((c) => decode(c.split('.')[1]).jti as string);
    t.s.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    for (const secret of [u.password, 'An0ther-Secret-Passphrase', cookie, cookie2, ...jtis]) expect(bytes.includes(secret)).toBe(false);
    expect(bytes).toContain('$argon2id$');
    t.s.db.close();
  });

  it('request log lines never carry the password or the cookie', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t, { password: 'Sup3r-Secret-Passphrase-42' });
    const lines: string[] = [];
    const log: Logger = { info: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`), error: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`) };
    const fetch = createFetch(buildApp(t.s, log), log, true);
    const res = await fetch(
      new Request(`http://localhost/api/auth/login?password=${u.password}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(u),
      }),
    );
    const cookie = /rd_session=([^;]+)/.exec(res.headers.get('set-cookie')!)![1];
    await fetch(new Request('http://localhost/api/auth/me', { headers: { cookie: `rd_session=${cookie}` } }));
    await fetch(new Request('http://localhost/api/auth/logout', { method: 'POST', headers: { cookie: `rd_session=${cookie}`, 'content-type': 'application/json' } }));
    expect(lines.length).toBe(3);
    expect(lines[0]).toContain('"method":"POST","path":"/api/auth/login","status":200');
    const all = lines.join('\n');
    expect(all.includes(u.password)).toBe(false);
    expect(all.includes(cookie)).toBe(false);
  });
});
