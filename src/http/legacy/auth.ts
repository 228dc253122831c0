// The earlier family: Auth/loginKey, Auth/validate, Auth/logout; Status/ping (a JSON envelope).
// Tokens are the same as the current family's: one AuthService issues them for both.

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, bearerToken, publicPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';

/** Auth/validate hands out a fresh token once the sent one has less than this left (spec: "near expiry"). */
export const TOKEN_RENEW_WITHIN_MS = 3_600_000;

export function registerAuth(app: App, s: Services): void {
  publicPost(app, s, '/Auth/loginKey', async ({ body, clientAddress }) => {
    const r = await s.auth.login(body.userName, body.apiKey, clientAddress);
    return r.ok ? success({ token: r.value.token }) : mapError(codes.loginKey, r.error);
  });

  // Public at the routing level: its invalid-token answer is an envelope row, as in the current family.
  publicPost(app, s, '/Auth/validate', async ({ request }) => {
    const r = await s.auth.refresh(bearerToken(request), TOKEN_RENEW_WITHIN_MS);
    return r.ok ? success({ token: r.value.token }) : mapError(codes.validate, r.error, { token: null });
  });

  authedPost(app, s, '/Auth/logout', ({ principal }) => {
    s.auth.logout(principal);
    return success();
  });

  app.get('/Status/ping', () => success({ message: 'pong' }));
}
