// How a declared endpoint (endpoint.ts) serves one request, in order:
//   1. the request's context (request-context.ts); a hop from another node of the cluster is checked
//      (forward.ts `arrival`), and one that came too late is refused unserved;
//   2. in a cluster, a request for a session another node runs is passed on to it, as it came
//      (edge.ts), before anything below reads it;
//   3. the endpoint's kind of authentication admits it or answers its refusal (auth-table.ts), which
//      also chooses the profile's variant (profile.ts);
//   4. the body is read leniently and checked by the chosen declaration's compiled validator, a failing
//      field answered by its rule (endpoint.ts's head);
//   5. the handler gets its typed call; with the response contract on (the test suite), the answer
//      is checked against the declaration's response schema.
// Nothing here catches: a session that stops being this node's mid-request (SessionMoving) is
// answered by the app's error hook, as the store's failures are (src/app.ts).

import type { TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import type { Elysia } from 'elysia';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { INVALID } from '../../lib/invalid.ts';
import type { Services } from '../../service/services.ts';
import { type Admitted, AUTH, type Auth, type CookieJar } from './auth-table.ts';
import { type SessionField, servedElsewhere } from './edge.ts';
import { busy, malformedJson } from './envelope.ts';
import { arrival, SESSION_MOVING } from './forward.ts';
import { profileOf } from './profile.ts';
import { contextOf, type RequestContext } from './request-context.ts';
import { checkResponse, responseContract } from './response-contract.ts';
import { clientAddress, isBadJson, readLenientBody } from './route.ts';

export interface FieldCheck {
  readonly key: string;
  readonly check: TypeCheck<TObject>;
  readonly rule: 'refuse' | 'defer' | 'keep' | 'drop';
  /** The answer of a `refuse` field. */
  readonly refusal: (() => Response) | null;
}

export interface Compiled {
  readonly request: TypeCheck<TObject>;
  readonly fields: readonly FieldCheck[];
  readonly responses: Map<number, TypeCheck<TSchema>>;
}

/** What serving reads of a declaration (endpoint.ts `EndpointInfo`, seen from here). */
export interface ServedEndpoint {
  readonly method: string;
  readonly path: string;
  readonly auth: Auth;
  readonly summary: string;
  readonly description?: string;
  readonly body?: 'json' | 'none';
  readonly produces?: string;
  readonly session?: SessionField;
  readonly request: TProperties;
  readonly responses: Readonly<Record<number, TSchema>>;
  readonly compiled: Compiled;
}

/** A handler as serving calls it: its call is built here by what authentication admitted. */
export type AnyHandler = (call: never) => Response | Promise<Response>;

/** One endpoint's answer under one profile: its declaration (schemas, codes) and its handler. */
export interface Variant {
  readonly ep: ServedEndpoint;
  readonly handler: AnyHandler;
}

/** The variant of an endpoint for a request's profile, and whether the request is the console's. */
export type Choose = (profile: ApiProfile, viaConsole: boolean) => Variant;

/** What Elysia hands a route besides the request: the cookie jar, path parameters and query. */
interface Parts {
  readonly cookie?: unknown;
  readonly params?: Record<string, string | undefined>;
  readonly query?: unknown;
}

/**
 * Registers `ep` on a family's Elysia instance. Elysia's own validation and parsing stay off (its
 * answers are not ours): the body is read here, checked with the endpoint's compiled validator, and
 * the handler gets it typed. `choose` picks the variant once authentication knows the profile;
 * `session` is where a request names its session, for every variant.
 */
export function register<P extends string>(app: Elysia<P>, s: Services, ep: ServedEndpoint, choose: Choose, session = ep.session): void {
  const detail = { summary: ep.summary, tags: [tagOf(ep.path)], ...(ep.description ? { description: ep.description } : {}) };
  const hook = { parse: 'none' as const, detail };
  // Elysia reads only the context properties a handler names: public routes never touch cookies.
  if (AUTH[ep.auth].cookies) {
    app.route(ep.method, ep.path, ({ request, cookie, params, query }) => serve(s, session, ep, choose, request, { cookie, params, query }), hook);
  } else if (session !== undefined && 'path' in session) {
    app.route(ep.method, ep.path, ({ request, params }) => serve(s, session, ep, choose, request, { params }), hook);
  } else {
    app.route(ep.method, ep.path, ({ request }) => serve(s, session, ep, choose, request, {}), hook);
  }
}

/** The group of a path (`/Order/place` → `Order`, `/me` → `me`), for the reference's tags. */
function tagOf(path: string): string {
  return path.split('/').filter((p) => p !== '')[0] ?? path;
}

async function serve(s: Services, session: SessionField | undefined, ep: ServedEndpoint, choose: Choose, request: Request, parts: Parts): Promise<Response> {
  const ctx = contextOf(request);
  // A hop its sender gave up on (and answered): never carried out late, nor passed on. The hop's own
  // answers (503 moving, 504 unanswered) are the cluster's transport answers, as the store's 503s
  // are, not rows of the endpoint's table; a request passed on is answered, and checked, by its owner.
  if ((await arrival(s, ctx)).late) return busy(1, SESSION_MOVING);
  if (session !== undefined && s.topology.ownership.clustered) {
    const elsewhere = await servedElsewhere(s, session, ctx, parts.params);
    if (elsewhere) return elsewhere;
  }
  // The declaration the answer is held to: the chosen variant's once authentication chose one.
  const chosen: { ep: ServedEndpoint } = { ep };
  const res = await answer(s, ep, choose, chosen, ctx, parts);
  return responseContract.enabled ? checkResponse(chosen.ep, ctx.request, res) : res;
}

async function answer(s: Services, declared: ServedEndpoint, choose: Choose, chosen: { ep: ServedEndpoint }, ctx: RequestContext, parts: Parts): Promise<Response> {
  const request = ctx.request;
  const admitted = await AUTH[declared.auth].admit(s, request, parts.cookie as CookieJar | undefined);
  if (admitted instanceof Response) return admitted;
  const principal = admitted.as === 'principal' ? admitted.principal : null;
  const profile = principal ? profileOf(s.config, principal, request) : 'spec';
  const variant = choose(profile, principal?.console === true);
  const ep = (chosen.ep = variant.ep);
  const raw = readsBody(ep) ? await readLenientBody(ctx) : {};
  if (isBadJson(raw)) return malformedJson();
  const checked = ep.compiled.request.Check(raw) ? raw : applyFieldRules(ep, raw);
  if (checked instanceof Response) return checked;
  // A variant's handler sees only its own fields: the spec's never reads a live-only field sent to it.
  const body = choose('live', false) === choose('spec', false) ? checked : own(ep, checked);
  const handler = variant.handler as (call: unknown) => Response | Promise<Response>;
  return handler(callOf(admitted, { body, request, clientAddress: clientAddress(ctx, s.config.trustProxy) }, parts, profile));
}

/** The handler's call (endpoint.ts `CallOf`): the body and request, and who the request acts as. */
function callOf(admitted: Admitted, base: { body: unknown; request: Request; clientAddress: string }, parts: Parts, profile: ApiProfile): unknown {
  const { body, request, clientAddress } = base;
  if (admitted.as === 'principal') return { body, request, clientAddress, principal: admitted.principal, profile };
  if (admitted.as === 'token') return { body, request, clientAddress, token: admitted.token };
  const cookieCall = { body, request, clientAddress, cookie: parts.cookie ?? {}, params: parts.params ?? {}, query: parts.query ?? {} };
  return admitted.as === 'session' ? { ...cookieCall, user: admitted.session.user, session: admitted.session } : cookieCall;
}

const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Whether the route reads the body as JSON (`body`, by default for POST, PUT and PATCH). */
export function readsBody(ep: { readonly method: string; readonly body?: 'json' | 'none' }): boolean {
  return (ep.body ?? (BODY_METHODS.has(ep.method) ? 'json' : 'none')) === 'json';
}

/** The body's fields the endpoint declares. */
function own(ep: ServedEndpoint, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(ep.request)) if (k in body) out[k] = body[k];
  return out;
}

/**
 * A body that failed the endpoint's check: the first failing `refuse` field (in declaration order) is
 * answered with its row; otherwise failing `defer` fields become INVALID and failing `drop` fields go.
 */
function applyFieldRules(ep: ServedEndpoint, raw: Record<string, unknown>): Record<string, unknown> | Response {
  const failing = ep.compiled.fields.filter((f) => !f.check.Check(raw));
  const refused = failing.find((f) => f.refusal !== null);
  if (refused?.refusal) return refused.refusal();
  if (failing.length === 0) throw new Error(`${ep.method} ${ep.path}: the body failed its schema but no field did`);
  const body = { ...raw };
  for (const f of failing) {
    if (f.rule === 'defer') body[f.key] = INVALID;
    else if (f.rule === 'drop') delete body[f.key];
  }
  return body;
}
