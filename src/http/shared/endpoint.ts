// Endpoints as data. Each endpoint of a family is declared once with `defineEndpoint` (method, path,
// authentication, TypeBox request and response schemas, a rule per request field, the code table,
// and where the request names the live session it acts on) and served with `route` (serve.ts), which
//   0. in a cluster, passes a request for a session another node runs on to that node, as it came,
//      before anything below (edge.ts: the endpoint's `session` says where the request names it),
//   1. guards and authenticates (auth-table.ts: CSRF → 401 → 403 for cookie routes; 401 → 403 (plan)
//      for bearer routes),
//   2. reads the body leniently (empty → `{}`, any Content-Type, not JSON → HTTP 400),
//   3. checks it with the endpoint's compiled validator (compiled once, at module load),
//   4. answers a failing field by its rule (below), or calls the handler with the typed body,
//   5. when the response contract is on (the test suite), checks the answer against the endpoint's
//      response schema for its HTTP status and fails loudly when it does not match.
//
// Field rules: the services check their inputs in the spec's order, and several of their checks need
// state (is the account owned, is the session live) before a field's own row applies. So a field
// that fails its schema is answered in one of three ways:
//   { refuse: error }  the route answers the error's row at once. Only for fields the service checks
//                      before anything else, listed in the order the service checks them.
//   { defer: 'kind' }  the field reaches the handler as `INVALID`, which the service refuses with the
//                      row of `kind` at its own place in the order of checks (exactly as it refused any
//                      other wrong value before schemas existed). `kind` documents the row.
//   { keep: 'kind' }   as `defer`, but the field reaches the handler as sent (typed `unknown`): for
//                      services whose row quotes the wrong value or looks inside it (a timeframe
//                      echoed in the message, the keys of a params object).
//   { drop: true }     a wrong value counts as omitted (fields accepted for compatibility and ignored).
//
// Path parameters (`/strategies/:id`) come typed from the path: `params.id` is a string.
//
// A Server-Sent Events endpoint (`produces: 'event-stream'`) answers its success as
// `text/event-stream`; its `response` is the schema of one event, `{event, data}` (the frame's
// `event:` name and its `data:` JSON). Its error answers are JSON like every other endpoint's, and
// the response contract checks each event of the stream as it passes.
//
// An OpenAPI generator enumerates a family's endpoints (its `…_ENDPOINTS` list) and reads from each:
// `method`, `path` (relative to the family prefix), `auth`, `summary`, `requestSchema` (a TObject),
// `response` (the success body), `responses` (every HTTP status the endpoint can answer with its body
// schema) and `errorRows()` (code, message, HTTP status and the fields that lead to each row).

import { Kind, type Static, type TObject, type TProperties, type TSchema, Type as T } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Elysia } from 'elysia';
import { INVALID, type Invalid } from '../../lib/invalid.ts';
import type { Principal } from '../../service/auth.ts';
import type { Services } from '../../service/services.ts';
import type { WebPrincipal } from '../../service/web-auth.ts';
import type { UserRow } from '../../store/users.ts';
import { AUTH, type Auth, type CookieJar } from './auth-table.ts';
import { type CodeTable, describeTable, type Kinded, mapError } from './code-table.ts';
import { CROSS_SITE_REFUSED } from './cookie.ts';
import { ACCOUNT_SESSION, type SessionField, sameSessionField } from './edge.ts';
import { success } from './envelope.ts';
import { STRICT } from './schemas.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { type Compiled, type FieldCheck, readsBody, register, type Variant } from './serve.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a success answer is (see `EndpointSpec.produces`). */
export type Produces = 'json' | 'json+msgpack' | 'text' | 'csv' | 'event-stream';

export type { Auth, CookieJar };
export { AUTH, readsBody };
export type { SessionField };
export { ACCOUNT_SESSION };

// The invalid-field marker is the services' too (their inputs name it), so it lives in lib.
export { INVALID, type Invalid };

export type FieldRule<E extends Kinded> =
  | { readonly refuse: E }
  | { readonly defer: E['kind'] }
  | { readonly keep: E['kind'] }
  | { readonly drop: true };

export type FieldRules<Req extends TProperties, E extends Kinded> = { readonly [K in keyof Req]: FieldRule<E> };

/** The body a handler receives: the request's static type, with `Invalid` where a field is deferred and `unknown` where it is kept. */
export type BodyOf<Req extends TProperties, R> = {
  [K in keyof Static<TObject<Req>>]: K extends keyof R
    ? R[K] extends { defer: string }
      ? Static<TObject<Req>>[K] | Invalid
      : R[K] extends { keep: string }
        ? unknown
        : Static<TObject<Req>>[K]
    : never;
};

/** The path parameters of a route path: `/strategies/:id/runs` → `{ id: string }`. */
export type PathParams<P extends string> = string extends P
  ? Record<string, string>
  : P extends `${string}:${infer Name}/${infer Rest}`
    ? { [K in Name]: string } & PathParams<`/${Rest}`>
    : P extends `${string}:${infer Name}`
      ? { [K in Name]: string }
      : Record<never, string>;

export interface Call<B> {
  body: B;
  request: Request;
  clientAddress: string;
}
export interface BearerCall<B> extends Call<B> {
  principal: Principal;
  /** The API profile this request is answered under (profile.ts). */
  profile: ApiProfile;
}
export interface TokenCall<B> extends Call<B> {
  /** The bearer token as sent (null when none). */
  token: string | null;
}
export interface CookieCall<B, Par = Record<string, string>> extends Call<B> {
  cookie: CookieJar;
  /** Path parameters (`/strategies/:id` → `params.id`). */
  params: Par;
  query: Record<string, string | undefined>;
}
export interface SessionCall<B, Par = Record<string, string>> extends CookieCall<B, Par> {
  /** The session's user, read afresh on this request. */
  user: UserRow;
  session: WebPrincipal;
}

export type CallOf<A extends Auth, B, Par = Record<string, string>> = A extends 'bearer' | 'bearer-only'
  ? BearerCall<B>
  : A extends 'bearer-row'
    ? TokenCall<B>
    : A extends 'cookie' | 'cookie-pro'
      ? SessionCall<B, Par>
      : A extends 'web'
        ? CookieCall<B, Par>
        : Call<B>;

export interface EndpointSpec<
  A extends Auth,
  Req extends TProperties,
  Res extends TSchema,
  E extends Kinded,
  R extends FieldRules<Req, E>,
  Path extends string = string,
> {
  readonly method: Method;
  /** Relative to the family's prefix (`/Order/place`); `:name` segments are path parameters. */
  readonly path: Path;
  readonly auth: A;
  /** One line for the API reference. */
  readonly summary: string;
  readonly description?: string;
  /** `json` (POST, PUT, PATCH): the body is read as lenient JSON; `none`: not read (GET, DELETE, or a body that is ignored). */
  readonly body?: 'json' | 'none';
  /** Properties of the request body (unknown properties are allowed and ignored). */
  readonly request: Req;
  /**
   * What a request field failing its schema leads to (see the file's head), one rule per field.
   * `refuse` fields are tried in the order written here: write them in the order the service checks them.
   */
  readonly fields: R;
  /** The success body, envelope included (`okBody({...})`); `T.Never()` for an endpoint that never succeeds. */
  readonly response: Res;
  /**
   * `json` (default), `json+msgpack` (`Accept: application/x-msgpack` gets the same body in msgpack),
   * `text`, `csv` (`text/csv`: `response` is the schema of the whole text), `event-stream` (Server-Sent
   * Events: `response` is the schema of one event, `{event, data}`).
   */
  readonly produces?: Produces;
  /** The endpoint's code table: every error row it answers besides 400/401/403. */
  readonly errors: CodeTable<E>;
  /** Properties the endpoint's error bodies carry besides the envelope (Auth/validate's `newToken: null`). */
  readonly errorFields?: TProperties;
  /**
   * Envelope answers the handler returns itself with a non-200 status, `{success: false, errorCode:
   * status, errorMessage}` (e.g. `[403, SIM_PRO_REQUIRED]`, `[404, 'Not found']`).
   */
  readonly otherErrors?: readonly (readonly [status: number, errorMessage: string])[];
  /**
   * Where the request names the live replay session it acts on (a body field, or a path parameter):
   * in a cluster the route passes the request to the node running that session before anything
   * here reads it (edge.ts). For the endpoints whose service acts on a live session, which another
   * node may run.
   */
  readonly session?: SessionField<Extract<keyof Req, string>>;
}

/** One error answer of an endpoint as the API reference lists it. */
export interface ErrorRow {
  readonly status: number;
  readonly errorCode: number;
  /** The exact message when it is fixed, else null (see `text`). */
  readonly errorMessage: string | null;
  readonly text: string;
  /** Domain error kinds answered by this row (empty for transport answers such as 401). */
  readonly kinds: readonly string[];
  /** Request fields whose failing schema leads to this row. */
  readonly fields: readonly string[];
}

/** What every endpoint exposes, whatever its types: the registry's and the OpenAPI generator's view. */
export interface EndpointInfo {
  readonly method: Method;
  readonly path: string;
  readonly auth: Auth;
  readonly summary: string;
  readonly description?: string;
  readonly body?: 'json' | 'none';
  readonly produces?: Produces;
  readonly session?: SessionField;
  /** Properties of the request body. */
  readonly request: TProperties;
  /** The request body schema: `request` as an object that allows unknown properties. */
  readonly requestSchema: TObject;
  /** The success body (`T.Never()` when the endpoint never succeeds). */
  readonly response: TSchema;
  /** Every HTTP status the endpoint answers with, and the body schema of those answers. */
  readonly responses: Readonly<Record<number, TSchema>>;
  /** The error answers: code table rows, then 400/401/403 as they apply. */
  errorRows(): ErrorRow[];
  /** Compiled checks (internal to `route` and the response contract). */
  readonly compiled: Compiled;
}

export interface Endpoint<
  A extends Auth,
  Req extends TProperties,
  Res extends TSchema,
  E extends Kinded,
  R extends FieldRules<Req, E>,
  Path extends string = string,
> extends EndpointSpec<A, Req, Res, E, R, Path>,
    EndpointInfo {
  readonly path: Path;
  readonly auth: A;
  readonly request: Req;
  readonly response: Res;
  readonly session?: SessionField<Extract<keyof Req, string>>;
  /** The success answer, typed by the response schema. */
  ok(fields: OkFields<Res>): Response;
}

type OkFields<Res> = Res extends TObject ? Omit<Static<Res>, 'success' | 'errorCode' | 'errorMessage'> : never;

const STATE_CHANGING: ReadonlySet<Method> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A success body: the endpoint's fields plus the envelope (`success` true, `errorCode` 0, `errorMessage` null). */
export function okBody<P extends TProperties>(props: P) {
  return T.Object({ ...props, success: T.Literal(true), errorCode: T.Literal(0), errorMessage: T.Null() }, STRICT);
}

/** A failure body with the given code and message (a fixed text, or any string when null). */
export function failureBody(errorCode: number, errorMessage: string | null, extra: TProperties = {}) {
  return T.Object(
    { ...extra, success: T.Literal(false), errorCode: T.Literal(errorCode), errorMessage: errorMessage === null ? T.String() : T.Literal(errorMessage) },
    STRICT,
  );
}

function union(schemas: TSchema[]): TSchema {
  return schemas.length === 1 ? schemas[0] : T.Union(schemas);
}

/** Declares an endpoint and compiles its request checks (once, at module load). */
export function defineEndpoint<
  const A extends Auth,
  const Req extends TProperties,
  const Res extends TSchema,
  E extends Kinded,
  const R extends FieldRules<Req, E>,
  const Path extends string,
>(spec: EndpointSpec<A, Req, Res, E, R, Path>): Endpoint<A, Req, Res, E, R, Path> {
  const named = spec.session;
  if (named && 'path' in named && !spec.path.split('/').includes(`:${named.path}`)) throw new Error(`${spec.method} ${spec.path}: the session's path parameter :${named.path} is not in the path`);
  const requestSchema: TObject = T.Object(spec.request as TProperties);
  // In the order of `fields`: the first failing `refuse` field in that order is the one answered.
  const rules = Object.keys(spec.fields).map((key) => ({ key, rule: spec.fields[key as keyof Req] as FieldRule<E> }));
  const fields: FieldCheck[] = rules.map(({ key, rule }) => ({
    key,
    check: TypeCompiler.Compile(T.Object({ [key]: spec.request[key] })),
    rule: 'refuse' in rule ? 'refuse' : 'defer' in rule ? 'defer' : 'keep' in rule ? 'keep' : 'drop',
    refusal: 'refuse' in rule ? () => mapError(spec.errors, rule.refuse) : null,
  }));
  const rows = describeTable(spec.errors);
  const fieldsOf = (kind: string) =>
    rules
      .filter(({ rule }) => ('refuse' in rule ? rule.refuse.kind === kind : 'defer' in rule ? rule.defer === kind : 'keep' in rule && rule.keep === kind))
      .map((f) => f.key);
  const auth = AUTH[spec.auth];

  const transport: ErrorRow[] = [];
  const answer = (status: number, message: string) => transport.push({ status, errorCode: status, errorMessage: message, text: message, kinds: [], fields: [] });
  if (auth.crossSite && STATE_CHANGING.has(spec.method)) answer(403, CROSS_SITE_REFUSED);
  for (const [status, message] of auth.refusals) answer(status, message);
  if (readsBody(spec)) answer(400, 'Malformed JSON body');
  for (const [status, message] of spec.otherErrors ?? []) answer(status, message);

  // Rows with the same status, code and message are one answer.
  const merged = new Map<string, ErrorRow>();
  for (const r of rows) {
    const key = `${r.status}|${r.errorCode}|${r.errorMessage ?? `~${r.text}`}`;
    const prev = merged.get(key);
    const kinds = prev ? [...prev.kinds, r.kind] : [r.kind];
    const rowFields = [...new Set([...(prev?.fields ?? []), ...fieldsOf(r.kind)])];
    merged.set(key, { status: r.status, errorCode: r.errorCode, errorMessage: r.errorMessage, text: r.text, kinds, fields: rowFields });
  }
  const errorRows = [...merged.values(), ...transport];

  const extra = spec.errorFields ?? {};
  const byStatus = new Map<number, TSchema[]>();
  const add = (status: number, schema: TSchema) => byStatus.set(status, [...(byStatus.get(status) ?? []), schema]);
  if (spec.response[Kind] !== 'Never') add(200, spec.response);
  for (const r of merged.values()) add(r.status, failureBody(r.errorCode, r.errorMessage, extra));
  for (const r of transport) add(r.status, failureBody(r.errorCode, r.errorMessage));
  const responses: Record<number, TSchema> = {};
  for (const [status, schemas] of byStatus) responses[status] = union(schemas);

  const ep: Endpoint<A, Req, Res, E, R, Path> = {
    ...spec,
    requestSchema,
    responses: Object.freeze(responses),
    errorRows: () => errorRows.map((r) => ({ ...r })),
    ok: okOf<Res>(),
    compiled: { request: TypeCompiler.Compile(requestSchema), fields, responses: new Map<number, TypeCheck<TSchema>>() },
  };
  return Object.freeze(ep);
}

function okOf<Res extends TSchema>(): (fields: OkFields<Res>) => Response {
  return success as (fields: Record<string, unknown>) => Response as unknown as (fields: OkFields<Res>) => Response;
}

// ---- serving (serve.ts) ----

type Handler<C> = (call: C) => Response | Promise<Response>;

/** Registers `ep` on a family's Elysia instance: served by serve.ts, the handler getting its typed call. */
export function route<
  P extends string,
  const A extends Auth,
  Req extends TProperties,
  Res extends TSchema,
  E extends Kinded,
  R extends FieldRules<Req, E>,
  Path extends string,
>(app: Elysia<P>, s: Services, ep: Endpoint<A, Req, Res, E, R, Path>, handler: Handler<CallOf<A, BodyOf<Req, R>, PathParams<Path>>>): void {
  const variant: Variant = { ep, handler };
  register(app, s, ep, () => variant);
}

/**
 * Registers an endpoint that answers differently per API profile (profile.ts): `spec` is the spec's
 * declaration and handler, `live` the live gateway's (same method, path and authentication, and the
 * session named in the same place if both name one; its own request fields, field rules, codes and
 * response schema). The variant is chosen after
 * authentication, so the body is checked, and the answer held to its response schema, by the chosen
 * declaration; a variant's handler sees only the fields its declaration names.
 */
export function routeByProfile<
  P extends string,
  const A extends 'bearer',
  Req extends TProperties, Res extends TSchema, E extends Kinded, R extends FieldRules<Req, E>, Path extends string,
  LReq extends TProperties, LRes extends TSchema, LE extends Kinded, LR extends FieldRules<LReq, LE>,
>(
  app: Elysia<P>,
  s: Services,
  spec: readonly [Endpoint<A, Req, Res, E, R, Path>, Handler<BearerCall<BodyOf<Req, R>>>],
  live: readonly [Endpoint<A, LReq, LRes, LE, LR, Path>, Handler<BearerCall<BodyOf<LReq, LR>>>],
  /**
   * `live`: the web console is served by the live declaration here (the order model's endpoints:
   * the console trades with the whole order model, while every listing keeps the spec's shapes).
   */
  opts: { console?: 'live' } = {},
): void {
  const [specEp, liveEp] = [spec[0], live[0]];
  if (specEp.method !== liveEp.method || specEp.path !== liveEp.path || specEp.auth !== liveEp.auth) {
    throw new Error(`${specEp.method} ${specEp.path}: the live variant must share method, path and authentication`);
  }
  // The session is found before the variant is chosen: where one declaration names it, so must the other (or name none).
  if (specEp.session && liveEp.session && !sameSessionField(specEp.session, liveEp.session)) {
    throw new Error(`${specEp.method} ${specEp.path}: the live variant must name the session where the spec's does`);
  }
  const variants: Record<ApiProfile, Variant> = {
    spec: { ep: specEp, handler: spec[1] },
    live: { ep: liveEp, handler: live[1] },
  };
  const choose = (profile: ApiProfile, viaConsole: boolean) => variants[viaConsole && opts.console === 'live' ? 'live' : profile];
  register(app, s, specEp, choose, specEp.session ?? liveEp.session);
}
