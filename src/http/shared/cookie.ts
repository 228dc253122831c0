// Cookie-session plumbing for the web-facing families (`/api/auth`, `/api/playground`, and the
// current family's cookie path): the session cookie, the CSRF guard, and the 403 answers. Cookie
// endpoints are declared with defineEndpoint and served by `route` (src/http/shared/endpoint.ts),
// which checks, in order (src/http/shared/auth-table.ts): CSRF (state-changing methods only) → 403;
// no valid session cookie → 401; a `cookie-pro` endpoint and the user not on Pro → 403; body not
// JSON → 400; then the handler. A stream of events: `eventStream` (src/http/shared/sse.ts).

import type { Services } from '../../service/services.ts';
import type { Principal } from '../../service/auth.ts';
import { json } from './envelope.ts';

/** The web login's session cookie (its value is a JWT; docs/decisions.md). */
export const SESSION_COOKIE = 'rd_session';

/** The HTTP 403 answers of cookie routes. */
export function forbidden(message: string): Response {
  return json(403, { success: false, errorCode: 403, errorMessage: message });
}

export const CROSS_SITE_REFUSED = 'Cross-site request refused';
export const PRO_REQUIRED = 'Pro subscription required for the Playground';
export const SIM_PRO_REQUIRED = 'Pro subscription required for the Simulator API';

const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?[\w-]+"?\s*)?$/i;

function firstHeaderValue(request: Request, name: string): string | null {
  const v = request.headers.get(name);
  return v ? v.split(',')[0].trim() : null;
}

/** The host the client addressed: `X-Forwarded-Host` behind a trusted proxy, else `Host`. */
function requestHost(request: Request, trustProxy: boolean): string {
  const forwarded = trustProxy ? firstHeaderValue(request, 'x-forwarded-host') : null;
  return (forwarded ?? request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
}

/** True when the request reached us over https (or, behind a trusted proxy, reached the proxy so). */
export function cameOverHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === 'https:') return true;
  return trustProxy && firstHeaderValue(request, 'x-forwarded-proto')?.toLowerCase() === 'https';
}

/**
 * The CSRF guard of state-changing cookie requests: refused when an `Origin` header names another
 * host than the request's, when `Sec-Fetch-Site` is `cross-site`, or when the request is not
 * `application/json`: every POST, PUT and PATCH, and a DELETE that carries a body (a cross-site
 * form cannot send that type without a CORS preflight, which we never grant; browsers preflight
 * PUT, PATCH and DELETE anyway, so the rule is one for every unsafe method rather than a bet on
 * that). A DELETE without a body has no type to check. Requests without `Origin` (curl, bots) pass
 * when typed. Returns the 403, or null to go on.
 */
export function csrfRefusal(request: Request, trustProxy: boolean): Response | null {
  const method = request.method.toUpperCase();
  if (!STATE_CHANGING.has(method)) return null;
  const origin = request.headers.get('origin');
  if (origin !== null) {
    let originHost: string | null = null;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      // `Origin: null` (sandboxed frames, some redirects) or garbage: not our page.
    }
    if (originHost === null || originHost === '' || originHost !== requestHost(request, trustProxy)) return forbidden(CROSS_SITE_REFUSED);
  }
  if ((request.headers.get('sec-fetch-site') ?? '').toLowerCase() === 'cross-site') return forbidden(CROSS_SITE_REFUSED);
  const typed = JSON_CONTENT_TYPE.test((request.headers.get('content-type') ?? '').trim());
  if (!typed && (method !== 'DELETE' || carriesBody(request))) return forbidden(CROSS_SITE_REFUSED);
  return null;
}

/** Whether a request has a body: a Content-Length above 0, a Transfer-Encoding, or (neither said) a body stream. */
function carriesBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length.trim() !== '0';
  return request.headers.has('transfer-encoding') || request.body !== null;
}

/**
 * The current family's cookie path (the console calls it like a bot, without a token): the CSRF
 * guard, the session, and the Pro plan checked per request. A Principal without a token (empty
 * `jtiHash`, expiry of the session), or the refusal to answer.
 */
export async function cookiePrincipal(request: Request, cookie: CookieJar, s: Services): Promise<Principal | Response | null> {
  const refused = csrfRefusal(request, s.config.trustProxy);
  if (refused) return refused;
  const session = await s.webAuth.authenticate(sessionCookieValue(cookie));
  if (!session) return null;
  if (session.user.plan !== 'pro') return forbidden(SIM_PRO_REQUIRED);
  // Not a token: nothing to revoke or renew (Auth/logout and Auth/validate take bearer tokens only).
  return { user: session.user, jtiHash: '', expiresMs: 0, console: true };
}

type CookieJar = Record<string, { value: unknown; set(options: Record<string, unknown>): unknown }>;

/** The session cookie's value as sent, or null. */
export function sessionCookieValue(cookie: CookieJar | undefined): string | null {
  const v = cookie?.[SESSION_COOKIE]?.value;
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, Path=/, Max-Age, Secure over https only. */
export function setSessionCookie(cookie: CookieJar, value: string, maxAgeS: number, secure: boolean): void {
  cookie[SESSION_COOKIE].set({ value, httpOnly: true, sameSite: 'lax', path: '/', maxAge: maxAgeS, secure });
}

/** Tells the browser to drop the session cookie (same attributes, Max-Age 0, expired). */
export function clearSessionCookie(cookie: CookieJar, secure: boolean): void {
  cookie[SESSION_COOKIE].set({ value: '', httpOnly: true, sameSite: 'lax', path: '/', maxAge: 0, expires: new Date(0), secure });
}
