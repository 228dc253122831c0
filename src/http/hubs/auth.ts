// Who may open a hub connection: a bot with its bearer token (the Simulator API's rule: a Pro user),
// or the web console with its session cookie, only from a page of this server (the upgrade's Origin
// must name this host: a cookie would otherwise let any site open a connection as the user).

import type { Principal } from '../../service/auth.ts';
import type { Services } from '../../service/services.ts';
import { SESSION_COOKIE } from '../shared/cookie.ts';
import { profileOfPath } from '../shared/profile.ts';

export interface HubAuthentication {
  authenticate(token: string | null, request: Request): Promise<Principal | null>;
  revalidate(principal: Principal): boolean | Promise<boolean>;
}

export function hubAuthentication(s: Services): HubAuthentication {
  // Principals of console connections, with the cookie they came with (checked again periodically).
  const cookieOf = new WeakMap<Principal, string>();
  return {
    async authenticate(token, request) {
      if (token !== null) {
        const p = await s.auth.authenticate(token);
        if (!p || p.user.plan !== 'pro') return null;
        // `/live/hubs/user`: the connection answers under the profile its URL names.
        const named = profileOfPath(new URL(request.url).pathname);
        return named ? { ...p, profile: named } : p;
      }
      const cookie = sessionCookie(request);
      if (cookie === null || !sameOrigin(request)) return null;
      const session = await s.webAuth.authenticate(cookie);
      if (!session || session.user.plan !== 'pro') return null;
      const p: Principal = { user: session.user, jtiHash: `web:${session.jtiHash}`, expiresMs: Number.MAX_SAFE_INTEGER, console: true };
      cookieOf.set(p, cookie);
      return p;
    },
    async revalidate(p) {
      const cookie = cookieOf.get(p);
      if (cookie === undefined) return await s.auth.stillValid(p);
      const session = await s.webAuth.authenticate(cookie);
      return session !== null && session.user.plan === 'pro';
    },
  };
}

function sessionCookie(request: Request): string | null {
  const header = request.headers.get('cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return v === '' ? null : decodeURIComponent(v);
    }
  }
  return null;
}

/** The browser's Origin names the host the request was sent to. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  const host = request.headers.get('host');
  if (!origin || !host) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
