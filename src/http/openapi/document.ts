// One family's OpenAPI 3.1 document, built from its endpoint registry (src/http/<family>/schemas.ts:
// method, path, authentication, TypeBox request and response schemas, error rows) and the family's
// reference table (tags, examples captured from real responses). Built once per process.

import { Kind, type TSchema } from '@sinclair/typebox';
import { CROSS_SITE_REFUSED } from '../shared/cookie.ts';
import { AUTH, type EndpointInfo, type ErrorRow, readsBody } from '../shared/endpoint.ts';
import {
  ENVELOPE,
  ERROR_ENVELOPE,
  type Json,
  type JsonObject,
  RETRY_AFTER_HEADER,
  SECURITY_SCHEMES,
  type SecuritySchemeName,
} from './components.ts';
import { type FieldEnum, SchemaNamer } from './schema-json.ts';

export const OPENAPI_VERSION = '3.1.2';

/** A request and its answer, as recorded from the running app (examples/*.json). */
export interface CapturedExample {
  readonly summary: string;
  readonly request?: Json;
  readonly status: number;
  readonly response: Json;
}

/** Examples by endpoint, keyed `METHOD /full/path` (`POST /api/sim/Order/place`). */
export type ExampleBook = Readonly<Record<string, readonly CapturedExample[]>>;

/** Endpoints served under one prefix. */
export interface ReferenceSection {
  readonly prefix: string;
  readonly endpoints: readonly EndpointInfo[];
  /** The tag of an endpoint by its path (relative to the prefix); default its first segment (`/Order/place` → `Order`). */
  readonly tagOf?: (path: string) => string;
}

export interface FamilyReference {
  readonly title: string;
  readonly version: string;
  /** Markdown; no double quotes or angle brackets (the page puts it in a meta attribute). */
  readonly description: string;
  /** The part of every path the operation IDs leave out (`/api/sim`). */
  readonly base: string;
  readonly sections: readonly ReferenceSection[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly fieldEnums: readonly FieldEnum[];
  /** Read when the document is built. */
  readonly examples: () => ExampleBook;
}

export interface OpenApiDocument extends JsonObject {
  openapi: string;
  info: JsonObject;
  tags: JsonObject[];
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: JsonObject; headers: JsonObject };
}

const REF_ENVELOPE = { $ref: '#/components/schemas/Envelope' };
const REF_ERROR = { $ref: '#/components/schemas/ErrorEnvelope' };

export function buildDocument(f: FamilyReference): OpenApiDocument {
  if (/["<>]/.test(f.description)) throw new Error(`${f.title}: the description may not hold " < or >`);
  const namer = new SchemaNamer(f.fieldEnums);
  const examples = f.examples();
  const paths: OpenApiDocument['paths'] = {};
  for (const section of f.sections) {
    for (const ep of section.endpoints) {
      const fullPath = section.prefix + ep.path;
      const key = fullPath.replace(/:([^/]+)/g, '{$1}');
      const method = ep.method.toLowerCase();
      paths[key] ??= {};
      if (paths[key][method]) throw new Error(`${ep.method} ${fullPath} is listed twice`);
      const tag = (section.tagOf ?? firstSegment)(ep.path);
      paths[key][method] = operation(f, ep, fullPath, tag, examples[`${ep.method} ${fullPath}`] ?? [], namer);
    }
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: f.title, version: f.version, description: f.description },
    tags: f.tags.map((t) => ({ ...t })),
    paths,
    components: {
      schemas: { Envelope: ENVELOPE, ErrorEnvelope: ERROR_ENVELOPE, ...sorted(namer.components) },
      securitySchemes: SECURITY_SCHEMES as unknown as JsonObject,
      headers: { RetryAfter: RETRY_AFTER_HEADER },
    },
  };
}

function operation(f: FamilyReference, ep: EndpointInfo, fullPath: string, tag: string, examples: readonly CapturedExample[], namer: SchemaNamer): JsonObject {
  const where = `${ep.method} ${fullPath}`;
  const rows = ep.errorRows();
  const op: JsonObject = {
    operationId: operationId(ep.method, fullPath.slice(f.base.length)),
    summary: ep.summary,
    description: [ep.description ?? '', errorTable(rows)].filter((s) => s !== '').join('\n\n'),
    tags: [tag],
    security: security(ep),
  };
  const params = [...fullPath.matchAll(/:([^/]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (params.length > 0) op.parameters = params;
  if (readsBody(ep)) op.requestBody = requestBody(ep, examples, namer, where);
  op.responses = responses(ep, rows, examples, namer, where);
  return op;
}

/** `POST /Order/place` → `postOrderPlace`; `GET /strategies/:id/runs` → `getStrategiesByIdRuns`. */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (p.startsWith(':') ? `By${cap(p.slice(1))}` : p.split(/[^A-Za-z0-9]+/).map(cap).join('')));
  return method.toLowerCase() + words.join('');
}

function cap(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function firstSegment(path: string): string {
  return path.split('/').filter((p) => p !== '')[0] ?? path;
}

function security(ep: EndpointInfo): Json {
  return AUTH[ep.auth].credentials.map((name: SecuritySchemeName) => ({ [name]: [] }));
}

/** The endpoint's error rows as a Markdown table: HTTP status, errorCode, errorMessage, what leads to it. */
function errorTable(rows: readonly ErrorRow[]): string {
  if (rows.length === 0) return '';
  // The endpoint's own rows in its table's order, then the transport answers by status.
  const own = rows.filter((r) => r.kinds.length > 0);
  const transport = rows.filter((r) => r.kinds.length === 0).sort((a, b) => a.status - b.status);
  const lines = [...own, ...transport].map((r) => {
    const message = r.errorMessage !== null ? `\`${r.errorMessage}\`` : `_${r.text}_`;
    const cause = r.kinds.length === 0 ? transportCause(r) : [...r.fields.map((x) => `\`${x}\``), ...r.kinds.map((k) => k.replaceAll('_', ' '))].join(', ');
    return `| ${r.status} | ${r.errorCode} | ${message.replaceAll('|', '\\|')} | ${cause} |`;
  });
  return ['**Errors**', '', '| HTTP | errorCode | errorMessage | When |', '|---|---|---|---|', ...lines].join('\n');
}

/** What leads to a transport answer (rows without a domain kind). */
function transportCause(r: ErrorRow): string {
  if (r.status === 400) return 'the body is not JSON';
  if (r.status === 401) return 'no valid token or session cookie';
  if (r.errorMessage === CROSS_SITE_REFUSED) return 'a cross-site request, or a POST without `Content-Type: application/json`';
  if (r.status === 403) return 'the user is not on the Pro plan';
  return '';
}

function requestBody(ep: EndpointInfo, examples: readonly CapturedExample[], namer: SchemaNamer, where: string): JsonObject {
  const media: JsonObject = { schema: namer.convert(ep.requestSchema, `${where} request`) };
  // Requests that succeeded: a request made to show an error row is not an example to follow.
  const ex = examplesMap(examples.filter((e) => e.request !== undefined && succeeded(e)).map((e) => [e.summary, e.request as Json]));
  if (ex) media.examples = ex;
  return {
    description: 'JSON, read whatever the Content-Type; an empty body is `{}`; unknown fields are ignored.',
    required: Object.keys(ep.request).length > 0,
    content: { 'application/json': media },
  };
}

const STATUS_TEXT: Record<number, string> = {
  200: 'Success, or an error row of this endpoint (HTTP 200 with `success` false).',
  400: 'The body is not JSON.',
  401: 'No valid token or session.',
  403: 'Refused: a cross-site request or a plan without access.',
  429: 'Rate limited; retry after `Retry-After` seconds.',
  503: 'Busy; retry after `Retry-After` seconds.',
};

function responses(ep: EndpointInfo, rows: readonly ErrorRow[], examples: readonly CapturedExample[], namer: SchemaNamer, where: string): JsonObject {
  const out: JsonObject = {};
  const statuses = Object.keys(ep.responses)
    .map(Number)
    .sort((a, b) => a - b);
  const errorExtra = errorFieldsOf(ep, namer, where);
  const errorSchema = errorExtra ? { allOf: [REF_ERROR, errorExtra] } : REF_ERROR;
  const textual = TEXT_MEDIA[ep.produces ?? 'json'];
  for (const status of statuses) {
    const errorRows = rows.filter((r) => r.status === status);
    const succeeds = status === 200 && ep.response[Kind] !== 'Never';
    const captured = examples.filter((e) => e.status === status);
    // JSON answers: recorded ones, then each fixed row once unless a recorded answer shows it already.
    const jsonPairs: [string, Json][] = captured.filter((e) => typeof e.response !== 'string').map((e) => [e.summary, e.response]);
    const shown = (r: ErrorRow) => captured.some((e) => isObj(e.response) && e.response.errorCode === r.errorCode && e.response.errorMessage === r.errorMessage);
    for (const r of errorRows) if (r.errorMessage !== null && !shown(r)) jsonPairs.push([`errorCode ${r.errorCode}: ${r.errorMessage}`, errorBody(ep, r)]);
    const textPairs: [string, Json][] = captured.filter((e) => typeof e.response === 'string').map((e) => [e.summary, e.response]);

    const content: JsonObject = {};
    const jsonSchemas: JsonObject[] = [];
    if (succeeds && textual) content[textual] = withExamples(textSuccessSchema(ep, namer, where), textPairs);
    if (succeeds && !textual) jsonSchemas.push({ allOf: [REF_ENVELOPE, namer.convert(ep.response, `${where} response`)] });
    if (errorRows.length > 0) jsonSchemas.push(errorSchema);
    if (jsonSchemas.length > 0) content['application/json'] = withExamples(jsonSchemas.length === 1 ? jsonSchemas[0] : { anyOf: jsonSchemas }, jsonPairs);
    if (succeeds && ep.produces === 'json+msgpack') content['application/x-msgpack'] = { schema: jsonSchemas[0] };
    const response: JsonObject = { description: STATUS_TEXT[status] ?? `HTTP ${status}` };
    if (status === 429 || status === 503) response.headers = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
    response.content = content;
    out[String(status)] = response;
  }
  return out;
}

/** The media type of a success that is not JSON. */
const TEXT_MEDIA: Record<string, string | undefined> = { text: 'text/plain', csv: 'text/csv', 'event-stream': 'text/event-stream' };

/**
 * A plain-text success is its schema (`pong`). An event stream is described as the sequence of its
 * frames, each `{event, data}`: the `event:` line's name and the `data:` line's JSON.
 */
function textSuccessSchema(ep: EndpointInfo, namer: SchemaNamer, where: string): JsonObject {
  const one = namer.convert(ep.response, `${where} event`);
  if (ep.produces !== 'event-stream') return one;
  return {
    type: 'array',
    description:
      'Server-Sent Events. Each frame is an `event:` line naming it and a `data:` line of JSON; read as `{event, data}` objects, the frames are:',
    items: one,
  };
}

function withExamples(schema: JsonObject, pairs: readonly (readonly [string, Json])[]): JsonObject {
  const examples = examplesMap(pairs);
  return examples ? { schema, examples } : { schema };
}

/** Fields some endpoints add to their error bodies (Auth/validate's `newToken: null`). */
function errorFieldsOf(ep: EndpointInfo, namer: SchemaNamer, where: string): JsonObject | null {
  const extra = (ep as { errorFields?: Record<string, TSchema> }).errorFields;
  if (!extra || Object.keys(extra).length === 0) return null;
  const properties: JsonObject = {};
  for (const [k, s] of Object.entries(extra)) properties[k] = namer.convert(s, `${where} error.${k}`);
  return { type: 'object', properties };
}

/** An error row's body: the fields the code-table rows always carry as null (`newToken`), then the envelope. */
function errorBody(ep: EndpointInfo, r: ErrorRow): JsonObject {
  const extra = (ep as { errorFields?: Record<string, TSchema> }).errorFields ?? {};
  const nulls: JsonObject = {};
  if (r.kinds.length > 0) for (const [k, s] of Object.entries(extra)) if (s[Kind] === 'Null') nulls[k] = null;
  return { ...nulls, success: false, errorCode: r.errorCode, errorMessage: r.errorMessage };
}

function examplesMap(pairs: readonly (readonly [string, Json])[]): JsonObject | null {
  if (pairs.length === 0) return null;
  const out: JsonObject = {};
  for (const [summary, value] of pairs) out[summary] ??= { summary, value };
  return out;
}

function succeeded(e: CapturedExample): boolean {
  return e.status === 200 && isObj(e.response) && e.response.success === true;
}

function isObj(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sorted<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
