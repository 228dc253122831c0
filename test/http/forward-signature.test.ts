// A forwarded request's signature (src/http/shared/forward.ts) is good for that one request: its
// method and path, its body (by hash), the account it was forwarded for and the credential it acts
// with, within forwardSkewMs of the node's clock. Captured from a real hop and replayed with anything
// changed, it is not trusted: the request is served as an ordinary one, with the sender's own address.

import { afterAll, expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { arrival, forwardTo } from '../../src/http/shared/forward.ts';
import { enterRequest } from '../../src/http/shared/request-context.ts';
import { clientAddress } from '../../src/http/shared/route.ts';
import { makeApp } from '../support/app.ts';

const captured: { headers: Record<string, string>; body: string }[] = [];
const owner = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    captured.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
    return Response.json({ success: true });
  },
});
afterAll(() => owner.stop(true));

it('binds the signature to the body, the account, the credential and a few seconds', async () => {
  const t = await makeApp();
  const body = JSON.stringify({ accountId: 7, steps: 1 });
  const sent = new Request('http://desk.example/api/sim/Replay/step', {
    method: 'POST',
    headers: { authorization: 'Bearer token-of-a', 'content-type': 'application/json' },
    body,
  });
  const res = await forwardTo(t.s, enterRequest(sent, '203.0.113.9'), { nodeUrl: `http://127.0.0.1:${owner.port}`, accountId: 7, commits: null });
  expect(res.status).toBe(200);
  const hop = captured[0];

  /** The captured hop replayed at the owner from 198.51.100.1, with `change` applied. */
  const replay = async (change: { body?: string; headers?: Record<string, string> } = {}) => {
    const r = new Request(`http://127.0.0.1:${owner.port}/api/sim/Replay/step`, { method: 'POST', headers: { ...hop.headers, ...change.headers }, body: change.body ?? hop.body });
    const ctx = enterRequest(r, '198.51.100.1');
    const a = await arrival(t.s, ctx);
    return { forwarded: a.forwarded, host: new URL(ctx.request.url).host, address: clientAddress(ctx, false), body: ctx.bodyText ?? (await ctx.request.text()) };
  };

  const lateness = async (change: { body?: string } = {}) => {
    const r = new Request(`http://127.0.0.1:${owner.port}/api/sim/Replay/step`, { method: 'POST', headers: hop.headers, body: change.body ?? hop.body });
    const a = await arrival(t.s, enterRequest(r, null));
    return { forwarded: a.forwarded, late: a.late };
  };

  // As sent: trusted, the client's host and address restored, the body intact.
  expect(await replay()).toEqual({ forwarded: true, host: 'desk.example', address: '203.0.113.9', body });
  // Anything changed: served as an ordinary request from its sender.
  const other = JSON.stringify({ accountId: 7, steps: 100 });
  expect(await replay({ body: other })).toEqual({ forwarded: false, host: `127.0.0.1:${owner.port}`, address: '198.51.100.1', body: other });
  expect((await replay({ headers: { authorization: 'Bearer token-of-b' } })).forwarded).toBe(false);
  expect((await replay({ headers: { cookie: 'rd_session=someone-else' } })).forwarded).toBe(false);
  expect((await replay({ headers: { 'x-replaydesk-forward-account': '8' } })).forwarded).toBe(false);
  expect((await replay({ headers: { 'x-replaydesk-client-address': '192.0.2.77' } })).forwarded).toBe(false);
  // The same request later than the window: refused (late: its sender has given up on it), where
  // a request whose signature fails is merely untrusted.
  expect((await lateness({ body: other })).late).toBe(false);
  t.clock.advance(limits.forwardSkewMs + 1_000);
  expect(await lateness()).toEqual({ forwarded: false, late: true });
  expect(await lateness({ body: other })).toEqual({ forwarded: false, late: false });
  expect(limits.forwardSkewMs).toBeLessThanOrEqual(10_000);
});
