// POST /api/auth/password: the signed-in user changes their password from Settings. The current
// password is required; other web sessions are signed out, this one stays; bots' tokens are not
// touched; wrong current passwords count against the web login's throttle.
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { makeApp, makeWebUser, webCall, webLogin } from '../../support/app.ts';

async function setup() {
  const t = await makeApp();
  const u = await makeWebUser(t);
  const here = await webLogin(t, u.email, u.password);
  const elsewhere = await webLogin(t, u.email, u.password);
  return { t, u, here, elsewhere };
}

const change = (t: any, cookie: string | null, body: unknown, headers: Record<string, string> = {}) => webCall(t, 'POST', '/api/auth/password', { cookie, body, headers });
const login = (t: any, email: string, password: string) => webCall(t, 'POST', '/api/auth/login', { body: { email, password } });

describe('POST /api/auth/password', () => {
  it('changes the password, keeps this session, signs out the others, leaves bots’ tokens alone', async () => {
    const { t, u, here, elsewhere } = await setup();
    const bot = await t.post('Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
    const r = await change(t, here, { currentPassword: u.password, newPassword: 'a much better passphrase' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, errorCode: 0, errorMessage: null });
    expect((await webCall(t, 'GET', '/api/auth/me', { cookie: here })).status).toBe(200);
    expect((await webCall(t, 'GET', '/api/auth/me', { cookie: elsewhere })).status).toBe(401);
    expect((await login(t, u.email, u.password)).body).toMatchObject({ success: false, errorCode: 1, errorMessage: 'Invalid credentials' });
    expect((await login(t, u.email, 'a much better passphrase')).body.success).toBe(true);
    // The demo user's bot token (another user, the app's own) still answers.
    expect((await t.post('Account/search', {}, bot.body.token)).status).toBe(200);
  });

  it.each([
    ['a wrong current password', { currentPassword: 'not it', newPassword: 'a much better passphrase' }, 1, 'The current password is wrong'],
    ['no current password', { newPassword: 'a much better passphrase' }, 1, 'The current password is wrong'],
    ['a new password under 8 characters', { currentPassword: 'correct horse battery staple', newPassword: '1234567' }, 2, 'The new password needs 8 to 256 characters'],
    ['a new password over 256 characters', { currentPassword: 'correct horse battery staple', newPassword: 'x'.repeat(257) }, 2, 'The new password needs 8 to 256 characters'],
    ['a new password that is not a string', { currentPassword: 'correct horse battery staple', newPassword: 12345678 }, 2, 'The new password needs 8 to 256 characters'],
  ])('refuses %s, changing nothing and signing nobody out', async (_, body, errorCode, errorMessage) => {
    const { t, u, here, elsewhere } = await setup();
    const r = await change(t, here, body);
    expect(r.body).toEqual({ success: false, errorCode, errorMessage });
    expect((await webCall(t, 'GET', '/api/auth/me', { cookie: elsewhere })).status).toBe(200);
    expect((await login(t, u.email, u.password)).body.success).toBe(true);
  });

  it('accepts exactly 8 characters', async () => {
    const { t, u, here } = await setup();
    expect((await change(t, here, { currentPassword: u.password, newPassword: '12345678' })).body.success).toBe(true);
    expect((await login(t, u.email, '12345678')).body.success).toBe(true);
  });

  it('needs a session (401), and counts wrong current passwords as failed logins (429 after the limit)', async () => {
    const { t, u, here } = await setup();
    expect((await change(t, null, { currentPassword: u.password, newPassword: 'a much better passphrase' })).status).toBe(401);
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) expect((await change(t, here, { currentPassword: `guess ${i}`, newPassword: 'a much better passphrase' })).body.errorCode).toBe(1);
    const limited = await change(t, here, { currentPassword: u.password, newPassword: 'a much better passphrase' });
    expect(limited.status).toBe(429);
    // The same throttle as the login form's: the email is held there too, and the password is unchanged.
    expect((await login(t, u.email, u.password)).status).toBe(429);
    t.clock.advance(limits.loginWindowMs);
    expect((await login(t, u.email, u.password)).body.success).toBe(true);
  });
});
