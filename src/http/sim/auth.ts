// Auth/loginKey, Auth/validate, Auth/logout and Status/ping of the current family.

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { success } from '../shared/envelope.ts';
import { authedPost, bearerToken, publicPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';

export function registerAuth(app: App, s: Services): void {
  publicPost(app, s, '/Auth/loginKey', ({ body, clientAddress }) => {
    const r = s.auth.login(body.userName, body.apiKey, clientAddress);
    return r.ok ? success({ token: r.value.token }) : mapError(codes.loginKey, r.error);
  });

  // Validate is public at the routing level: its invalid-token answer is a spec'd envelope row.
  publicPost(app, s, '/Auth/validate', ({ request }) => {
    const r = s.auth.validate(bearerToken(request));
    return r.ok ? success({ newToken: r.value.newToken }) : mapError(codes.validate, r.error, { newToken: null });
  });

  authedPost(
    app,
    s,
    '/Auth/logout',
    ({ principal }) => {
      s.auth.logout(principal);
      return success();
    },
    false,
  );

  app.get('/Status/ping', () => new Response('pong', { headers: { 'content-type': 'text/plain; charset=utf-8' } }));
}
