// The web console calls the current family with its session cookie instead of a bearer token: the
// same answers, the CSRF guard of the cookie routes, the Pro plan checked per request, and the
// token's own endpoints (Auth/logout) still bearer-only.
import { describe, expect, it } from 'bun:test';
import { makeWebUser, webCall, webLogin } from '../../support/app.ts';
import { replayApp } from '../../support/replay.ts';

async function setup(plan: 'pro' | 'free' = 'pro') {
  const t = await replayApp([20000, 20001, 20002]);
  const u = await makeWebUser(t, { plan });
  const cookie = await webLogin(t, u.email, u.password);
  return { t, cookie };
}

describe('current family with the web session cookie', () => {
  it('starts a replay and lists its account for the cookie user, as a bearer token would', async () => {
    const { t, cookie } = await setup();
    const same = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' };
    const start = await webCall(t, 'POST', '/api/sim/Replay/start', { cookie, body: { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, headers: same });
    expect(start.status).toBe(200);
    expect(start.body.success).toBe(true);
    const r = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: { onlyActiveAccounts: true }, headers: same });
    expect(r.body.success).toBe(true);
    expect(r.body.accounts.map((a: { id: number }) => a.id)).toEqual([start.body.accountId]);
    // The bearer user of the same app sees none of the cookie user's accounts.
    const token = await t.login();
    const other = await t.post('Account/search', { onlyActiveAccounts: false }, token);
    expect(other.body.accounts).toEqual([]);
  });

  it('refuses a cross-site request and a non-JSON POST with 403, changing nothing', async () => {
    const { t, cookie } = await setup();
    const cross = await webCall(t, 'POST', '/api/sim/Replay/start', {
      cookie,
      body: { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' },
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ success: false, errorCode: 403, errorMessage: 'Cross-site request refused' });
    const form = await webCall(t, 'POST', '/api/sim/Replay/start', { cookie, body: 'instrumentSymbol=NQ', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(403);
    const after = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: {} });
    expect(after.body).toEqual({ accounts: [], success: true, errorCode: 0, errorMessage: null });
  });

  it('refuses a free user with 403 and the Simulator API message', async () => {
    const { t, cookie } = await setup('free');
    const r = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: {} });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, errorCode: 403, errorMessage: 'Pro subscription required for the Simulator API' });
  });

  it('answers 401 for a logged-out cookie, and keeps Auth/logout bearer-only', async () => {
    const { t, cookie } = await setup();
    const out = await webCall(t, 'POST', '/api/sim/Auth/logout', { cookie, body: {} });
    expect(out.status).toBe(401);
    await webCall(t, 'POST', '/api/auth/logout', { cookie, body: {} });
    const r = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: {} });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, errorCode: 401, errorMessage: 'Unauthorized' });
  });

  it('prefers the bearer token when both are sent', async () => {
    const { t, cookie } = await setup();
    await webCall(t, 'POST', '/api/sim/Replay/start', { cookie, body: { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' } });
    const token = await t.login();
    const r = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: {}, headers: { authorization: `Bearer ${token}` } });
    expect(r.body.accounts).toEqual([]);
    const bad = await webCall(t, 'POST', '/api/sim/Account/search', { cookie, body: {}, headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
  });
});
