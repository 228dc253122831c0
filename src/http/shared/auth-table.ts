// Authentication as one table: each kind of an endpoint's `auth` (endpoint.ts) with its guard and
// authenticator, and what the API reference says of it (the credentials that admit a request, the
// answers given before a handler runs). The route admits a request through its kind's entry and
// hands the handler who it acts as.

import { parseCookie } from 'elysia/cookies';
import type { Principal } from '../../service/auth.ts';
import type { Services } from '../../service/services.ts';
import type { WebPrincipal } from '../../service/web-auth.ts';
import { cookiePrincipal, csrfRefusal, forbidden, PRO_REQUIRED, SIM_PRO_REQUIRED, sessionCookieValue } from './cookie.ts';
import { unauthorized } from './envelope.ts';
import { bearerToken } from './route.ts';

/**
 * - `none`: public.
 * - `bearer`: a valid bearer token or HTTP 401, its user on the Pro plan (read per request) or HTTP
 *   403 (SIM_PRO_REQUIRED). A request without an Authorization header may carry
 *   the web session cookie instead (the console calls the simulator like a bot): CSRF guard (403),
 *   session (401), Pro plan checked per request (403).
 * - `bearer-only`: a valid bearer token or HTTP 401, no cookie (the token's own endpoints: Auth/logout).
 * - `bearer-row`: the handler reads the bearer token itself (`call.token`) and answers a bad one with
 *   its own row (Auth/validate).
 * - `web`: public, for the web application: state-changing methods pass the CSRF guard (else HTTP
 *   403) and the handler gets the cookie jar (the web login sets the session cookie).
 * - `cookie`: as `web`, and a valid session cookie or HTTP 401.
 * - `cookie-pro`: as `cookie`, and a user not on the Pro plan gets HTTP 403.
 */
export type Auth = 'none' | 'bearer' | 'bearer-only' | 'bearer-row' | 'web' | 'cookie' | 'cookie-pro';

/** A cookie jar as Elysia hands it to routes. */
export type CookieJar = Record<string, { value: unknown; set(options: Record<string, unknown>): unknown }>;

/** Who an admitted request acts as: what its handler's call carries (endpoint.ts `CallOf`). */
export type Admitted =
  | { readonly as: 'anyone' }
  | { readonly as: 'principal'; readonly principal: Principal }
  | { readonly as: 'token'; readonly token: string | null }
  | { readonly as: 'session'; readonly session: WebPrincipal };

/** How the API reference names a credential (http/openapi/components.ts `SECURITY_SCHEMES`). */
export type Credential = 'bearerAuth' | 'sessionCookie';

export interface AuthRule {
  /** The credentials that admit a request, any one of them (the reference's security requirements). */
  readonly credentials: readonly Credential[];
  /** The route reads the cookie jar (Elysia then hands it the jar, the path parameters and the query). */
  readonly cookies: boolean;
  /** A state-changing request may be refused as cross-site (HTTP 403; `bearer`: on its cookie path). */
  readonly crossSite: boolean;
  /** The other answers the kind gives before the handler runs, in the order it checks: [status, message]. */
  readonly refusals: readonly (readonly [status: number, message: string])[];
  /** Guards and authenticates a request: who it acts as, or the refusal. */
  admit(s: Services, request: Request, cookie: CookieJar | undefined): Promise<Admitted | Response>;
}

const UNAUTHORIZED = [401, 'Unauthorized'] as const;
const ANYONE: Admitted = Object.freeze({ as: 'anyone' });

const BEARER: readonly Credential[] = ['bearerAuth'];
const COOKIE: readonly Credential[] = ['sessionCookie'];

export const AUTH: Readonly<Record<Auth, AuthRule>> = Object.freeze({
  none: { credentials: [], cookies: false, crossSite: false, refusals: [], admit: async () => ANYONE },
  // Either credential: a request without an Authorization header may carry the web session cookie,
  // read by `bearerOrConsole` itself (Elysia's jar on every bot call cost about 15 µs of CPU).
  bearer: { credentials: [...BEARER, ...COOKIE], cookies: false, crossSite: true, refusals: [UNAUTHORIZED, [403, SIM_PRO_REQUIRED]], admit: bearerOrConsole },
  'bearer-only': { credentials: BEARER, cookies: false, crossSite: false, refusals: [UNAUTHORIZED], admit: bearerOnly },
  'bearer-row': { credentials: BEARER, cookies: false, crossSite: false, refusals: [], admit: async (_s, request) => ({ as: 'token', token: bearerToken(request) }) },
  web: { credentials: [], cookies: true, crossSite: true, refusals: [], admit: async (s, request) => csrfRefusal(request, s.config.trustProxy) ?? ANYONE },
  cookie: { credentials: COOKIE, cookies: true, crossSite: true, refusals: [UNAUTHORIZED], admit: (s, request, cookie) => webSession(s, request, cookie, false) },
  'cookie-pro': { credentials: COOKIE, cookies: true, crossSite: true, refusals: [UNAUTHORIZED, [403, PRO_REQUIRED]], admit: (s, request, cookie) => webSession(s, request, cookie, true) },
});

/**
 * A bot's bearer token, its user's plan checked on every call (a token outlives no downgrade); or,
 * without an Authorization header, the console's session cookie (cookie.ts `cookiePrincipal`).
 */
async function bearerOrConsole(s: Services, request: Request): Promise<Admitted | Response> {
  const token = bearerToken(request);
  const cookie = token === null ? await cookieJar(request) : undefined;
  if (token === null && sessionCookieValue(cookie) !== null) {
    const r = await cookiePrincipal(request, cookie as CookieJar, s);
    if (r instanceof Response) return r;
    return r ? { as: 'principal', principal: r } : unauthorized();
  }
  const r = await s.auth.authorize(token);
  if (!r.ok) return r.error.kind === 'pro_required' ? forbidden(SIM_PRO_REQUIRED) : unauthorized();
  return { as: 'principal', principal: r.value };
}

/** The request's cookies as Elysia's jar reads them (its own parser: the same values a route's jar holds), or none. */
async function cookieJar(request: Request): Promise<CookieJar | undefined> {
  const header = request.headers.get('cookie');
  return header ? ((await parseCookie({ headers: {} } as Parameters<typeof parseCookie>[0], header)) as unknown as CookieJar) : undefined;
}

async function bearerOnly(s: Services, request: Request): Promise<Admitted | Response> {
  const principal = await s.auth.authenticate(bearerToken(request));
  return principal ? { as: 'principal', principal } : unauthorized();
}

/** The CSRF guard, then the web login's session cookie, and for `pro` the Pro plan. */
async function webSession(s: Services, request: Request, cookie: CookieJar | undefined, pro: boolean): Promise<Admitted | Response> {
  const refused = csrfRefusal(request, s.config.trustProxy);
  if (refused) return refused;
  const session = await s.webAuth.authenticate(sessionCookieValue(cookie));
  if (!session) return unauthorized();
  if (pro && session.user.plan !== 'pro') return forbidden(PRO_REQUIRED);
  return { as: 'session', session };
}
