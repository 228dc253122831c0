// The console opens hub connections with its session cookie, from a page of this server only; bots
// use their bearer token. Plan and session are checked again while connected.

import { afterEach, expect, it } from 'bun:test';
import { hubAuthentication } from '../../../src/http/hubs/auth.ts';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { makeApp } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';

let h: HubServer;
afterEach(async () => h?.stop());

async function serve() {
  const t = await makeApp();
  const created = await t.s.users.create({ email: 'web@example.com', plan: 'pro', password: 'correct horse battery' });
  if (!created.ok) throw new Error('no user');
  const auth = hubAuthentication(t.s);
  h = await startHubServer({ t, hubs: gatewayHubs(t.s), ...auth });
  const login = await fetch(`${h.baseUrl}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'web@example.com', password: 'correct horse battery' }),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  expect(cookie).toMatch(/^rd_session=./);
  return { t, cookie, auth };
}

/** Opens a raw WebSocket and reports whether the upgrade succeeded. */
function upgrade(url: string, headers: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers } as any);
    ws.onopen = () => {
      ws.close();
      resolve(true);
    };
    ws.onerror = () => resolve(false);
  });
}

it('a session cookie opens the hubs from this server\'s own pages only', async () => {
  const { cookie } = await serve();
  const url = `ws://127.0.0.1:${h.port}/hubs/market`;
  expect(await upgrade(url, { cookie, origin: `http://127.0.0.1:${h.port}` })).toBe(true);
  expect(await upgrade(url, { cookie, origin: 'http://evil.example' })).toBe(false);
  expect(await upgrade(url, { cookie })).toBe(false);
  expect(await upgrade(url, { origin: `http://127.0.0.1:${h.port}` })).toBe(false);
  expect(await upgrade(url, { authorization: `Bearer ${h.token}` })).toBe(true);
});

it('revalidation: a web logout or a plan below Pro ends a console principal; a free user cannot connect', async () => {
  const { t, cookie, auth } = await serve();
  const req = new Request(`http://127.0.0.1:${h.port}/hubs/user`, { headers: { cookie, origin: `http://127.0.0.1:${h.port}`, host: `127.0.0.1:${h.port}` } });
  const p = await auth.authenticate(null, req);
  expect(p?.user.email).toBe('web@example.com');
  expect(await auth.revalidate(p!)).toBe(true);
  await t.s.users.set('web@example.com', { plan: 'free' });
  expect(await auth.revalidate(p!)).toBe(false);
  expect(await auth.authenticate(null, req)).toBeNull();
  const bearer = await auth.authenticate(h.token, req);
  expect(bearer && (await auth.revalidate(bearer))).toBe(true);
  await t.post('Auth/logout', {}, h.token);
  expect(await auth.revalidate(bearer!)).toBe(false);
});
