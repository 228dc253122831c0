// The web application's API-key settings (spec, Authentication 1: "generated in the web
// application's settings (a Pro-plan feature) … generating a new key replaces and revokes the old
// one immediately; the key is shown once"). GET tells whether a key exists; POST makes a new one,
// revoking the old key and every token it issued (the admin CLI's rule), and is the only answer
// that ever carries a key. Endpoints declared in schemas.ts.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { forbidden, SIM_PRO_REQUIRED } from '../shared/cookie.ts';
import { route } from '../shared/endpoint.ts';
import { internalError } from '../shared/envelope.ts';
import type { UserRow } from '../../store/users.ts';
import * as ep from './schemas.ts';

export function registerApiKey<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.apiKeyStatus, ({ user }) => ep.apiKeyStatus.ok({ hasApiKey: user.hasApiKey, userName: user.email }));

  route(app, s, ep.apiKeyCreate, async ({ user, body }) => {
    if (user.plan !== 'pro') return forbidden(SIM_PRO_REQUIRED);
    const r = await s.users.rotateKey(user.email, body.profile);
    // The user was resolved from a live session a moment ago; only a concurrent delete could miss.
    if (!r.ok) return internalError();
    return ep.apiKeyCreate.ok({ userName: user.email, apiKey: r.value.apiKey });
  });

  const profileOf = (u: UserRow) => ({ profile: u.apiKeyProfile ?? null, serverDefault: s.config.apiProfile, effective: u.apiKeyProfile ?? s.config.apiProfile });

  route(app, s, ep.apiKeyProfile, ({ user }) => ep.apiKeyProfile.ok(profileOf(user)));

  route(app, s, ep.apiKeyProfileSet, async ({ user, body }) => {
    const r = await s.users.setKeyProfile(user.email, body.profile);
    if (!r.ok) return internalError();
    return ep.apiKeyProfileSet.ok(profileOf(r.value));
  });
}
