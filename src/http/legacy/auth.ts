// The earlier family: Auth/loginKey, Auth/validate, Auth/logout; Status/ping (a JSON envelope).
// Tokens are the same as the current family's: one AuthService issues them for both.

import type { Elysia } from 'elysia';
import { limits } from '../../config.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

/** Auth/validate hands out a fresh token once the sent one has less than this left (spec: "near expiry"). */
export const TOKEN_RENEW_WITHIN_MS = limits.legacyTokenRenewWithinMs;

export function registerAuth<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.loginKey, async ({ body, clientAddress }) => {
    const r = await s.auth.login(body.userName, body.apiKey, clientAddress);
    return r.ok ? ep.loginKey.ok({ token: r.value.token }) : mapError(codes.loginKey, r.error);
  });

  // Validate reads the token itself: its invalid-token answer is an envelope row, as in the current family.
  route(app, s, ep.validate, async ({ token }) => {
    const r = await s.auth.refresh(token, TOKEN_RENEW_WITHIN_MS);
    return r.ok ? ep.validate.ok({ token: r.value.token }) : mapError(codes.validate, r.error, { token: null });
  });

  // Bearer tokens only: the console's cookie session ends through the web logout.
  route(app, s, ep.logout, async ({ principal }) => {
    await s.auth.logout(principal);
    return ep.logout.ok({});
  });

  route(app, s, ep.ping, () => ep.ping.ok({ message: 'pong' }));
}
