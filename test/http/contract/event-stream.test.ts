// Endpoint kinds added for the Playground (src/http/shared/endpoint.ts): a Server-Sent Events answer
// is checked event by event as it streams (a bad event is recorded and errors the stream, a client
// cancelling the answer cancels the endpoint's stream), and a `keep` field reaches the handler as
// sent while a `defer` field arrives as INVALID.

import { afterEach, describe, expect, it } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { defineEndpoint, INVALID, okBody, route } from '../../../src/http/shared/endpoint.ts';
import { responseContract } from '../../../src/http/shared/response-contract.ts';
import { OPTIMIZE_ENDPOINTS } from '../../../src/http/playground/optimize-schemas.ts';
import { PLAYGROUND_ENDPOINTS } from '../../../src/http/playground/schemas.ts';
import { makeApp } from '../../support/app.ts';

const STRICT = { additionalProperties: false } as const;

const tickEvents = T.Union([
  T.Object({ event: T.Literal('tick'), data: T.Object({ n: T.Integer() }, STRICT) }, STRICT),
  T.Object({ event: T.Literal('done'), data: T.Object({ total: T.Integer() }, STRICT) }, STRICT),
]);
const streamSpec = { method: 'GET', auth: 'none', summary: 'test', produces: 'event-stream', request: {}, fields: {}, response: tickEvents, errors: {} } as const;
const ticks = defineEndpoint({ ...streamSpec, path: '/ticks/:id' });
const endless = defineEndpoint({ ...streamSpec, path: '/endless' });

const enc = new TextEncoder();

/** An app serving `ticks` with the frames given (each enqueued as one chunk, `split` frames in two). */
async function serveFrames(frames: string[], split = false) {
  const t = await makeApp();
  const app = new Elysia();
  let cancelled = false;
  route(app, t.s, ticks, () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const f of frames) {
          if (split) {
            c.enqueue(enc.encode(f.slice(0, 7)));
            c.enqueue(enc.encode(f.slice(7)));
          } else c.enqueue(enc.encode(f));
        }
        c.close();
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  });
  route(app, t.s, endless, () => {
    let n = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        timer = setInterval(() => c.enqueue(enc.encode(`event: tick\ndata: {"n":${n++}}\n\n`)), 5);
      },
      cancel() {
        cancelled = true;
        clearInterval(timer);
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
  });
  return { app, cancelled: () => cancelled };
}

describe('a Server-Sent Events endpoint under the response contract', () => {
  afterEach(() => {
    // The violations below are these tests' purpose: keep them from failing them in the preload's hook.
    responseContract.violations.length = 0;
  });

  it('passes good events through unchanged, also when a frame arrives in pieces', async () => {
    const frames = ['event: tick\ndata: {"n":1}\n\n', 'event: tick\ndata: {"n":2}\n\n', 'event: done\ndata: {"total":2}\n\n'];
    for (const split of [false, true]) {
      const { app } = await serveFrames(frames, split);
      const res = await app.handle(new Request('http://localhost/ticks/1'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(await res.text()).toBe(frames.join(''));
    }
    expect(responseContract.violations).toEqual([]);
  });

  it.each([
    ['an added field', 'event: tick\ndata: {"n":2,"extra":true}\n\n', 'closest: /data/extra: Unexpected property'],
    ['a changed type', 'event: tick\ndata: {"n":"2"}\n\n', 'closest: /data/n: Expected integer'],
    ['an undeclared event name', 'event: tock\ndata: {"n":2}\n\n', "closest: /event: Expected 'tick'"],
    ['data that is not JSON', 'event: tick\ndata: {n: 2}\n\n', 'event data is not JSON'],
  ])('%s errors the stream and is recorded with the endpoint and the path', async (_name, bad, problem) => {
    const { app } = await serveFrames(['event: tick\ndata: {"n":1}\n\n', bad]);
    const res = await app.handle(new Request('http://localhost/ticks/7'));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow('response contract: GET /ticks/:id (/ticks/7) answered HTTP 200');
    expect(responseContract.violations.length).toBe(1);
    expect(responseContract.violations[0]).toContain(problem);
  });

  it('a client cancelling the answer cancels the endpoint\'s stream', async () => {
    const { app, cancelled } = await serveFrames([]);
    const res = await app.handle(new Request('http://localhost/endless'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toStartWith('event: tick\ndata: {"n":0}');
    await reader.cancel();
    await Bun.sleep(20);
    expect(cancelled()).toBe(true);
  });

  it('the Playground declares its event stream as one: progress and done events of an execution', () => {
    const events = PLAYGROUND_ENDPOINTS.filter((e) => e.produces === 'event-stream');
    expect(events.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /executions/:id/events']);
    // Its error answers are JSON rows like any other endpoint's.
    expect(events[0].errorRows().map((r) => [r.status, r.errorCode, r.errorMessage])).toEqual([
      [200, 1, 'Execution not found'],
      [401, 401, 'Unauthorized'],
      [403, 403, 'Pro subscription required for the Playground'],
    ]);
  });

  it('so do optimisations: progress and done events of an optimisation', () => {
    const events = OPTIMIZE_ENDPOINTS.filter((e) => e.produces === 'event-stream');
    expect(events.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /optimizations/:id/events']);
    expect(events[0].errorRows().map((r) => [r.status, r.errorCode, r.errorMessage])).toEqual([
      [200, 1, 'Optimisation not found'],
      [401, 401, 'Unauthorized'],
      [403, 403, 'Pro subscription required for the Playground'],
    ]);
  });
});

describe('field rules: keep and defer', () => {
  it('a failing keep field reaches the handler as sent, a failing defer field as INVALID, a drop field not at all', async () => {
    const t = await makeApp();
    const probe = defineEndpoint({
      method: 'POST',
      path: '/probe',
      auth: 'none',
      summary: 'test',
      request: { kept: T.String(), deferred: T.String(), dropped: T.Optional(T.Boolean()) },
      fields: { kept: { keep: 'bad' }, deferred: { defer: 'bad' }, dropped: { drop: true } },
      response: okBody({ kept: T.Optional(T.Unknown()), deferredInvalid: T.Boolean(), hasDropped: T.Boolean() }),
      errors: { bad: [1, 'Bad'] } as const,
    });
    const app = new Elysia();
    route(app, t.s, probe, ({ body }) =>
      probe.ok({ kept: body.kept, deferredInvalid: body.deferred === INVALID, hasDropped: 'dropped' in body }),
    );
    const call = async (body: unknown) =>
      (await (await app.handle(new Request('http://localhost/probe', { method: 'POST', body: JSON.stringify(body) }))).json()) as Record<string, unknown>;
    expect(await call({ kept: ['1h'], deferred: 5, dropped: 'yes' })).toMatchObject({ kept: ['1h'], deferredInvalid: true, hasDropped: false });
    expect(await call({ kept: 'a', deferred: 'b', dropped: true })).toMatchObject({ kept: 'a', deferredInvalid: false, hasDropped: true });
    const missing = await call({ deferred: 'b' });
    expect(missing).toMatchObject({ deferredInvalid: false, hasDropped: false });
    expect('kept' in missing).toBe(false);
  });
});
