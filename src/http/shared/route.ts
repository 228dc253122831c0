// Request plumbing shared by the families' routes (src/http/shared/endpoint.ts): the lenient body
// reader, the bearer token, the client address.

/** Each read body as sent, for a request passed on to another node (src/http/shared/forward.ts). */
export const bodyTexts = new WeakMap<Request, string>();

/** Marks a body that was not valid JSON; the route answers 400 before the handler runs. */
const BAD_JSON: Record<string, unknown> = Object.freeze({ __replaydeskBadJson: true });

export type Body = Record<string, unknown>;

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
 * A request body as our families read it (every route reads its own; Elysia's parser is off): an
 * empty body is `{}`, any Content-Type is read as JSON (bots send text/plain or none), JSON that is
 * not an object is `{}` so the endpoint's field rows report the missing fields, and text that is not
 * JSON is the BAD_JSON marker (HTTP 400).
 */
export async function readLenientBody(request: Request): Promise<Body> {
  const text = await request.text();
  bodyTexts.set(request, text);
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
