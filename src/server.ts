// The listening server's fetch handler: bounds the request's headers and body, starts the request's
// context with the peer's address (the rate limiters' client address; src/http/shared/request-context.ts),
// and logs one line per request (method, path without query, status, milliseconds).
//
// Bun.serve answers an over-limit body (maxRequestBodySize) or header block (--max-http-header-size)
// itself, with an empty body and before any of our code runs. So its own limits are set above ours
// (src/main.ts; the start script raises the header limit) and the limits are enforced here, where the
// answer can carry the envelope like every other failure: HTTP 413 or 431 `{success: false,
// errorCode: 413 | 431, errorMessage}`. A body with a Content-Length over the limit is refused
// unread; a chunked one is read up to the limit and refused at the first byte over it.

import type { Server } from 'bun';
import type { buildApp } from './app.ts';
import type { Logger } from './log.ts';
import { limits } from './config.ts';
import { json } from './http/shared/envelope.ts';
import { enterRequest } from './http/shared/request-context.ts';

export const BODY_TOO_LARGE = `Request body exceeds ${limits.requestBodyBytesMax} bytes`;
export const HEADERS_TOO_LARGE = `Request headers exceed ${limits.requestHeaderBytesMax} bytes`;

export function createFetch(app: ReturnType<typeof buildApp>, log: Logger, logRequests: boolean) {
  return async function fetch(request: Request, server?: Server<unknown>): Promise<Response> {
    const started = performance.now();
    const bounded = await withinLimits(request);
    const response = bounded instanceof Response ? bounded : await answer(app, bounded, request, server);
    if (logRequests) {
      const path = new URL(request.url).pathname;
      const ms = Math.round((performance.now() - started) * 10) / 10;
      log.info('request', { method: request.method, path, status: response.status, ms });
    }
    return response;
  };
}

function answer(app: ReturnType<typeof buildApp>, request: Request, original: Request, server?: Server<unknown>): Promise<Response> {
  enterRequest(request, server?.requestIP(original)?.address ?? null);
  return app.handle(request);
}

/** The request as the app may read it, or the 413/431 answer. */
async function withinLimits(request: Request): Promise<Request | Response> {
  if (headerBytes(request.headers) > limits.requestHeaderBytesMax) return tooLarge(431, HEADERS_TOO_LARGE);
  const declared = request.headers.get('content-length');
  if (declared !== null) return Number(declared) > limits.requestBodyBytesMax ? tooLarge(413, BODY_TOO_LARGE) : request;
  if (request.body === null) return request;
  // Chunked: read it here, bounded, and hand the app a request over the bytes read.
  const bytes = await readBounded(request.body, limits.requestBodyBytesMax);
  if (bytes === null) return tooLarge(413, BODY_TOO_LARGE);
  return new Request(request.url, { method: request.method, headers: request.headers, body: bytes, signal: request.signal });
}

/** Bytes of the header block as sent, near enough: each `name: value\r\n`. */
function headerBytes(headers: Headers): number {
  let n = 0;
  headers.forEach((value, name) => {
    n += name.length + value.length + 4;
  });
  return n;
}

/** The whole body, or null as soon as it passes `max` bytes (the rest is never read). */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function tooLarge(status: 413 | 431, message: string): Response {
  // The connection may hold unread bytes of the request: close it after the answer.
  return json(status, { success: false, errorCode: status, errorMessage: message }, { connection: 'close' });
}
