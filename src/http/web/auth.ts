// The web application's login: POST login (sets the session cookie), POST logout (revokes it and
// clears the cookie), GET me (the signed-in user). Free users may sign in; Pro is checked per
// endpoint by the families that need it.

import type { UserRow } from '../../store/users.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import {
  cameOverHttps,
  clearSessionCookie,
  cookieRoute,
  csrfRefusal,
  sessionCookieValue,
  setSessionCookie,
} from '../shared/cookie.ts';
import { malformedJson, success } from '../shared/envelope.ts';
import { clientAddress, type App, isBadJson, readLenientBody } from '../shared/route.ts';
import * as codes from './codes.ts';

export function presentWebUser(u: UserRow) {
  return { email: u.email, plan: u.plan };
}

export function registerWebAuth(app: App, s: Services): void {
  // Not cookie-authenticated, but guarded like one: a cross-site login would sign the victim in as
  // the attacker (login CSRF).
  app.route(
    'POST',
    '/login',
    async ({ request, cookie }: { [k: string]: any }) => {
      const refused = csrfRefusal(request, s.config.trustProxy);
      if (refused) return refused;
      const body = await readLenientBody(request);
      if (isBadJson(body)) return malformedJson();
      const r = await s.webAuth.login(body.email, body.password, clientAddress(request, s.config.trustProxy));
      if (!r.ok) return mapError(codes.login, r.error);
      setSessionCookie(cookie, r.value.cookieValue, r.value.maxAgeS, cameOverHttps(request, s.config.trustProxy));
      return success({ user: presentWebUser(r.value.user) });
    },
    { parse: 'none' },
  );

  // Always succeeds (a missing or dead session is already logged out) and always clears the cookie.
  app.route(
    'POST',
    '/logout',
    async ({ request, cookie }: { [k: string]: any }) => {
      const refused = csrfRefusal(request, s.config.trustProxy);
      if (refused) return refused;
      const session = await s.webAuth.authenticate(sessionCookieValue(cookie));
      if (session) s.webAuth.logout(session);
      clearSessionCookie(cookie, cameOverHttps(request, s.config.trustProxy));
      return success();
    },
    { parse: 'none' },
  );

  cookieRoute(app, s, 'GET', '/me', ({ user }) => success({ user: presentWebUser(user) }), { pro: false });
}
