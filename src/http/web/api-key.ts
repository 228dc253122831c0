// The web application's API-key settings (spec, Authentication 1: "generated in the web
// application's settings (a Pro-plan feature) … generating a new key replaces and revokes the old
// one immediately; the key is shown once"). GET tells whether a key exists; POST makes a new one,
// revoking the old key and every token it issued (the admin CLI's rule), and is the only answer
// that ever carries a key.

import type { Services } from '../../service/services.ts';
import { cookieRoute, forbidden, SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import { internalError, success } from '../shared/envelope.ts';
import type { App } from '../shared/route.ts';

export function registerApiKey(app: App, s: Services): void {
  cookieRoute(app, s, 'GET', '/api-key', ({ user }) => success({ hasApiKey: user.hasApiKey, userName: user.email }), { pro: false });

  cookieRoute(
    app,
    s,
    'POST',
    '/api-key',
    ({ user }) => {
      if (user.plan !== 'pro') return forbidden(SIM_PRO_REQUIRED);
      const r = s.users.rotateKey(user.email);
      // The user was resolved from a live session a moment ago; only a concurrent delete could miss.
      if (!r.ok) return internalError();
      return success({ userName: user.email, apiKey: r.value.apiKey });
    },
    { pro: false },
  );
}
