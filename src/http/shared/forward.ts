// Requests for a live session another node holds (a cluster): the route asks who runs the session a
// request names before it authenticates or reads the request as its endpoint's (edge.ts), and passes
// the request as it came to that node over HTTP(S), its answer passed back unchanged; the owner
// authenticates it, once. A forwarded request carries a signature of this cluster (an HMAC under a
// key derived from the JWT secret every node reads from the shared store) over the method, path,
// time, client address and host, the account, the body's SHA-256 and the credential's: the owner
// takes the client's address and host from a request whose signature checks out within
// `forwardSkewMs` (each node's time is its injected clock, `Services.clock`), and never forwards it
// again (one hop at most). A captured signature is good for that one request only (the same body,
// account and credential: anything else changed and it is an ordinary, untrusted request), for a few
// seconds. A genuine hop that arrives later than that is refused unserved: it waited in a paused
// node's socket while its sender gave up and told the client to retry (served as an ordinary
// request, it went on to the session's new holder and the retried step happened twice).
//
// The hop is bounded, and what it answers without the owner's answer is true. It waits while the
// owner's lease is live (a slow answer from a live owner is still an answer). Once the lease lapses
// (a paused or dead owner renews nothing) this node takes it, so the owner can no longer commit the
// request, and compares the commits made under the lease with the count it read before sending: none
// made, the request was not carried out: 503 `Retry-After: 1` (the retry is served by the lease's new
// holder); one made (perhaps this one: a step committed just before the owner stopped), or
// `forwardTimeoutMs` passed with the owner still live, the request may have been carried out: 504,
// never "retry". Tokens cross the hop: the node network must be private, or NODE_URL https:// with
// the nodes' CA in NODE_CA_FILE.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { limits } from '../../config.ts';
import type { Services } from '../../service/services.ts';
import { busy, json } from './envelope.ts';
import type { RequestContext } from './request-context.ts';
import { bodyText, clientAddress } from './route.ts';

const SIGNATURE = 'x-replaydesk-forward';
const CLIENT_ADDRESS = 'x-replaydesk-client-address';
const ORIGINAL_HOST = 'x-replaydesk-original-host';
const ACCOUNT = 'x-replaydesk-forward-account';
/** Hop-by-hop and framing headers: never copied across a hop. */
const HOP_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

/** The answer while a session moves between nodes (its lease changed hands mid-request). */
export const SESSION_MOVING = 'The session is moving to another server; retry';

/** What a forwarding signature covers, besides the time: one request, not its method and path alone. */
interface Signed {
  method: string;
  path: string;
  address: string;
  host: string;
  accountId: string;
  body: string;
  /** The Authorization and Cookie headers: the token (or web session) the request acts with. */
  credential: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function sign(s: Services, x: Signed, atMs: number): string {
  const text = [x.method, x.path, atMs, x.address, x.host, x.accountId, sha256(x.body), sha256(x.credential)].join('\n');
  return createHmac('sha256', s.clusterKey).update(text).digest('hex');
}

const credentialOf = (headers: Headers) => `${headers.get('authorization') ?? ''}\n${headers.get('cookie') ?? ''}`;

/** How a request came: from a client, or over a hop from another node of this cluster. */
export interface Arrival {
  /** Forwarded by another node (its signature checks out, within `forwardSkewMs`): the client's host and address restored. */
  forwarded: boolean;
  /**
   * Forwarded by another node, but signed longer ago (or later) than `forwardSkewMs`: a hop that
   * waited unread in this node's socket (the node was paused) while its sender gave up on it and
   * answered its client. Carrying it out now, or passing it on to the session's new holder, would
   * do what that client was told to retry: it is refused, unserved.
   */
  late: boolean;
}

/**
 * How the request of `ctx` came. Forwarded by another node of this cluster (its signature checks out
 * on this node's clock): `forwarded`, and the context gets the client's host (the request is rebuilt
 * over it) and address; `late` when signed outside the window. Otherwise as it came (a request from a
 * client, or one whose signature fails: served as an ordinary request, and never trusted).
 */
export async function arrival(s: Services, ctx: RequestContext): Promise<Arrival> {
  const request = ctx.request;
  const header = request.headers.get(SIGNATURE);
  if (!header) return { forwarded: false, late: false };
  const [at, mac] = header.split('.');
  const atMs = Number(at);
  if (!Number.isFinite(atMs) || !mac) return { forwarded: false, late: false };
  const url = new URL(request.url);
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : await bodyText(ctx);
  const signed: Signed = {
    method: request.method,
    path: url.pathname + url.search,
    address: request.headers.get(CLIENT_ADDRESS) ?? '',
    host: request.headers.get(ORIGINAL_HOST) ?? '',
    accountId: request.headers.get(ACCOUNT) ?? '',
    body: body ?? '',
    credential: credentialOf(request.headers),
  };
  const expected = Buffer.from(sign(s, signed, atMs), 'hex');
  const given = Buffer.from(mac, 'hex');
  const genuine = given.length === expected.length && timingSafeEqual(given, expected);
  const late = genuine && Math.abs(s.clock.nowMs() - atMs) > limits.forwardSkewMs;
  if (!genuine || late) return { forwarded: false, late };
  // The URL's host setter keeps the old port when the new host names none.
  url.port = '';
  url.host = signed.host;
  // Its body is in the context (read for its hash): the request served is rebuilt over it.
  ctx.request = new Request(url.toString(), { method: request.method, headers: request.headers, body, signal: request.signal });
  ctx.address = signed.address;
  ctx.forwarded = true;
  return { forwarded: true, late: false };
}

/**
 * The answer when the owner may have carried the request out but its answer never came: HTTP 504,
 * without Retry-After, since repeating a step or an order that happened would do it twice.
 */
export const SESSION_UNANSWERED = 'The server holding the session did not answer; the request may have been carried out: check before repeating it';

/** Where a hop goes: the node holding `accountId`'s lease, and the lease's commit count read with it (null: unknown). */
export interface HopTarget {
  readonly nodeUrl: string;
  readonly accountId: number;
  readonly commits: number | null;
}

/**
 * Sends the request of `ctx`, as it came, to the node holding its session and answers the owner's
 * response, status, headers and body unchanged. Without an answer: 503 moving (retry) only when the
 * owner surely did not carry it out (it could not be reached, or it was fenced out with no commit
 * made under the lease since `to.commits`, the count read before sending); otherwise 504 unanswered.
 */
export async function forwardTo(s: Services, ctx: RequestContext, to: HopTarget): Promise<Response> {
  const request = ctx.request;
  const url = new URL(request.url);
  const target = new URL(url.pathname + url.search, to.nodeUrl);
  const headers = new Headers();
  request.headers.forEach((v, k) => {
    if (!HOP_HEADERS.has(k) && !k.startsWith('x-replaydesk-')) headers.set(k, v);
  });
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : await bodyText(ctx);
  const atMs = s.clock.nowMs();
  const address = clientAddress(ctx, s.config.trustProxy);
  const signed: Signed = { method: request.method, path: url.pathname + url.search, address, host: url.host, accountId: String(to.accountId), body: body ?? '', credential: credentialOf(headers) };
  headers.set(CLIENT_ADDRESS, address);
  headers.set(ORIGINAL_HOST, url.host);
  headers.set(ACCOUNT, signed.accountId);
  headers.set(SIGNATURE, `${atMs}.${sign(s, signed, atMs)}`);
  const watch = leaseWatch(s, to);
  try {
    const res = await fetch(target, { method: request.method, headers, body: body ?? undefined, redirect: 'manual', signal: watch.signal, ...tlsFor(s, target) });
    const out = new Headers();
    res.headers.forEach((v, k) => {
      if (!HOP_HEADERS.has(k) && k !== 'content-encoding') out.set(k, v);
    });
    return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
  } catch (e) {
    // Never reached the owner (refused, a certificate it could not verify): nothing was carried out.
    if (!watch.signal.aborted && !mayHaveArrived(e)) return busy(1, SESSION_MOVING);
    // The owner may have it: the answer waits until the owner can no longer commit it.
    return (await watch.verdict) === 'untouched' ? busy(1, SESSION_MOVING) : json(504, { success: false, errorCode: 504, errorMessage: SESSION_UNANSWERED });
  } finally {
    watch.stop();
  }
}

/**
 * Whether a failed fetch may have delivered the request: the connection was established and then
 * closed (the owner died, or cut it) before a whole answer came. Refused connections, names that do
 * not resolve and certificates that do not verify fail before any byte of the request is sent.
 */
function mayHaveArrived(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ECONNRESET';
}

interface LeaseWatch {
  /** Aborts the hop's fetch once the verdict is in. */
  signal: AbortSignal;
  /** `untouched`: the owner can no longer commit, and nothing was committed since `commitsSeen`. */
  verdict: Promise<'untouched' | 'touched'>;
  stop(): void;
}

/**
 * Ends the hop once the owner can no longer commit the request (`Ownership.fenceOut`, looked at every
 * `forwardLeaseCheckMs`: its lease lapsed and this node took it, or another holds it), with whether a
 * commit was made since; or after `forwardTimeoutMs`, when a live owner may still be carrying it out
 * (`touched`). A look that fails (the store busy) changes nothing.
 */
function leaseWatch(s: Services, to: HopTarget): LeaseWatch {
  const ctl = new AbortController();
  let settle: (v: 'untouched' | 'touched') => void = () => {};
  const verdict = new Promise<'untouched' | 'touched'>((resolve) => (settle = resolve));
  let look: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearTimeout(deadline);
    clearInterval(look);
  };
  const end = (v: 'untouched' | 'touched') => {
    stop();
    settle(v);
    ctl.abort();
  };
  const deadline = setTimeout(() => end('touched'), limits.forwardTimeoutMs);
  const ownership = s.topology.ownership;
  if (ownership.clustered) {
    let looking = false;
    look = setInterval(() => {
      if (looking || stopped) return;
      looking = true;
      ownership.fenceOut(to.accountId, to.nodeUrl, to.commits).then(
        (state) => {
          looking = false;
          if (state !== 'wait' && !stopped) end(state);
        },
        () => (looking = false),
      );
    }, limits.forwardLeaseCheckMs);
  }
  return { signal: ctl.signal, verdict, stop };
}

/** Bun's fetch TLS options for an https:// node when NODE_CA_FILE names the nodes' CA. */
function tlsFor(s: Services, target: URL): { tls?: { ca: string } } {
  if (target.protocol !== 'https:') return {};
  const ca = s.nodeCa();
  return ca === null ? {} : { tls: { ca } };
}
