// The listening server's limits answer with the envelope (src/server.ts): a body over
// requestBodyBytesMax → 413, a header block over requestHeaderBytesMax → 431, on a real Bun.serve
// listening on 127.0.0.1 (port 0), as src/main.ts configures it.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Server } from 'bun';
import { silentLogger, buildApp } from '../../src/app.ts';
import { limits } from '../../src/config.ts';
import { createFetch } from '../../src/server.ts';
import { makeApp, type TestApp } from '../support/app.ts';

const BODY = { success: false, errorCode: 413, errorMessage: `Request body exceeds ${limits.requestBodyBytesMax} bytes` };
const HEADERS = { success: false, errorCode: 431, errorMessage: `Request headers exceed ${limits.requestHeaderBytesMax} bytes` };

describe('the listening server bounds bodies and headers with the envelope', () => {
  let t: TestApp;
  let server: Server<unknown>;
  let base: string;
  let token: string;
  beforeAll(async () => {
    t = await makeApp();
    token = await t.login();
    server = Bun.serve({ hostname: '127.0.0.1', port: 0, maxRequestBodySize: limits.transportBodyBytesMax, fetch: createFetch(buildApp(t.s, silentLogger), silentLogger, false) });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  async function post(body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}/api/sim/Contract/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
  }

  /** A JSON body of exactly `n` bytes: `{"searchText":"NQ","pad":"xxx…"}`. */
  const jsonOf = (n: number) => {
    const head = '{"searchText":"NQ","pad":"';
    return `${head}${'x'.repeat(n - head.length - 2)}"}`;
  };

  it('a body of exactly the limit is served', async () => {
    const r = await post(jsonOf(limits.requestBodyBytesMax));
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
  });

  it('a body one byte over the limit (Content-Length) → 413 with the envelope', async () => {
    const r = await post(jsonOf(limits.requestBodyBytesMax + 1));
    expect(r.status).toBe(413);
    expect(r.type).toContain('application/json');
    expect(r.body).toEqual(BODY);
  });

  it('a chunked body (no Content-Length) over the limit → 413 with the envelope; under it, served', async () => {
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 65_536) c.enqueue(bytes.subarray(i, i + 65_536));
          c.close();
        },
      });
    expect(await post(chunked(jsonOf(limits.requestBodyBytesMax + 10)))).toEqual({ status: 413, type: expect.stringContaining('application/json'), body: BODY });
    const small = await post(chunked(jsonOf(200)));
    expect([small.status, small.body.success]).toEqual([200, true]);
  });

  it('headers over the limit → 431 with the envelope; a request after it is served', async () => {
    const r = await post('{}', { 'x-padding': 'a'.repeat(limits.requestHeaderBytesMax) });
    expect(r.status).toBe(431);
    expect(r.body).toEqual(HEADERS);
    expect((await post('{"searchText":"NQ"}')).body.success).toBe(true);
  });
});
