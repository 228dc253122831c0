// Request plumbing shared by the families: lenient body parsing, bearer authentication, client
// address. Handlers receive a small `Call` (never Elysia's Context) and return a Response.

import type { Elysia } from 'elysia';
import type { Principal } from '../../service/auth.ts';
import type { Services } from '../../service/services.ts';
import { cookiePrincipal, sessionCookieValue } from './cookie.ts';
import { malformedJson, unauthorized } from './envelope.ts';

/** Marks a body that was not valid JSON; the route answers 400 before the handler runs. */
const BAD_JSON: Record<string, unknown> = Object.freeze({ __replaydeskBadJson: true });

export type Body = Record<string, unknown>;

export interface Call {
  body: Body;
  request: Request;
  clientAddress: string;
}

export interface AuthedCall extends Call {
  principal: Principal;
}

type Handler<C> = (call: C) => Response | Promise<Response>;

// Set by the listening server (src/main.ts) for each request it accepts.
export const clientAddresses = new WeakMap<Request, string>();

export function clientAddress(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = request.headers.get('x-forwarded-for');
    if (fwd) return fwd.split(',')[0].trim();
  }
  return clientAddresses.get(request) ?? 'local';
}

/**
 * Parses every request body ourselves: an empty body (with or without Content-Type) is `{}`, any
 * Content-Type is read as JSON (bots send text/plain or none), and a body that is not a JSON object
 * becomes `{}` so that field checks report the missing fields.
 */
export function installBodyParser(app: Elysia<any, any, any, any, any, any, any>): void {
  app.onParse(({ request }) => readLenientBody(request));
}

/** A request body as our families read it: empty → `{}`, non-object JSON → `{}`, not JSON → BAD_JSON. */
export async function readLenientBody(request: Request): Promise<Body> {
  const text = await request.text();
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return BAD_JSON;
  }
}

/** True for the marker of a body that was not valid JSON. */
export function isBadJson(body: Body): boolean {
  return body === BAD_JSON;
}

function bearer(request: Request): string | null {
  const h = request.headers.get('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
}

export function bearerToken(request: Request): string | null {
  return bearer(request);
}

export type App = Elysia<any, any, any, any, any, any, any>;

export function publicPost(app: App, s: Services, path: string, handler: Handler<Call>): void {
  app.post(path, ({ body, request }: { [k: string]: any }) => {
    const b = (body ?? {}) as Body;
    if (b === BAD_JSON) return malformedJson();
    return handler({ body: b, request, clientAddress: clientAddress(request, s.config.trustProxy) });
  });
}

/**
 * A bearer-protected route: no valid token → 401. (The Pro plan is checked at login.) The web console
 * holds no bearer token: a request without an Authorization header may instead carry the web
 * session cookie, with the cookie routes' CSRF guard and a per-request Pro check (`allowCookie`
 * false for the token's own endpoints, Auth/logout).
 */
export function authedPost(app: App, s: Services, path: string, handler: Handler<AuthedCall>, allowCookie = true): void {
  app.post(path, async ({ body, request, cookie }: { [k: string]: any }) => {
    const token = bearer(request);
    let principal: Principal | null;
    if (token === null && allowCookie && sessionCookieValue(cookie) !== null) {
      const r = await cookiePrincipal(request, cookie, s);
      if (r instanceof Response) return r;
      principal = r;
    } else {
      principal = await s.auth.authenticate(token);
    }
    if (!principal) return unauthorized();
    const b = (body ?? {}) as Body;
    if (b === BAD_JSON) return malformedJson();
    return handler({ body: b, request, principal, clientAddress: clientAddress(request, s.config.trustProxy) });
  });
}
