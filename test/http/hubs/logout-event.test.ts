// GatewayLogout: the user hub tells a connection its session ended (logout, key rotation) just before
// the close message, as the live gateway's user hub may; the market hub only closes.

import { afterEach, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { makeApp } from '../../support/app.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { RawHubClient } from '../../support/hub-raw.ts';

let h: HubServer | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

it('Auth/logout: the user hub sends GatewayLogout then the close message; the market hub only the close message', async () => {
  const t = await makeApp();
  h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  const user = await RawHubClient.open(`${h.baseUrl}/hubs/user?access_token=${h.token}`, { handshake: true });
  const market = await RawHubClient.open(`${h.baseUrl}/hubs/market?access_token=${h.token}`, { handshake: true });
  expect((await t.post('Auth/logout', {}, h.token)).body.success).toBe(true);
  await user.waitForClose();
  await market.waitForClose();
  expect(user.messagesSent).toEqual([
    { type: 1, target: 'GatewayLogout', arguments: ['logged out'] },
    { type: 7, error: 'Unauthorized: logged out' },
  ]);
  expect(market.messagesSent).toEqual([{ type: 7, error: 'Unauthorized: logged out' }]);
});

it('a key rotation: every connection of the user gets GatewayLogout on the user hub', async () => {
  const t = await makeApp();
  h = await startHubServer({ hubs: gatewayHubs(t.s), t });
  const a = await RawHubClient.open(`${h.baseUrl}/hubs/user?access_token=${h.token}`, { handshake: true });
  const b = await RawHubClient.open(`${h.baseUrl}/hubs/user?access_token=${await t.login()}`, { handshake: true });
  expect((await t.s.users.rotateKey(t.email)).ok).toBe(true);
  for (const c of [a, b]) {
    await c.waitForClose();
    expect(c.messagesSent.map((m) => m.target ?? m.error)).toEqual(['GatewayLogout', expect.stringMatching(/^Unauthorized: /)]);
  }
});
