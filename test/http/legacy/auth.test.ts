// Earlier family: Auth/loginKey, Auth/validate, Auth/logout, Status/ping.
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { makeApp, type TestApp } from '../../support/app.ts';
import { envelope, failure, legacyGet, legacyLogin, legacyPost } from '../../support/legacy.ts';

const HOUR_MS = 3_600_000;

function claimsOf(token: string): Record<string, number> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

async function newUser(t: TestApp, email: string, opts: Record<string, unknown>): Promise<string> {
  const u = await t.s.users.create({ email, ...opts });
  if (!u.ok) throw new Error(`cannot create ${email}`);
  return u.value.apiKey;
}

describe('Auth/loginKey', () => {
  it('returns a 24-hour token that works in this family (and in the current one)', async () => {
    const t = await makeApp();
    const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ token: expect.any(String), ...envelope });
    expect(claimsOf(r.body.token).exp).toBe(Math.floor(t.clock.nowMs() / 1000) + 24 * 3600);
    expect((await legacyPost(t, 'Account/search', {}, r.body.token)).body.success).toBe(true);
    expect((await t.post('Account/search', {}, r.body.token)).body.success).toBe(true);
  });

  const INVALID = 'Invalid credentials';
  const REQUIRED = 'userName and apiKey are required';
  const DISABLED = 'Account is disabled';

  it.each([
    ['wrong key', INVALID, async (t: TestApp) => ({ userName: t.email, apiKey: 'rdk_wrong' })],
    ['unknown email', INVALID, async (t: TestApp) => ({ userName: 'nobody@example.com', apiKey: t.apiKey })],
    ['a user name longer than any address', INVALID, async (t: TestApp) => ({ userName: `${'a'.repeat(300)}@x.com`, apiKey: t.apiKey })],
    ['rotated (revoked) key', INVALID, async (t: TestApp) => {
      await t.s.users.rotateKey(t.email);
      return { userName: t.email, apiKey: t.apiKey };
    }],
    ['unverified user', INVALID, async (t: TestApp) => {
      return { userName: 'u@example.com', apiKey: await newUser(t, 'u@example.com', { verified: false }) };
    }],
    ['disabled user with a wrong key', INVALID, async (t: TestApp) => {
      await newUser(t, 'd@example.com', { disabled: true });
      return { userName: 'd@example.com', apiKey: 'rdk_wrong' };
    }],
    ['free user with a wrong key', INVALID, async (t: TestApp) => {
      await newUser(t, 'f@example.com', { plan: 'free' });
      return { userName: 'f@example.com', apiKey: 'rdk_wrong' };
    }],
    ['missing userName', REQUIRED, async (t: TestApp) => ({ apiKey: t.apiKey })],
    ['missing apiKey', REQUIRED, async (t: TestApp) => ({ userName: t.email })],
    ['an empty body', REQUIRED, async () => ({})],
    ['empty strings', REQUIRED, async () => ({ userName: '', apiKey: '' })],
    ['a non-string key', REQUIRED, async (t: TestApp) => ({ userName: t.email, apiKey: 12 })],
    ['disabled user', DISABLED, async (t: TestApp) => ({ userName: 'd@example.com', apiKey: await newUser(t, 'd@example.com', { disabled: true }) })],
    ['free user', 'Pro subscription required for the Simulator API',
      async (t: TestApp) => ({ userName: 'f@example.com', apiKey: await newUser(t, 'f@example.com', { plan: 'free' }) })],
  ])('%s → 1 %s', async (_name, message, makeBody) => {
    const t = await makeApp();
    const r = await legacyPost(t, 'Auth/loginKey', await makeBody(t));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(failure(1, message));
  });

  it('throttles failed attempts per email with HTTP 429 and Retry-After, counting both families, then recovers', async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
      const wrong = { userName: t.email, apiKey: 'wrong' };
      const post = i % 2 === 0 ? legacyPost(t, 'Auth/loginKey', wrong) : t.post('Auth/loginKey', wrong);
      expect((await post).body.errorCode).not.toBe(0);
    }
    const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: 'wrong' });
    expect(r.status).toBe(429);
    expect(r.body).toEqual(failure(429, 'Too many requests'));
    expect(r.headers.get('retry-after')).toBe(String(limits.loginWindowMs / 1000));
    t.clock.advance(limits.loginWindowMs + 1);
    expect((await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).body).toEqual(failure(1, INVALID));
    // The right key was never locked out (a key cannot be guessed; docs/decisions.md).
    expect((await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.success).toBe(true);
  });

  it('throttles failed attempts per client address', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const h = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < limits.loginFailuresPerAddressMax; i++) {
      expect((await legacyPost(t, 'Auth/loginKey', { userName: `u${i}@example.com`, apiKey: 'x' }, null, h)).body).toEqual(failure(1, INVALID));
    }
    const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).not.toBeNull();
  });

  it('thirty failures for one email from an address do not lock out another user behind it', async () => {
    const t = await makeApp();
    for (let i = 0; i < 30; i++) await legacyPost(t, 'Auth/loginKey', { userName: 'victim@example.com', apiKey: 'x' });
    expect((await legacyPost(t, 'Auth/loginKey', { userName: 'victim@example.com', apiKey: 'x' })).status).toBe(429);
    const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
  });

  it('40 logins of one user in a row, alternating families, all get tokens', async () => {
    const t = await makeApp();
    const tokens = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const body = { userName: t.email, apiKey: t.apiKey };
      const r = await (i % 2 === 0 ? legacyPost(t, 'Auth/loginKey', body) : t.post('Auth/loginKey', body));
      expect(r.body.success).toBe(true);
      tokens.add(r.body.token);
    }
    expect(tokens.size).toBe(40);
  });

  it(`the per-user success rate (${limits.loginSuccessesPerUserMax} a minute) is shared with the current family`, async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginSuccessesPerUserMax; i++) {
      const body = { userName: t.email, apiKey: t.apiKey };
      expect((await (i % 2 === 0 ? legacyPost(t, 'Auth/loginKey', body) : t.post('Auth/loginKey', body))).body.success).toBe(true);
    }
    const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(429);
    expect(r.body).toEqual(failure(429, 'Too many requests'));
    expect(r.headers.get('retry-after')).toBe(String(limits.loginWindowMs / 1000));
  });

  it('a disabled user\'s right key keeps answering Account is disabled: no failure, no lock', async () => {
    const t = await makeApp();
    const key = await newUser(t, 'd@example.com', { disabled: true });
    for (let i = 0; i < 2 * limits.loginFailuresPerEmailAddressMax; i++) {
      expect((await legacyPost(t, 'Auth/loginKey', { userName: 'd@example.com', apiKey: key })).body).toEqual(failure(1, DISABLED));
    }
  });
});

describe('Auth/validate', () => {
  it('returns the same token while more than an hour is left; it keeps working', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    const r = await legacyPost(t, 'Auth/validate', {}, token);
    expect(r.body).toEqual({ token, ...envelope });
    t.clock.advance(23 * HOUR_MS); // exactly one hour left: still kept
    expect((await legacyPost(t, 'Auth/validate', {}, token)).body).toEqual({ token, ...envelope });
    expect((await legacyPost(t, 'Account/search', {}, token)).status).toBe(200);
  });

  it('near expiry (under an hour left) returns a fresh 24-hour token and revokes the sent one', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    t.clock.advance(23 * HOUR_MS + 1000);
    const r = await legacyPost(t, 'Auth/validate', {}, token);
    expect(r.body).toEqual({ token: expect.any(String), ...envelope });
    expect(r.body.token).not.toBe(token);
    expect(claimsOf(r.body.token).exp).toBe(Math.floor(t.clock.nowMs() / 1000) + 24 * 3600);
    expect((await legacyPost(t, 'Account/search', {}, r.body.token)).status).toBe(200);
    expect((await legacyPost(t, 'Account/search', {}, token)).status).toBe(401);
  });

  it('accepts an empty body without Content-Type', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    expect((await legacyPost(t, 'Auth/validate', '', token, { 'content-type': '' })).body.success).toBe(true);
  });

  const INVALID = { ...failure(1, 'Invalid session'), token: null };

  it.each([
    ['no token', async () => null],
    ['a garbage token', async () => 'abc.def.ghi'],
    ['an expired token', async (t: TestApp) => {
      const token = await legacyLogin(t);
      t.clock.advance(24 * HOUR_MS + 1000);
      return token;
    }],
    ['a logged-out token', async (t: TestApp) => {
      const token = await legacyLogin(t);
      await legacyPost(t, 'Auth/logout', {}, token);
      return token;
    }],
  ])('%s → 1 Invalid session, token null', async (_n, tokenOf) => {
    const t = await makeApp();
    const r = await legacyPost(t, 'Auth/validate', {}, await tokenOf(t));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(INVALID);
  });

  it('limits to 60 calls per minute per account, shared with the current family; the 429 leaves the token valid', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    for (let i = 0; i < 30; i++) expect((await legacyPost(t, 'Auth/validate', {}, token)).body.success).toBe(true);
    let current = await t.login();
    for (let i = 0; i < 30; i++) current = (await t.post('Auth/validate', {}, current)).body.newToken;
    const limited = await legacyPost(t, 'Auth/validate', {}, token);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ ...failure(429, 'Too many requests'), token: null });
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await legacyPost(t, 'Account/search', {}, token)).status).toBe(200);
    t.clock.advance(limits.validateWindowMs + 1);
    expect((await legacyPost(t, 'Auth/validate', {}, token)).body).toEqual({ token, ...envelope });
  });
});

describe('a downgrade off Pro closes the API at once', () => {
  const PRO = 'Pro subscription required for the Simulator API';

  it('live tokens get 403 in both families; Auth/validate refuses to renew (1, token null), even near expiry; logout works', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    await t.s.users.set(t.email, { plan: 'free' });
    const refused = await legacyPost(t, 'Account/search', {}, token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(failure(403, PRO));
    expect((await t.post('Account/search', {}, token)).body).toEqual(failure(403, PRO));
    expect((await legacyPost(t, 'Auth/validate', {}, token)).body).toEqual({ ...failure(1, PRO), token: null });
    t.clock.advance(23 * HOUR_MS + 1000);
    expect((await legacyPost(t, 'Auth/validate', {}, token)).body).toEqual({ ...failure(1, PRO), token: null });
    expect((await legacyPost(t, 'Auth/logout', {}, token)).body).toEqual(envelope);
    expect((await legacyPost(t, 'Account/search', {}, token)).status).toBe(401);
  });
});

describe('Auth/logout', () => {
  it('invalidates the token; other tokens of the user stay valid', async () => {
    const t = await makeApp();
    const a = await legacyLogin(t);
    const b = await legacyLogin(t);
    expect((await legacyPost(t, 'Auth/logout', {}, a)).body).toEqual(envelope);
    expect((await legacyPost(t, 'Account/search', {}, a)).status).toBe(401);
    expect((await legacyPost(t, 'Account/search', {}, b)).status).toBe(200);
  });

  it('without a valid token answers 401', async () => {
    const t = await makeApp();
    const r = await legacyPost(t, 'Auth/logout', {}, null);
    expect(r.status).toBe(401);
    expect(r.body).toEqual(failure(401, 'Unauthorized'));
  });
});

describe('Status/ping', () => {
  it('answers a JSON envelope without a token', async () => {
    const t = await makeApp();
    const r = await legacyGet(t, 'Status/ping');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.body).toEqual({ message: 'pong', ...envelope });
  });
});
