// The API reference: each family's OpenAPI 3.1 document lists exactly the routes the family serves,
// is a valid OpenAPI 3.1 document (@readme/openapi-parser: the OAS 3.1 JSON Schema, $refs,
// operation IDs), carries each endpoint's error rows, the envelope, the named enums and the security
// schemes, and its examples (recorded from real responses) match both the endpoint's own response
// schema and the document's schema for them (Ajv, JSON Schema 2020-12). The Scalar page loads its
// bundle from this server.

import { beforeAll, describe, expect, it } from 'bun:test';
import { readFileSync, statSync } from 'node:fs';
import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import { REFERENCE_MOUNTS } from '../../src/http/openapi/index.ts';
import { SCALAR_BUNDLE_FILE, SCALAR_SCRIPT_PATH } from '../../src/http/openapi/scalar.ts';
import type { EndpointInfo } from '../../src/http/shared/endpoint.ts';
import { contractError } from '../../src/http/shared/response-contract.ts';
import { makeApp, type TestApp } from '../support/app.ts';

type Doc = { [k: string]: any };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Served under `/api/sim/api/` as well; the document lists them once (docs/decisions.md). */
const SIM_ALIAS = '/api/sim/api/';

let t: TestApp;
const docs = new Map<string, Doc>();

beforeAll(async () => {
  t = await makeApp();
  for (const m of REFERENCE_MOUNTS) {
    const res = await t.app.handle(new Request(`http://localhost${m.pagePath}/json`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('application/json');
    docs.set(m.pagePath, (await res.json()) as Doc);
  }
});

/** `METHOD /path/{param}` of every operation in a document. */
function documented(doc: Doc): string[] {
  return Object.entries(doc.paths as Record<string, Doc>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((k) => `${k.toUpperCase()} ${path}`),
  );
}

function operations(doc: Doc): { key: string; op: Doc }[] {
  return Object.entries(doc.paths as Record<string, Doc>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([k]) => METHODS.includes(k))
      .map(([k, op]) => ({ key: `${k.toUpperCase()} ${path}`, op })),
  );
}

/** Every `$ref` string anywhere in `node`. */
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) refsOf(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: Doc, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: any = doc;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

/** Frames of a Server-Sent Events text as `{event, data}` objects. */
function eventFrames(text: string): { event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** A recorded answer's media type and its value as schemas see it (an event stream as its frames). */
function asRead(ep: EndpointInfo, response: unknown): { type: string; value: unknown } {
  if (typeof response !== 'string') return { type: 'application/json', value: response };
  if (ep.produces === 'event-stream') return { type: 'text/event-stream', value: eventFrames(response) };
  if (ep.produces === 'csv') return { type: 'text/csv', value: response };
  return { type: 'text/plain', value: response };
}

for (const mount of REFERENCE_MOUNTS) {
  const ref = mount.reference;
  const doc = () => docs.get(mount.pagePath)!;
  const endpoints: { full: string; ep: EndpointInfo }[] = ref.sections.flatMap((s) =>
    s.endpoints.map((ep) => ({ full: `${ep.method} ${(s.prefix + ep.path).replace(/:([^/]+)/g, '{$1}')}`, ep })),
  );

  describe(`API reference ${mount.pagePath}`, () => {
    it('lists every route the family serves, and nothing else', () => {
      const served = (t.app.routes as { method: string; path: string }[])
        .filter((r) => ref.sections.some((s) => r.path.startsWith(`${s.prefix}/`)))
        .filter((r) => !r.path.startsWith(SIM_ALIAS) && r.path !== mount.pagePath && r.path !== `${mount.pagePath}/json`)
        .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([^/]+)/g, '{$1}')}`);
      expect(served.length).toBeGreaterThan(0);
      expect(documented(doc()).sort()).toEqual([...new Set(served)].sort());
    });

    it('documents every route from the endpoint registry (summary, error rows, responses)', () => {
      const ops = new Map(operations(doc()).map((o) => [o.key, o.op]));
      expect([...ops.keys()].sort()).toEqual(endpoints.map((e) => e.full).sort());
      for (const { full, ep } of endpoints) {
        const op = ops.get(full)!;
        expect(op.summary).toBe(ep.summary);
        expect(Object.keys(op.responses).map(Number).sort()).toEqual(Object.keys(ep.responses).map(Number).sort());
        for (const row of ep.errorRows()) {
          const message = row.errorMessage !== null ? `\`${row.errorMessage}\`` : `_${row.text}_`;
          expect(op.description).toContain(`| ${row.status} | ${row.errorCode} | ${message.replaceAll('|', '\\|')} |`);
        }
      }
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      const d = doc();
      expect(d.openapi).toMatch(/^3\.1\.\d+$/);
      expect(d.info.title).toBe(ref.title);
      const result = await validate(structuredClone(d) as never);
      expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
      expect(result.warnings).toEqual([]);
    });

    it('resolves every $ref, names only declared security schemes and tags, and has unique operation IDs', () => {
      const d = doc();
      const unresolved = refsOf(d).filter((r) => resolvePointer(d, r) === undefined);
      expect(unresolved).toEqual([]);
      const schemes = new Set(Object.keys(d.components.securitySchemes));
      const tags = new Set(d.tags.map((x: Doc) => x.name));
      const ids: string[] = [];
      for (const { key, op } of operations(d)) {
        for (const requirement of op.security) for (const name of Object.keys(requirement)) expect(schemes.has(name) ? name : `${key}: ${name}`).toBe(name);
        for (const tag of op.tags) expect(tags.has(tag) ? tag : `${key}: tag ${tag}`).toBe(tag);
        ids.push(op.operationId);
      }
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('applies the security scheme each endpoint asks for (public ones none)', () => {
      const ops = new Map(operations(doc()).map((o) => [o.key, o.op]));
      const expected: Record<string, string[][]> = {
        none: [],
        web: [],
        bearer: [['bearerAuth'], ['sessionCookie']],
        'bearer-only': [['bearerAuth']],
        'bearer-row': [['bearerAuth']],
        cookie: [['sessionCookie']],
        'cookie-pro': [['sessionCookie']],
      };
      for (const { full, ep } of endpoints) {
        expect([full, ops.get(full)!.security.map((r: Doc) => Object.keys(r))]).toEqual([full, expected[ep.auth]]);
      }
      expect(doc().components.securitySchemes).toEqual({
        bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
        sessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'rd_session' }),
      });
    });

    it('has the envelope as a component, referenced by every success and error body', () => {
      const d = doc();
      expect(d.components.schemas.Envelope.required).toEqual(['success', 'errorCode', 'errorMessage']);
      for (const { full, ep } of endpoints) {
        const op = operations(d).find((o) => o.key === full)!.op;
        if (ep.produces === 'text') continue;
        for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
          const refs = refsOf(response.content['application/json'].schema);
          expect([full, status, refs.some((r) => r.endsWith('/Envelope') || r.endsWith('/ErrorEnvelope'))]).toEqual([full, status, true]);
        }
      }
    });

    it('gives every example recorded from the app the shape of its endpoint and of the document', () => {
      const d = doc();
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      const compiled = new Map<object, ReturnType<typeof ajv.compile>>();
      const checkOf = (schema: Doc) => {
        let check = compiled.get(schema);
        if (!check) compiled.set(schema, (check = ajv.compile({ ...schema, components: d.components })));
        return check;
      };
      const book = ref.examples();
      let checked = 0;
      for (const { full, ep } of endpoints) {
        const [method, path] = full.split(' ');
        const key = `${method} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;
        const op = operations(d).find((o) => o.key === full)!.op;
        const recorded = book[key] ?? [];
        const succeeded = recorded.filter((ex) => ex.status === 200 && (ex.response as Doc).success === true);
        for (const ex of recorded) {
          const { type, value } = asRead(ep, ex.response);
          // The endpoint's own (TypeBox) schema: what the response contract enforces (each event of a stream).
          for (const body of type === 'text/event-stream' ? (value as unknown[]) : [value]) {
            expect([key, ex.summary, contractError(ep, ex.status, body)]).toEqual([key, ex.summary, null]);
          }
          // The document's schema for it, after naming components and enums.
          const check = checkOf(op.responses[String(ex.status)].content[type].schema);
          expect([key, ex.summary, check(value) ? null : check.errors]).toEqual([key, ex.summary, null]);
          checked++;
        }
        // Request examples are the requests that succeeded, and they fit the request schema.
        const shown = Object.values(op.requestBody?.content['application/json'].examples ?? {}).map((e: any) => e.value);
        expect([key, shown]).toEqual([key, succeeded.filter((ex) => ex.request !== undefined).map((ex) => ex.request)]);
        for (const body of shown) {
          const check = checkOf(op.requestBody.content['application/json'].schema);
          expect([key, body, check(body) ? null : check.errors]).toEqual([key, body, null]);
        }
      }
      expect(checked).toBeGreaterThan(0);
    });

    it('shows each recorded example and each fixed error row as an example of its operation', () => {
      const d = doc();
      const book = ref.examples();
      for (const { full, ep } of endpoints) {
        const [method, path] = full.split(' ');
        const op = operations(d).find((o) => o.key === full)!.op;
        const recorded = book[`${method} ${path.replace(/\{([^}]+)\}/g, ':$1')}`] ?? [];
        for (const ex of recorded) {
          const { type } = asRead(ep, ex.response);
          const shown = Object.values(op.responses[String(ex.status)].content[type].examples ?? {}).map((e: any) => e.value);
          expect(shown).toContainEqual(ex.response);
        }
        for (const row of ep.errorRows().filter((r) => r.errorMessage !== null)) {
          const shown = Object.values(op.responses[String(row.status)].content['application/json'].examples ?? {}).map((e: any) => e.value);
          expect(shown).toContainEqual(expect.objectContaining({ success: false, errorCode: row.errorCode, errorMessage: row.errorMessage }));
        }
      }
    });

    it('serves the reference page, which loads Scalar from this server', async () => {
      const res = await t.app.handle(new Request(`http://localhost${mount.pagePath}`));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('text/html');
      const html = await res.text();
      expect(html).toContain(`<title>${ref.title}</title>`);
      expect(html).toContain(`<script src="${SCALAR_SCRIPT_PATH}" crossorigin></script>`);
      const config = JSON.parse(/data-configuration='([^']*)'/.exec(html)![1]);
      expect(config).toMatchObject({ url: `${mount.pagePath}/json`, telemetry: false, withDefaultFonts: false });
      // Nothing is loaded from another host.
      expect(html).not.toMatch(/(src|href)="https?:/);
    });
  });
}

describe('API reference, current family', () => {
  const sim = () => docs.get('/api/sim/openapi')!;
  const op = (path: string) => sim().paths[`/api/sim/${path}`].post;
  const jsonSchema = (o: Doc, status = '200') => o.responses[status].content['application/json'].schema;

  it('names the enums: values, x-enum-varnames and a table in the description', () => {
    const s = sim().components.schemas;
    expect(s.OrderType).toMatchObject({ type: 'integer', enum: [1, 2, 3, 4], 'x-enum-varnames': ['Limit', 'Market', 'StopLimit', 'Stop'] });
    expect(s.OrderSide).toMatchObject({ enum: [0, 1], 'x-enum-varnames': ['Buy', 'Sell'] });
    expect(s.OrderStatus).toMatchObject({ enum: [1, 2, 3, 6], 'x-enum-varnames': ['Partial', 'Filled', 'Canceled', 'Pending'] });
    expect(s.PositionType).toMatchObject({ enum: [1, 2], 'x-enum-varnames': ['Long', 'Short'] });
    expect(s.BarUnit).toMatchObject({ enum: [1, 2, 3, 4], 'x-enum-varnames': ['Second', 'Minute', 'Hour', 'Day'] });
    expect(s.OrderType.description).toContain('| `3` | StopLimit | needs stopPrice and limitPrice |');
  });

  it('uses the enums where the fields are', () => {
    const place = op('Order/place').requestBody.content['application/json'].schema.properties;
    expect(place.type.$ref).toBe('#/components/schemas/OrderType');
    expect(place.side.$ref).toBe('#/components/schemas/OrderSide');
    const bars = op('History/retrieveBars').requestBody.content['application/json'].schema.properties;
    expect(bars.unit.$ref).toBe('#/components/schemas/BarUnit');
    const s = sim().components.schemas;
    expect(s.Order.properties.status.$ref).toBe('#/components/schemas/OrderStatus');
    expect(s.Order.properties.type.$ref).toBe('#/components/schemas/OrderType');
    expect(s.Trade.properties.side.$ref).toBe('#/components/schemas/OrderSide');
    expect(s.Position.properties.type.$ref).toBe('#/components/schemas/PositionType');
    expect(refsOf(jsonSchema(op('Order/search')))).toContain('#/components/schemas/Order');
  });

  it('lists the alias once: no /api/sim/api/ path, though the app serves each route there too', () => {
    const routes = (t.app.routes as { method: string; path: string }[]).map((r) => `${r.method} ${r.path}`);
    const alias = routes.filter((r) => r.includes(SIM_ALIAS)).map((r) => r.replace(SIM_ALIAS, '/api/sim/'));
    const main = routes.filter((r) => / \/api\/sim\//.test(r) && !r.includes(SIM_ALIAS) && !r.includes('/openapi'));
    expect(alias.sort()).toEqual(main.sort());
    expect(Object.keys(sim().paths).filter((p) => p.startsWith(SIM_ALIAS))).toEqual([]);
  });

  it('public endpoints need nothing; Auth/logout takes the bearer token only', () => {
    expect(op('Auth/loginKey').security).toEqual([]);
    expect(sim().paths['/api/sim/Status/ping'].get.security).toEqual([]);
    expect(op('Auth/logout').security).toEqual([{ bearerAuth: [] }]);
    expect(op('Order/place').security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
  });

  it('puts the error rows, with code and message, in the description', () => {
    const d = op('Order/place').description;
    expect(d).toContain('| 200 | 7 | `Invalid order size` |');
    expect(d).toContain('| 200 | 4 | `Account violation` |');
    expect(d).toContain('| 401 | 401 | `Unauthorized` |');
    expect(op('History/retrieveBars').description).toContain('| 429 | 429 | `Daily data limit reached. Resets at 00:00 UTC.` |');
  });

  it('documents 429 and 503 with Retry-After, msgpack where it is offered, and ping as text', () => {
    const bars = op('History/retrieveBars').responses;
    expect(bars['429'].headers['Retry-After'].$ref).toBe('#/components/headers/RetryAfter');
    expect(bars['503'].headers['Retry-After'].$ref).toBe('#/components/headers/RetryAfter');
    expect(Object.keys(bars['200'].content)).toEqual(['application/json', 'application/x-msgpack']);
    expect(Object.keys(sim().paths['/api/sim/Status/ping'].get.responses['200'].content)).toEqual(['text/plain']);
  });
});

describe('API reference, earlier family', () => {
  const legacy = () => docs.get('/api/legacy-sim/openapi')!;
  const op = (path: string) => legacy().paths[`/api/legacy-sim/${path}`].post;

  it('names its enums where its fields are: timeframe, orderStatus, the order and position fields', () => {
    const s = legacy().components.schemas;
    expect(s.LegacyTimeframe).toMatchObject({ type: 'string', enum: ['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1D'] });
    expect(op('Replay/start').requestBody.content['application/json'].schema.properties.timeframe.$ref).toBe('#/components/schemas/LegacyTimeframe');
    const placed = op('Order/place').responses['200'].content['application/json'].schema.anyOf[0].allOf[1];
    expect(placed.properties.orderStatus.$ref).toBe('#/components/schemas/OrderStatus');
    expect(s.Order.properties.status.$ref).toBe('#/components/schemas/OrderStatus');
    expect(s.Order.properties.side.$ref).toBe('#/components/schemas/OrderSide');
    expect(s.Position.properties.type.$ref).toBe('#/components/schemas/PositionType');
    expect(s.Order.properties.id.type).toBe('string');
  });

  it('lists its own messages: errors by message with their codes', () => {
    expect(op('Order/cancel').description).toContain('`Order is already filled`');
    expect(op('Order/place').description).toContain('| 200 | 1 | `Size must be greater than 0` |');
  });
});

describe('API reference, Playground and web login', () => {
  const pg = () => docs.get('/api/playground/openapi')!;

  it('documents the web endpoints with the Playground: login public, the rest behind the cookie', () => {
    const p = pg().paths;
    expect(p['/api/auth/login'].post.security).toEqual([]);
    expect(p['/api/auth/me'].get.security).toEqual([{ sessionCookie: [] }]);
    expect(p['/api/auth/api-key'].post.tags).toEqual(['API key']);
    expect(p['/api/playground/templates'].get.security).toEqual([]);
    expect(p['/api/playground/run'].post.security).toEqual([{ sessionCookie: [] }]);
    expect(p['/api/playground/strategies/{id}'].delete.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(p['/api/playground/run'].post.description).toContain('| 403 | 403 | `Pro subscription required for the Playground` |');
  });

  it('names the run status, template difficulty and parameter type enums', () => {
    const s = pg().components.schemas;
    expect(s.RunStatus).toMatchObject({ enum: ['running', 'completed', 'failed', 'stopped', 'timeout'] });
    expect(s.Run.properties.status.$ref).toBe('#/components/schemas/RunStatus');
    expect(s.Template.properties.difficulty.$ref).toBe('#/components/schemas/TemplateDifficulty');
    expect(s.TemplateParam.properties.type.$ref).toBe('#/components/schemas/TemplateParamType');
  });

  it('describes the event stream as frames of {event, data}, its errors as JSON', () => {
    const ok = pg().paths['/api/playground/executions/{id}/events'].get.responses['200'].content;
    expect(ok['text/event-stream'].schema).toMatchObject({ type: 'array', items: { anyOf: [{ $ref: '#/components/schemas/ProgressEvent' }, { $ref: '#/components/schemas/DoneEvent' }] } });
    expect(refsOf(ok['application/json'].schema)).toContain('#/components/schemas/ErrorEnvelope');
  });
});

describe('Scalar bundle', () => {
  it('is served from this server as JavaScript, whole', async () => {
    const res = await t.app.handle(new Request(`http://localhost${SCALAR_SCRIPT_PATH}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/javascript');
    expect(res.headers.get('cache-control')).toContain('immutable');
    const body = await res.arrayBuffer();
    expect(body.byteLength).toBe(statSync(SCALAR_BUNDLE_FILE).size);
    expect(new TextDecoder().decode(body.slice(0, 200))).toContain('scalar-style');
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('is gzipped for a browser that accepts it, and unzips to the same bytes', async () => {
    const res = await t.app.handle(new Request(`http://localhost${SCALAR_SCRIPT_PATH}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toBe('accept-encoding');
    expect(res.headers.get('content-type')).toStartWith('text/javascript');
    const zipped = new Uint8Array(await res.arrayBuffer());
    const plain = readFileSync(SCALAR_BUNDLE_FILE);
    expect(zipped.byteLength).toBeLessThan(plain.byteLength / 2);
    expect(Buffer.from(Bun.gunzipSync(zipped)).equals(plain)).toBe(true);
  });
});
