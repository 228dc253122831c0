// The response contract: when enabled (the test suite's preload does so), every answer of a
// declared endpoint (src/http/shared/endpoint.ts) is checked against the endpoint's schema for its
// status, JSON, msgpack, text and Server-Sent Events alike.

import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { unpack } from 'msgpackr';
import { MSGPACK } from './bars.ts';

/**
 * What the contract reads of an endpoint: `EndpointInfo` (endpoint.ts) as seen from here, declared
 * structurally so that endpoint.ts, which calls the contract, is not imported back.
 */
export interface ContractEndpoint {
  readonly method: string;
  readonly path: string;
  readonly produces?: string;
  readonly responses: Readonly<Record<number, TSchema>>;
  readonly compiled: { readonly responses: Map<number, TypeCheck<TSchema>> };
}

/**
 * When enabled (the test suite's preload does so), every response of a `route` is checked against
 * its endpoint's schema for the response's status; a mismatch is recorded in `violations` and thrown
 * (the request then answers 500), so the test that caused it fails with the endpoint, the path and
 * the first schema error.
 */
export const responseContract: {
  enabled: boolean;
  violations: string[];
  /** Responses checked, by `METHOD path status` (path relative to the family prefix). */
  checked: Map<string, number>;
  /**
   * Responses checked, by the declaration they were held to and status: a profile's declarations
   * (src/http/sim/live-schemas.ts) share method and path with the spec's, so only this tells them apart.
   */
  checkedBy: WeakMap<ContractEndpoint, Map<number, number>>;
} = { enabled: false, violations: [], checked: new Map(), checkedBy: new WeakMap() };

export function enableResponseContract(): void {
  responseContract.enabled = true;
}

/** The compiled schema of an endpoint's answers with `status` (compiled on first use, then kept); null if it has none. */
export function responseCheck(ep: ContractEndpoint, status: number): TypeCheck<TSchema> | null {
  const cached = ep.compiled.responses.get(status);
  if (cached) return cached;
  const schema = ep.responses[status];
  if (!schema) return null;
  const check = TypeCompiler.Compile(schema);
  ep.compiled.responses.set(status, check);
  return check;
}

/** Why `body` (already decoded) is not a valid answer of `ep` with `status`; null when it is. */
export function contractError(ep: ContractEndpoint, status: number, body: unknown): string | null {
  const check = responseCheck(ep, status);
  if (!check) return `HTTP ${status} is not an answer of this endpoint`;
  if (check.Check(body)) return null;
  const first = check.Errors(body).First();
  // A union reports only that no branch matched: name the closest branch's first error too.
  const deeper = first && first.errors.length > 0 ? [...first.errors].map((it) => it.First()).find((e) => e !== undefined) : undefined;
  const where = (e: { path: string; message: string } | undefined) => (e ? `${e.path || '/'}: ${e.message}` : 'no detail');
  return deeper ? `${where(first)} (closest: ${where(deeper)})` : where(first);
}

/** The answer, passed through when it keeps the contract (an event stream is checked as it streams); throws otherwise. */
export async function checkResponse(ep: ContractEndpoint, request: Request, res: Response): Promise<Response> {
  const key = `${ep.method} ${ep.path} ${res.status}`;
  responseContract.checked.set(key, (responseContract.checked.get(key) ?? 0) + 1);
  let byStatus = responseContract.checkedBy.get(ep);
  if (!byStatus) responseContract.checkedBy.set(ep, (byStatus = new Map()));
  byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream') && ep.produces === 'event-stream' && res.status === 200 && res.body) return checkedEvents(ep, request, res);
  let problem: string | null = null;
  let body: unknown = null;
  if (type.startsWith('application/json')) {
    const text = await res.clone().text();
    try {
      body = JSON.parse(text);
    } catch {
      problem = 'body is not JSON';
    }
  } else if (type.startsWith(MSGPACK) && ep.produces === 'json+msgpack') {
    body = unpack(new Uint8Array(await res.clone().arrayBuffer()));
  } else if ((type.startsWith('text/plain') && ep.produces === 'text') || (type.startsWith('text/csv') && ep.produces === 'csv')) {
    body = await res.clone().text();
  } else {
    problem = `unexpected content-type "${type}"`;
  }
  if (problem === null && (res.status === 429 || res.status === 503) && !/^\d+$/.test(res.headers.get('retry-after') ?? '')) {
    problem = 'no Retry-After header';
  }
  problem ??= contractError(ep, res.status, body);
  if (problem === null) return res;
  throw new Error(violation(ep, request, res.status, problem, body));
}

/** Records a contract violation; returns its message. */
function violation(ep: ContractEndpoint, request: Request, status: number, problem: string, body: unknown): string {
  const text = JSON.stringify(body) ?? String(body);
  const message =
    `response contract: ${ep.method} ${ep.path} (${new URL(request.url).pathname}) answered HTTP ${status}: ${problem}; ` +
    `body ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`;
  responseContract.violations.push(message);
  return message;
}

/**
 * A Server-Sent Events answer, passed through as it streams: each event (`event:` name, `data:`
 * JSON) is checked as `{event, data}` against the endpoint's success schema; a bad one is recorded
 * and errors the stream. Cancelling the answer cancels the endpoint's stream.
 */
function checkedEvents(ep: ContractEndpoint, request: Request, res: Response): Response {
  const decoder = new TextDecoder();
  let pending = '';
  const checkFrames = (controller: TransformStreamDefaultController<Uint8Array>, final: boolean) => {
    const frames = pending.split('\n\n');
    pending = final ? '' : (frames.pop() ?? '');
    for (const frame of frames) {
      // Blank frames and comment-only frames (keep-alives) carry no event.
      if (frame.split('\n').every((line) => line.trim() === '' || line.startsWith(':'))) continue;
      const { event, problem } = parseEvent(frame);
      const found = problem ?? contractError(ep, 200, event);
      if (found !== null) {
        controller.error(new Error(violation(ep, request, 200, `event ${found}`, event ?? frame)));
        return false;
      }
    }
    return true;
  };
  const check = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      if (checkFrames(controller, false)) controller.enqueue(chunk);
    },
    flush(controller) {
      pending += decoder.decode();
      checkFrames(controller, true);
    },
  });
  return new Response((res.body as ReadableStream<Uint8Array>).pipeThrough(check), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** One SSE frame as `{event, data}` (`event` defaults to `message`; `data` lines joined and parsed as JSON). */
function parseEvent(frame: string): { event: { event: string; data: unknown } | null; problem: string | null } {
  let name = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  try {
    return { event: { event: name, data: JSON.parse(data.join('\n')) }, problem: null };
  } catch {
    return { event: null, problem: 'data is not JSON' };
  }
}
