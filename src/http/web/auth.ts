// The web application's login: POST login (sets the session cookie), POST logout (revokes it and
// clears the cookie), GET me (the signed-in user), POST password (changes it, signing out the
// user's other sessions). Free users may sign in; Pro is checked per
// endpoint by the families that need it. Endpoints declared in schemas.ts.

import type { Elysia } from 'elysia';
import type { UserRow } from '../../store/users.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { cameOverHttps, clearSessionCookie, sessionCookieValue, setSessionCookie } from '../shared/cookie.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

export function presentWebUser(u: UserRow) {
  return { email: u.email, plan: u.plan };
}

export function registerWebAuth<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.login, async ({ body, request, cookie, clientAddress }) => {
    const r = await s.webAuth.login(body.email, body.password, clientAddress);
    if (!r.ok) return mapError(codes.login, r.error);
    setSessionCookie(cookie, r.value.cookieValue, r.value.maxAgeS, cameOverHttps(request, s.config.trustProxy));
    return ep.login.ok({ user: presentWebUser(r.value.user) });
  });

  // Always succeeds (a missing or dead session is already logged out) and always clears the cookie.
  route(app, s, ep.logout, async ({ request, cookie }) => {
    const session = await s.webAuth.authenticate(sessionCookieValue(cookie));
    if (session) await s.webAuth.logout(session);
    clearSessionCookie(cookie, cameOverHttps(request, s.config.trustProxy));
    return ep.logout.ok({});
  });

  route(app, s, ep.me, ({ user }) => ep.me.ok({ user: presentWebUser(user) }));

  route(app, s, ep.changePassword, async ({ body, user, cookie, clientAddress }) => {
    const session = await s.webAuth.authenticate(sessionCookieValue(cookie));
    // The route authenticated this cookie a moment ago; a logout racing this request lands here.
    if (!session || session.user.id !== user.id) return mapError(codes.changePassword, { kind: 'wrong_password' });
    const r = await s.webAuth.changePassword(session, body.currentPassword, body.newPassword, clientAddress);
    return r.ok ? ep.changePassword.ok({}) : mapError(codes.changePassword, r.error);
  });
}
