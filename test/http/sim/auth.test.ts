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
        await t.s.users.rotateKey(t.email);
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
});

describe('Auth/loginKey throttle: failures per email and address, per email, per address; successes per user', () => {
  const TOO_MANY = { success: false, errorCode: 429, errorMessage: 'Too many requests' };
  const INVALID = { success: false, errorCode: 3, errorMessage: 'Invalid credentials' };

  it('40 logins of one user from one address in a row all get tokens (bots restarting together)', async () => {
    const t = await makeApp();
    const tokens = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      tokens.add(r.body.token);
    }
    expect(tokens.size).toBe(40);
    for (const token of tokens) expect((await t.post('Account/search', {}, token)).status).toBe(200);
  });

  it('the 11th failed attempt for one email from one address → 429 with Retry-After until the oldest failure leaves', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const h = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
      const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, h);
      expect(r.body).toEqual(INVALID);
      t.clock.advance(1000);
    }
    // Failures at 0 s … 9 s; now 10 s: the first leaves the window at 60 s.
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, h);
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(r.headers.get('retry-after')).toBe('50');
    // A key cannot be guessed, so the lock refuses only wrong keys: the right one still gets its
    // token (a stranger behind the same address must not lock the user's bots out), and its success
    // forgets the email's failures from the address.
    const right = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h);
    expect([right.status, right.body.success]).toEqual([200, true]);
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, h);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, h)).status).toBe(429);
    // Other emails from that address, and that email from another address, are not affected.
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('setup');
    expect((await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey }, null, h)).body.success).toBe(true);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, { 'x-forwarded-for': '203.0.113.8' })).body.success).toBe(true);
    t.clock.advance(50_000);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h)).body.success).toBe(true);
  });

  it('failures from one address lock only the emails they name: everyone else behind it logs in (no TRUST_PROXY)', async () => {
    const t = await makeApp();
    // Thirty failures and more, for one email and for three, all from the one address every client shares here.
    for (let i = 0; i < 40; i++) await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' });
    for (let i = 0; i < 30; i++) await t.post('Auth/loginKey', { userName: `u${i % 3}@example.com`, apiKey: 'wrong' });
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).status).toBe(429);
    // The locked email's own right key still logs in (a key cannot be guessed).
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.success).toBe(true);
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('setup');
    const r = await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
  });

  it(`${limits.loginFailuresPerEmailMax} failures for one email from many addresses lock that email's wrong keys everywhere (distributed guessing)`, async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const from = (i: number) => ({ 'x-forwarded-for': `10.1.${i >> 8}.${i & 255}` });
    for (let i = 0; i < limits.loginFailuresPerEmailMax; i++) {
      expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, from(i))).body).toEqual(INVALID);
    }
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, from(1000));
    expect([r.status, r.body]).toEqual([429, TOO_MANY]);
    t.clock.advance(limits.loginWindowMs);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, from(1000))).body).toEqual(INVALID);
  });

  it('strangers\' failures on an email, from any addresses and renewed every minute, never lock out its bots\' right key', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const from = (i: number) => ({ 'x-forwarded-for': `10.2.${i >> 8}.${i & 255}` });
    const bot = { 'x-forwarded-for': '198.51.100.9' };
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < limits.loginFailuresPerEmailMax; i++) await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' }, null, from(i));
      // Locked for wrong keys, from anywhere, even the bots' own address …
      for (const h of [from(999), bot]) expect(await t.post('Auth/loginKey', { userName: t.email, apiKey: `wrong-${minute}` }, null, h)).toMatchObject({ status: 429, body: TOO_MANY });
      // … an unknown email is not (its failures are its own) …
      expect((await t.post('Auth/loginKey', { userName: 'nobody@example.com', apiKey: 'wrong' }, null, bot)).body).toEqual(INVALID);
      // … and the right key gets a token that works, from the bots' address and from a stranger's.
      for (const h of [bot, from(3)]) {
        const ok = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h);
        expect([ok.status, ok.body.success]).toEqual([200, true]);
        expect((await t.post('Account/search', { onlyActiveAccounts: true }, ok.body.token)).body.success).toBe(true);
      }
      t.clock.advance(limits.loginWindowMs);
    }
  });

  it('counts an email however it is cased or padded', async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
      const name = i % 2 === 0 ? `  ${t.email.toUpperCase()} ` : t.email;
      expect((await t.post('Auth/loginKey', { userName: name, apiKey: 'wrong' })).body).toEqual(INVALID);
    }
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).status).toBe(429);
  });

  it('a right key after failures (under the limit) gets its token and clears the email\'s failures', async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax - 1; i++) await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' });
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.success).toBe(true);
    // A full allowance of failures again before the lock.
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
      expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).body).toEqual(INVALID);
    }
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).status).toBe(429);
  });

  it('failures from one address across emails hit the per-address cap; successes there do not count', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const h = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 50; i++) expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h)).body.success).toBe(true);
    for (let i = 0; i < limits.loginFailuresPerAddressMax; i++) {
      expect((await t.post('Auth/loginKey', { userName: `u${i}@example.com`, apiKey: 'x' }, null, h)).body).toEqual(INVALID);
    }
    const r = await t.post('Auth/loginKey', { userName: 'fresh@example.com', apiKey: 'x' }, null, h);
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The right key from that address is refused too (the address is checked first) …
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h)).status).toBe(429);
    // … while another address logs in.
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, { 'x-forwarded-for': '203.0.113.8' })).body.success).toBe(true);
  });

  it('a success does not clear the address\'s failures (one good account cannot launder an address)', async () => {
    const t = await makeApp({ config: { trustProxy: true } });
    const h = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < limits.loginFailuresPerAddressMax - 1; i++) await t.post('Auth/loginKey', { userName: `u${i}@example.com`, apiKey: 'x' }, null, h);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, h)).body.success).toBe(true);
    expect((await t.post('Auth/loginKey', { userName: 'last@example.com', apiKey: 'x' }, null, h)).body).toEqual(INVALID);
    expect((await t.post('Auth/loginKey', { userName: 'next@example.com', apiKey: 'x' }, null, h)).status).toBe(429);
  });

  it('missing credentials count as failures of the address', async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginFailuresPerAddressMax; i++) expect((await t.post('Auth/loginKey', {})).body).toEqual(INVALID);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).status).toBe(429);
  });

  it(`successful logins over ${limits.loginSuccessesPerUserMax} a minute for one user → 429 with Retry-After; other users unaffected`, async () => {
    const t = await makeApp();
    for (let i = 0; i < limits.loginSuccessesPerUserMax; i++) {
      const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey }, null, { 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` });
      expect(r.body.success).toBe(true);
      if (i === 0) t.clock.advance(10_000);
    }
    // The first success at 0 s leaves the window at 60 s; now 10 s.
    const r = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(r.headers.get('retry-after')).toBe('50');
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('setup');
    expect((await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey })).body.success).toBe(true);
    // A wrong key is still a plain failure (the rate applies once the key matched).
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: 'wrong' })).body).toEqual(INVALID);
    t.clock.advance(50_000);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.success).toBe(true);
  });

  it('a matching key counts as a success whatever the plan: a free user\'s bots get errorCode 9, not a lock', async () => {
    const t = await makeApp();
    const u = await t.s.users.create({ email: 'free@example.com', plan: 'free' });
    if (!u.ok) throw new Error('setup');
    for (let i = 0; i < 2 * limits.loginFailuresPerEmailAddressMax; i++) {
      expect((await t.post('Auth/loginKey', { userName: 'free@example.com', apiKey: u.value.apiKey })).body.errorCode).toBe(9);
    }
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
    const rotated = await t.s.users.rotateKey(t.email);
    if (!rotated.ok) throw new Error('rotate');
    expect((await t.post('Account/search', {}, token)).status).toBe(401);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.errorCode).toBe(3);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: rotated.value.apiKey })).body.success).toBe(true);
  });

  const SIM_PRO = { success: false, errorCode: 403, errorMessage: 'Pro subscription required for the Simulator API' };

  it('a downgrade closes the API at once: live tokens get 403, Auth/validate errorCode 9; logout still works', async () => {
    const t = await makeApp();
    const token = await t.login();
    await t.s.users.set(t.email, { plan: 'free' });
    const refused = await t.post('Contract/search', {}, token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(SIM_PRO);
    expect((await t.post('Order/place', { accountId: 1 }, token)).body).toEqual(SIM_PRO);
    const v = await t.post('Auth/validate', {}, token);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ success: false, errorCode: 9, errorMessage: 'Pro subscription required for the Simulator API', newToken: null });
    // Back on Pro, the same token works again (validate refused it without revoking it).
    await t.s.users.set(t.email, { plan: 'pro' });
    expect((await t.post('Contract/search', {}, token)).body.success).toBe(true);
    await t.s.users.set(t.email, { plan: 'free' });
    expect((await t.post('Auth/logout', {}, token)).body.success).toBe(true);
    expect((await t.post('Contract/search', {}, token)).status).toBe(401);
    expect((await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey })).body.errorCode).toBe(9);
  });

  it('disabling a user cuts its live tokens', async () => {
    const t = await makeApp();
    const token = await t.login();
    await t.s.users.set(t.email, { disabled: true });
    expect((await t.post('Account/search', {}, token)).status).toBe(401);
  });
});
