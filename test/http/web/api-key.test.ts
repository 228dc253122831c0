// API-key settings of the web application: shown once on creation, the old key and its tokens
// revoked at once, Pro only, CSRF-guarded.
import { describe, expect, it } from 'bun:test';
import { makeApp, makeWebUser, webCall, webLogin } from '../../support/app.ts';

describe('POST /api/auth/api-key', () => {
  it('makes a key that logs in to the current family, and a second one revokes the first and its tokens', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t);
    const cookie = await webLogin(t, u.email, u.password);
    const before = await webCall(t, 'GET', '/api/auth/api-key', { cookie });
    // Users are created with a key (the admin CLI prints it); the settings page only learns that one exists.
    expect(before.body).toEqual({ hasApiKey: true, userName: u.email, success: true, errorCode: 0, errorMessage: null });

    const first = await webCall(t, 'POST', '/api/auth/api-key', { cookie });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['apiKey', 'errorCode', 'errorMessage', 'success', 'userName']);
    expect(first.body.apiKey).toMatch(/^rdk_[A-Za-z0-9_-]{43}$/);
    const login1 = await t.post('Auth/loginKey', { userName: u.email, apiKey: first.body.apiKey });
    expect(login1.body.success).toBe(true);
    const token1 = login1.body.token as string;
    expect((await t.post('Account/search', {}, token1)).status).toBe(200);

    const after = await webCall(t, 'GET', '/api/auth/api-key', { cookie });
    expect(after.body.hasApiKey).toBe(true);
    expect(JSON.stringify(after.body)).not.toContain(first.body.apiKey);

    const second = await webCall(t, 'POST', '/api/auth/api-key', { cookie });
    expect(second.body.apiKey).not.toBe(first.body.apiKey);
    expect((await t.post('Account/search', {}, token1)).status).toBe(401);
    const old = await t.post('Auth/loginKey', { userName: u.email, apiKey: first.body.apiKey });
    expect(old.body).toEqual({ success: false, errorCode: 3, errorMessage: 'Invalid credentials' });
    expect((await t.post('Auth/loginKey', { userName: u.email, apiKey: second.body.apiKey })).body.success).toBe(true);
  });

  it('refuses a free user, a missing session and a cross-site request, and changes no key', async () => {
    const t = await makeApp();
    const password = 'correct horse battery staple';
    const free = await t.s.users.create({ email: 'free@example.com', password, plan: 'free' });
    if (!free.ok) throw new Error('setup');
    const freeCookie = await webLogin(t, 'free@example.com', password);
    const r = await webCall(t, 'POST', '/api/auth/api-key', { cookie: freeCookie });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, errorCode: 403, errorMessage: 'Pro subscription required for the Simulator API' });
    // The free user's key is the same one: login still reaches the Pro check (errorCode 9), not "Invalid credentials".
    expect((await t.post('Auth/loginKey', { userName: 'free@example.com', apiKey: free.value.apiKey })).body.errorCode).toBe(9);

    expect((await webCall(t, 'POST', '/api/auth/api-key', {})).status).toBe(401);

    const pro = await t.s.users.create({ email: 'pro@example.com', password, plan: 'pro' });
    if (!pro.ok) throw new Error('setup');
    const cookie = await webLogin(t, 'pro@example.com', password);
    const cross = await webCall(t, 'POST', '/api/auth/api-key', { cookie, headers: { origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    expect(cross.body.errorMessage).toBe('Cross-site request refused');
    expect((await t.post('Auth/loginKey', { userName: 'pro@example.com', apiKey: pro.value.apiKey })).body.success).toBe(true);
  });
});
