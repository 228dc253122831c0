// The API profile (docs/gateway-profile.md): API_PROFILE sets the server's default; an API key's own
// choice wins over it (console Settings, the admin CLI); every token of the key follows a change from
// its next request, tokens issued before it included; the console's cookie is always answered in the
// spec's shapes.
import { describe, expect, it } from 'bun:test';
import { loadConfig } from '../../../src/config.ts';
import { parseArgs } from '../../../src/admin/args.ts';
import { userCommand } from '../../../src/admin/user-commands.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { at, orderObject, placeOk, replayApp, type ReplayTestApp, startSession } from '../../support/replay.ts';

describe('config: API_PROFILE', () => {
  it.each([
    [undefined, 'spec'],
    ['', 'spec'],
    ['spec', 'spec'],
    ['live', 'live'],
    [' LIVE ', 'live'],
  ])('%p → %p', (value, profile) => {
    expect(loadConfig({ API_PROFILE: value }).apiProfile).toBe(profile as 'spec' | 'live');
  });

  it('refuses another value, naming the setting and its values', () => {
    expect(() => loadConfig({ API_PROFILE: 'gateway' })).toThrow('API_PROFILE must be one of spec, live, got "gateway"');
  });

  it('SYMBOL_ID_STYLE given explicitly is remembered as explicit', () => {
    expect(loadConfig({}).symbolIdStyleExplicit).toBe(false);
    expect(loadConfig({ SYMBOL_ID_STYLE: 'plain' }).symbolIdStyleExplicit).toBe(true);
  });
});

/** A working buy limit of 1 at 19,990 in a fresh session; returns the session. */
async function withWorkingOrder(t: ReplayTestApp) {
  const x = await startSession(t);
  await t.post('Replay/step', { accountId: x.accountId, steps: 1 }, t.token);
  const id = await placeOk(t, x, { type: 1, side: 0, limitPrice: 19990 });
  return { x, id };
}

const orderSearch = async (t: ReplayTestApp, accountId: number, token = t.token) =>
  (await t.post('Order/search', { accountId }, token)).body.orders;
const contractSymbolId = async (t: ReplayTestApp, token = t.token) =>
  (await t.post('Contract/searchById', { contractId: 'CON.F.US.ENQ.H25' }, token)).body.contract.symbolId;

describe('a key\'s profile', () => {
  it('spec by default: the spec\'s order shape and plain symbol IDs', async () => {
    const t = await replayApp([20000, 20000, 20000]);
    const { x, id } = await withWorkingOrder(t);
    expect(await orderSearch(t, x.accountId)).toEqual([orderObject(x, { id, creationTimestamp: at(1), status: 6, limitPrice: 19990 })]);
    expect(await contractSymbolId(t)).toBe('NQ');
  });

  it('API_PROFILE=live answers every key that chose none in the live gateway\'s shapes', async () => {
    const t = await replayApp([20000, 20000, 20000], { config: { apiProfile: 'live' } });
    const { x, id } = await withWorkingOrder(t);
    expect(await orderSearch(t, x.accountId)).toEqual([
      orderObject(x, { id, symbolId: 'F.US.ENQ', creationTimestamp: at(1), updateTimestamp: at(1), status: 1, limitPrice: 19990 }),
    ]);
    expect(await contractSymbolId(t)).toBe('F.US.ENQ');
  });

  it('an explicit SYMBOL_ID_STYLE holds under the live profile too', async () => {
    const t = await replayApp([20000, 20000, 20000], { config: { apiProfile: 'live', symbolIdStyle: 'plain', symbolIdStyleExplicit: true } });
    expect(await contractSymbolId(t)).toBe('NQ');
  });

  it('set in Settings, it wins over the server\'s default, and a token issued before the change follows it at once', async () => {
    const t = await replayApp([20000, 20000, 20000]);
    const { x } = await withWorkingOrder(t);
    // The trader signs in to the console with a password: Settings speaks for the trader's key.
    expect((await t.s.webAuth.setPassword(t.email, 'a long enough password')).ok).toBe(true);
    const cookie = await webLogin(t, t.email, 'a long enough password');
    const headers = { origin: 'http://localhost' };

    const before = await webCall(t, 'GET', '/api/auth/api-key/profile', { cookie });
    expect(before.body).toEqual({ profile: null, serverDefault: 'spec', effective: 'spec', success: true, errorCode: 0, errorMessage: null });

    const set = await webCall(t, 'PUT', '/api/auth/api-key/profile', { cookie, headers, body: { profile: 'live' } });
    expect(set.body).toEqual({ profile: 'live', serverDefault: 'spec', effective: 'live', success: true, errorCode: 0, errorMessage: null });
    // The token was issued before the change.
    expect((await orderSearch(t, x.accountId))[0]).toMatchObject({ status: 1, symbolId: 'F.US.ENQ', customTag: null });
    expect(typeof (await orderSearch(t, x.accountId))[0].updateTimestamp).toBe('string');

    // The console's cookie is answered in the spec's shapes whatever the key's profile.
    const viaConsole = await webCall(t, 'POST', '/api/sim/Order/search', { cookie, headers, body: { accountId: x.accountId } });
    expect(viaConsole.body.orders[0]).toMatchObject({ status: 6, symbolId: 'NQ', updateTimestamp: null });

    const back = await webCall(t, 'PUT', '/api/auth/api-key/profile', { cookie, headers, body: { profile: null } });
    expect(back.body.effective).toBe('spec');
    expect((await orderSearch(t, x.accountId))[0].status).toBe(6);
  });

  it('refuses a profile that is neither spec, live nor null, and changes nothing', async () => {
    const t = await replayApp([20000]);
    expect((await t.s.webAuth.setPassword(t.email, 'a long enough password')).ok).toBe(true);
    const cookie = await webLogin(t, t.email, 'a long enough password');
    const r = await webCall(t, 'PUT', '/api/auth/api-key/profile', { cookie, headers: { origin: 'http://localhost' }, body: { profile: 'gateway' } });
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'profile must be "spec", "live" or null' });
    expect((await webCall(t, 'GET', '/api/auth/api-key/profile', { cookie })).body.profile).toBeNull();
  });

  it('a new key made in Settings takes the profile asked for, and keeps the old key\'s when none is asked', async () => {
    const t = await replayApp([20000]);
    expect((await t.s.webAuth.setPassword(t.email, 'a long enough password')).ok).toBe(true);
    const cookie = await webLogin(t, t.email, 'a long enough password');
    const headers = { origin: 'http://localhost' };
    const made = await webCall(t, 'POST', '/api/auth/api-key', { cookie, headers, body: { profile: 'live' } });
    expect(made.body.success).toBe(true);
    const token = (await t.post('Auth/loginKey', { userName: t.email, apiKey: made.body.apiKey })).body.token;
    expect(await contractSymbolId(t, token)).toBe('F.US.ENQ');
    const again = await webCall(t, 'POST', '/api/auth/api-key', { cookie, headers, body: {} });
    const token2 = (await t.post('Auth/loginKey', { userName: t.email, apiKey: again.body.apiKey })).body.token;
    expect(await contractSymbolId(t, token2)).toBe('F.US.ENQ');
  });

  it('admin user set-profile sets the current key\'s profile; default follows the server again', async () => {
    const t = await replayApp([20000]);
    const cli = (profile: string) => userCommand(t.s, 'set-profile', parseArgs(['--email', t.email, '--profile', profile], new Set()));
    expect(await cli('live'))
      .toEqual({ email: t.email, profile: 'live', effectiveProfile: 'live' });
    expect(await contractSymbolId(t)).toBe('F.US.ENQ');
    expect(await cli('default'))
      .toEqual({ email: t.email, profile: null, effectiveProfile: 'spec' });
    expect(await contractSymbolId(t)).toBe('NQ');
    await expect(cli('gateway')).rejects.toThrow('profile must be one of spec, live or default');
  });
});

describe('a profile named by the base URL', () => {
  it('/live/api/sim and /spec/api/sim answer under that profile whatever the key chose: two bots, one key', async () => {
    const t = await replayApp([20000, 20000, 20000], { config: { apiProfile: 'live' } });
    const { x } = await withWorkingOrder(t);
    const call = async (path: string) => {
      const res = await t.app.handle(new Request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
        body: JSON.stringify({ accountId: x.accountId }),
      }));
      return (await res.json()) as { orders: { status: number; symbolId: string; updateTimestamp: string | null }[] };
    };
    expect((await call('/api/sim/Order/search')).orders[0]).toMatchObject({ status: 1, symbolId: 'F.US.ENQ' });
    expect((await call('/spec/api/sim/Order/search')).orders[0]).toMatchObject({ status: 6, symbolId: 'NQ', updateTimestamp: null });
    expect((await call('/spec/api/Order/search')).orders[0]).toMatchObject({ status: 6, symbolId: 'NQ' });
    await t.s.users.setKeyProfile(t.email, 'spec');
    expect((await call('/live/api/sim/Order/search')).orders[0]).toMatchObject({ status: 1, symbolId: 'F.US.ENQ' });
    expect((await call('/api/sim/Order/search')).orders[0]).toMatchObject({ status: 6, symbolId: 'NQ' });
  });
});
