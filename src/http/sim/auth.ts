// Auth/loginKey, Auth/validate, Auth/logout and Status/ping of the current family.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

export function registerAuth<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.loginKey, async ({ body, clientAddress }) => {
    const r = await s.auth.login(body.userName, body.apiKey, clientAddress);
    return r.ok ? ep.loginKey.ok({ token: r.value.token }) : mapError(codes.loginKey, r.error);
  });

  // Validate reads the token itself: its invalid-token answer is a spec'd envelope row, not a 401.
  route(app, s, ep.validate, async ({ token }) => {
    const r = await s.auth.validate(token);
    return r.ok ? ep.validate.ok({ newToken: r.value.newToken }) : mapError(codes.validate, r.error, { newToken: null });
  });

  // Bearer tokens only: the console's cookie session ends through the web logout.
  route(app, s, ep.logout, async ({ principal }) => {
    await s.auth.logout(principal);
    return ep.logout.ok({});
  });

  route(app, s, ep.ping, () => new Response('pong', { headers: { 'content-type': 'text/plain; charset=utf-8' } }));
}
