import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { makeApp } from '../../support/app.ts';

function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

describe('Auth/loginKey', () => {
  it('returns a 24-hour HS256 JWT for a valid key', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, errorCode: 0, errorMessage: null });
    const header = JSON.parse(Buffer.from(r.body.token.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(r.body.token);
    expect(claims.exp as number).toBe(Math.floor(t.clock.nowMs() / 1000) + 24 * 3600);
    expect(typeof claims.jti).toBe('string');
  });

  it('accepts extra fields and a differently cased email', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', { userName: t.email.toUpperCase(), apiKey: t.apiKey, live: false, extra: 1 });
    expect(r.body.success).toBe(true);
  });

  const invalid = { success: false, errorCode: 3, errorMessage: 'Invalid credentials' };

  it.each([
    ['wrong key', async (t: any) => ({ userName: t.email, apiKey: 'rdk_wrong' })],
    ['unknown email', async (t: any) => ({ userName: 'nobody@example.com', apiKey: t.apiKey })],
    ['missing apiKey', async (t: any) => ({ userName: t.email })],
    ['missing userName', async (t: any) => ({ apiKey: t.apiKey })],
    ['non-string key', async (t: any) => ({ userName: t.email, apiKey: 12 })],
    ['a user name longer than any address', async (t: any) => ({ userName: `${'a'.repeat(300)}@example.com`, apiKey: t.apiKey })],
    [
      'unverified user',
      async (t: any) => {
        const u = await t.s.users.create({ email: 'unverified@example.com', verified: false });
        return { userName: 'unverified@example.com', apiKey: u.value.apiKey };
      },
    ],
    [
      'disabled user',
      async (t: any) => {
        const u = await t.s.users.create({ email: 'disabled@example.com', disabled: true });
        return { userName: 'disabled@example.com', apiKey: u.value.apiKey };
      },
    ],
    [
      'rotated (revoked) key',
      async (t: any) => {
        const old = t.apiKey;
        t.s.users.rotateKey(t.email);
        return { userName: t.email, apiKey: old };
      },
    ],
  ])('%s → errorCode 3 Invalid credentials, identical body', async (_name, makeBody) => {
    const t = await makeApp();
    const r = await t.post('Auth/loginKey', await makeBody(t));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(invalid);
  });

  it('a user not on Pro gets errorCode 9', async () => {
    const t = await makeApp();
    const u = await t.s.users.create({ email: 'free@example.com', plan: 'free' });
    if (!u.ok) throw new Error('setup');
    const r = await t.post('Auth/loginKey', { userName: 'free@example.com', apiKey: u.value.apiKey });
    expect(r.body).toEqual({ success: false, errorCode: 9, errorMessage: 'Pro subscription required for the Simulator API' });
  });

  it('a free user with a wrong key still gets errorCode 3 (no plan probing)', async () => {
    const t = await makeApp();
    await t.s.users.create({ email: 'free@example.com', plan: 'free' });
    const r = await t.post('Auth/loginKey', { userName: 'free@example.com', apiKey: 'nope' });
    expect(r.body.errorCode).toBe(3);
  });

  it('throttles per email with HTTP 429 and Retry-After, then recovers after the window', async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginPerEmailMax; i++) {
      const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, { 'x-forwarded-for': `10.0.0.${i}` });
      expect(r.status).toBe(200);
    }
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    t.clock.advance(limits.loginPerEmailWindowMs + 1);
    const again = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(again.body.success).toBe(true);
  });

  it('throttles per client address across emails', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const h = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < limits.loginPerAddressMax; i++) {
      await t.post('Auth/loginKey', { userName: `u${i}@example.com`, apiKey: 'x' }, null, h);
    }
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).not.toBeNull();
    const other = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, { 'x-forwarded-for': '203.0.113.8' });
    expect(other.body.success).toBe(true);
  });
});

describe('Auth/validate', () => {
  it('rotates the token: the new one works, the old one is revoked', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Auth/validate', {}, token);
    expect(r.body).toMatchObject({ success: true, errorCode: 0, errorMessage: null });
    expect(r.body.newToken).not.toBe(token);
    expect((await t.post('Account/search', {}, r.body.newToken)).status).toBe(200);
    expect((await t.post('Account/search', {}, token)).status).toBe(401);
  });

  it.each([
    ['an empty body with Content-Type', '', { 'content-type': 'application/json' }],
    ['an empty body without Content-Type', '', { 'content-type': '' }],
  ])('accepts %s', async (_n, body, headers) => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Auth/validate', body, token, headers);
    expect(r.body.success).toBe(true);
  });

  it.each([
    ['no token', () => null],
    ['a garbage token', () => 'abc.def.ghi'],
  ])('%s → errorCode 1 Invalid session, newToken null', async (_n, tok) => {
    const t = await makeApp();
    const r = await t.post('Auth/validate', {}, tok());
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Invalid session', newToken: null });
  });

  it('an expired token → Invalid session', async () => {
    const t = await makeApp();
    const token = await t.login();
    t.clock.advance(24 * 3600 * 1000 + 1000);
    const r = await t.post('Auth/validate', {}, token);
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Invalid session', newToken: null });
  });

  it('limits to 60 calls per minute per account; the 429 leaves the token valid', async () => {
    const t = await makeApp();
    let token = await t.login();
    for (let i = 0; i < 60; i++) {
      const r = await t.post('Auth/validate', {}, token);
      expect(r.body.success).toBe(true);
      token = r.body.newToken;
    }
    const limited = await t.post('Auth/validate', {}, token);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests', newToken: null });
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await t.post('Account/search', {}, token)).status).toBe(200);
  });
});

describe('Auth/logout', () => {
  it('invalidates the token; other tokens of the user stay valid', async () => {
    const t = await makeApp();
    const a = await t.login();
    const b = await t.login();
    const r = await t.post('Auth/logout', {}, a);
    expect(r.body).toEqual({ success: true, errorCode: 0, errorMessage: null });
    expect((await t.post('Account/search', {}, a)).status).toBe(401);
    expect((await t.post('Account/search', {}, b)).status).toBe(200);
  });

  it('accepts an empty body', async () => {
    const t = await makeApp();
    const a = await t.login();
    expect((await t.post('Auth/logout', '', a, { 'content-type': '' })).body.success).toBe(true);
  });

  it('without a valid token answers 401', async () => {
    const t = await makeApp();
    const r = await t.post('Auth/logout', {}, null);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, errorCode: 401, errorMessage: 'Unauthorized' });
  });
});

describe('key rotation and user changes take effect at once', () => {
  it('rotating the key revokes the old key and live tokens', async () => {
    const t = await makeApp();
    const token = await t.login();
    const rotated = t.s.users.rotateKey(t.email);
    if (!rotated.ok) throw new Error('rotate');
    expect((await t.post('Account/search', {}, token)).status).toBe(401);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.errorCode).toBe(3);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: rotated.value.apiKey })).body.success).toBe(true);
  });

  it('a plan change applies at the next login; logout still works', async () => {
    const t = await makeApp();
    const token = await t.login();
    t.s.users.set(t.email, { plan: 'free' });
    expect((await t.post('Contract/search', {}, token)).body.success).toBe(true);
    expect((await t.post('Auth/logout', {}, token)).body.success).toBe(true);
    expect((await t.post('Contract/search', {}, token)).status).toBe(401);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.errorCode).toBe(9);
  });

  it('disabling a user cuts its live tokens', async () => {
    const t = await makeApp();
    const token = await t.login();
    t.s.users.set(t.email, { disabled: true });
    expect((await t.post('Account/search', {}, token)).status).toBe(401);
  });
});
