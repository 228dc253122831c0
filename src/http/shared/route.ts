// Request plumbing shared by the families' routes (src/http/shared/endpoint.ts): the lenient body
// reader, the bearer token, the client address, each over the request's context (request-context.ts).

import type { Body, RequestContext } from './request-context.ts';

export type { Body };

/** Marks a body that was not valid JSON; the route answers 400 before the handler runs. */
const BAD_JSON: Body = Object.freeze({ __replaydeskBadJson: true });

/**
 * The client's address: behind a trusted proxy its `X-Forwarded-For`, else the peer the listening
 * server accepted (or a trusted hop signed); `local` for a request handed to the app directly.
 */
export function clientAddress(ctx: RequestContext, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = ctx.request.headers.get('x-forwarded-for');
    if (fwd) return fwd.split(',')[0].trim();
  }
  return ctx.address ?? 'local';
}

/** The body as sent, read once (empty for a request without one). */
export async function bodyText(ctx: RequestContext): Promise<string> {
  ctx.bodyText ??= await ctx.request.text();
  return ctx.bodyText;
}

/**
 * A request body as our families read it (every route reads its own; Elysia's parser is off): an
 * empty body is `{}`, any Content-Type is read as JSON (bots send text/plain or none), JSON that is
 * not an object is `{}` so the endpoint's field rows report the missing fields, and text that is not
 * JSON is the BAD_JSON marker (HTTP 400). Read once: the edge may have read it to find the session.
 */
export async function readLenientBody(ctx: RequestContext): Promise<Body> {
  ctx.body ??= lenientJson(await bodyText(ctx));
  return ctx.body;
}

function lenientJson(text: string): Body {
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

export function bearerToken(request: Request): string | null {
  const h = request.headers.get('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
}
