// Requests for a live session another node holds (a cluster): passed to that node over HTTP and its
// answer passed back unchanged. A forwarded request carries a signature of this cluster (an HMAC
// under a key derived from the JWT secret every node reads from the shared store), so the owner
// takes the client's address and host from it, and never forwards it again: one hop at most.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { limits } from '../../config.ts';
import type { Services } from '../../service/services.ts';
import { busy } from './envelope.ts';
import { clientAddress } from './route.ts';

const SIGNATURE = 'x-replaydesk-forward';
const CLIENT_ADDRESS = 'x-replaydesk-client-address';
const ORIGINAL_HOST = 'x-replaydesk-original-host';
/** Hop-by-hop and framing headers: never copied across a hop. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

/** The answer while a session moves between nodes (its lease changed hands mid-request). */
export const SESSION_MOVING = 'The session is moving to another server; retry';

function sign(s: Services, method: string, path: string, atMs: number, address: string, host: string): string {
  return createHmac('sha256', s.clusterKey).update(`${method}\n${path}\n${atMs}\n${address}\n${host}`).digest('hex');
}

/**
 * The request as its client sent it when another node of this cluster forwarded it (its signature
 * checks out): the client's host and address restored. Null for a request from a client, or one
 * whose signature fails (then it is served as an ordinary request, and never trusted).
 */
export function forwardedRequest(s: Services, request: Request): { request: Request; address: string } | null {
  const header = request.headers.get(SIGNATURE);
  if (!header) return null;
  const [at, mac] = header.split('.');
  const atMs = Number(at);
  const address = request.headers.get(CLIENT_ADDRESS) ?? '';
  const host = request.headers.get(ORIGINAL_HOST) ?? '';
  const url = new URL(request.url);
  if (!Number.isFinite(atMs) || Math.abs(Date.now() - atMs) > limits.forwardSkewMs || !mac) return null;
  const expected = Buffer.from(sign(s, request.method, url.pathname + url.search, atMs, address, host), 'hex');
  const given = Buffer.from(mac, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  url.host = host;
  return { request: new Request(url.toString(), request as RequestInit), address };
}

/** Sends the request to `nodeUrl` and answers the owner's response, status, headers and body unchanged. */
export async function forwardTo(s: Services, nodeUrl: string, request: Request, body: string | null): Promise<Response> {
  const url = new URL(request.url);
  const target = new URL(url.pathname + url.search, nodeUrl);
  const headers = new Headers();
  request.headers.forEach((v, k) => {
    if (!HOP_HEADERS.has(k) && !k.startsWith('x-replaydesk-')) headers.set(k, v);
  });
  const atMs = Date.now();
  const address = clientAddress(request, s.config.trustProxy);
  headers.set(CLIENT_ADDRESS, address);
  headers.set(ORIGINAL_HOST, url.host);
  headers.set(SIGNATURE, `${atMs}.${sign(s, request.method, url.pathname + url.search, atMs, address, url.host)}`);
  let res: Response;
  try {
    res = await fetch(target, { method: request.method, headers, body: body ?? undefined, redirect: 'manual' });
  } catch {
    // The owner is gone (its lease has not expired yet): the client retries; the lease moves soon.
    return busy(1, SESSION_MOVING);
  }
  const out = new Headers();
  res.headers.forEach((v, k) => {
    if (!HOP_HEADERS.has(k) && k !== 'content-encoding') out.set(k, v);
  });
  return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
}
