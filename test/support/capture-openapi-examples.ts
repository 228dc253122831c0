// Records the API reference's examples from real responses: builds the app as the tests do (an
// in-memory database, synthetic history, a fixed clock, a Pro demo user), drives each family through
// a short session and writes every request and answer to src/http/openapi/examples/<family>.json.
// Nothing in those files is written by hand; test/http/openapi.test.ts checks each one against its
// endpoint's schemas and the document's.
//
//   ./node_modules/.bin/bun test/support/capture-openapi-examples.ts

import { join } from 'node:path';
import type { Json } from '../../src/http/openapi/components.ts';
import type { CapturedExample } from '../../src/http/openapi/document.ts';
import { makeApp, makeWebUser, type TestApp } from './app.ts';

const EXAMPLES_DIR = join(import.meta.dir, '..', '..', 'src', 'http', 'openapi', 'examples');
const HOST = 'http://localhost';

type App = TestApp['app'];

class Recorder {
  readonly book: Record<string, CapturedExample[]> = {};
  /** The last session cookie a response set. */
  cookie = '';

  constructor(readonly app: App) {}

  /** Sends one request, records it under `METHOD route` and returns the parsed answer. */
  async call(summary: string, method: string, path: string, body: Json | undefined, headers: Record<string, string> = {}, route = path): Promise<any> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await this.app.handle(new Request(HOST + path, init));
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const response: Json = type.startsWith('application/json') ? JSON.parse(text) : text;
    const cookie = /rd_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '');
    if (cookie) this.cookie = cookie[1];
    const list = (this.book[`${method} ${route}`] ??= []);
    list.push({ summary, ...(body !== undefined ? { request: body } : {}), status: res.status, response });
    return response;
  }
}

async function userIdOf(t: TestApp, email: string): Promise<number> {
  return (await t.s.users.list()).find((u) => u.email === email)!.id;
}

/** The current family: login, contracts, history, a replay session with orders, fills and a position, payouts. */
async function captureSim(): Promise<Record<string, CapturedExample[]>> {
  const t = await makeApp();
  const r = new Recorder(t.app);
  const p = (op: string) => `/api/sim/${op}`;

  const login = await r.call('Log in', 'POST', p('Auth/loginKey'), { userName: t.email, apiKey: t.apiKey });
  const validated = await r.call('Rotate the token', 'POST', p('Auth/validate'), {}, { authorization: `Bearer ${login.token}` });
  const auth = { authorization: `Bearer ${validated.newToken}` };
  const call = (summary: string, op: string, body: Json) => r.call(summary, 'POST', p(op), body, auth);

  await r.call('Alive', 'GET', p('Status/ping'), undefined);
  await call('Contracts matching NQ', 'Contract/search', { searchText: 'NQ' });
  await call('Contracts matching gold', 'Contract/available', { searchText: 'Gold' });
  await call('One contract', 'Contract/searchById', { contractId: 'CON.F.US.ENQ.H25' });
  await call('Unknown contract', 'Contract/searchById', { contractId: 'CON.F.US.XYZ.H25' });
  await call('Three 5-minute bars', 'History/retrieveBars', {
    contractId: 'CON.F.US.ENQ.H25',
    unit: 2,
    unitNumber: 5,
    startTime: '2025-02-27T14:30:00Z',
    endTime: '2025-02-27T14:45:00Z',
    limit: 3,
  });

  const started = await call('A 1-minute NQ session', 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-27', timeframe: '1m' });
  await call('No start date', 'Replay/start', { instrumentSymbol: 'NQ' });
  const challengeId = (await t.s.challenges.create(await userIdOf(t, t.email), '50K', 'performance', 'standard')).account.id;
  await call('The session account and a challenge account', 'Account/search', {});
  const accountId: number = started.accountId;
  const contractId: string = started.instrument.contractId;
  const stepped = await call('Two bars', 'Replay/step', { accountId, steps: 2 });
  const last: number = stepped.bars[stepped.bars.length - 1].c;

  await call('Buy 2 at market with brackets', 'Order/place', {
    accountId,
    contractId,
    type: 2,
    side: 0,
    size: 2,
    stopLossBracket: { ticks: 40 },
    takeProfitBracket: { ticks: 80 },
  });
  const limit = await call('Buy limit 1 below the market', 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: last - 50 });
  await call('Size 0', 'Order/place', { accountId, contractId, type: 2, side: 0, size: 0 });
  await call('One bar with a fill', 'Replay/step', { accountId, steps: 1 });
  await call('Working orders', 'Order/searchOpen', { accountId });
  await call('Every order', 'Order/search', { accountId });
  await call('Open position', 'Position/searchOpen', { accountId });
  await call('Fills', 'Trade/search', { accountId });
  await call('Cancel the limit order', 'Order/cancel', { accountId, orderId: limit.orderId });
  await call('Cancel it again', 'Order/cancel', { accountId, orderId: limit.orderId });
  await call('Not supported', 'Order/modify', { accountId, orderId: limit.orderId, size: 2 });
  await call('Close 1 of 2', 'Position/partialCloseContract', { accountId, contractId, size: 1 });
  await call('Close the rest', 'Position/closeContract', { accountId, contractId });
  await call('Nothing to close', 'Position/closeContract', { accountId, contractId });
  await call('Jump half an hour', 'Replay/jumpTo', { accountId, targetTime: '2025-02-27T00:30:00Z' });
  await call('Play at 2x', 'Replay/play', { accountId, speed: 2 });
  await call('Pause', 'Replay/pause', { accountId });
  await call('End the session', 'Replay/end', { accountId });

  await call('A performance-phase challenge', 'Payout/eligibility', { accountId: challengeId });
  await call('Not eligible yet', 'Payout/request', { accountId: challengeId, amount: 500 });
  await call('No payouts yet', 'Payout/history', { accountId: challengeId });
  await call('Log out', 'Auth/logout', {});
  return r.book;
}

/** The earlier family: the same kind of session with its own shapes (string order IDs, `timestamp`, results). */
async function captureLegacy(): Promise<Record<string, CapturedExample[]>> {
  const t = await makeApp();
  const r = new Recorder(t.app);
  const p = (op: string) => `/api/legacy-sim/${op}`;

  const login = await r.call('Log in', 'POST', p('Auth/loginKey'), { userName: t.email, apiKey: t.apiKey });
  await r.call('Missing key', 'POST', p('Auth/loginKey'), { userName: t.email });
  const auth = { authorization: `Bearer ${login.token}` };
  const call = (summary: string, op: string, body: Json) => r.call(summary, 'POST', p(op), body, auth);
  await call('Check the token', 'Auth/validate', {});
  await r.call('Alive', 'GET', p('Status/ping'), undefined);
  await call('Contracts matching CL', 'Contract/search', { searchText: 'CL' });
  await call('One contract', 'Contract/searchById', { contractId: 'CON.F.US.CL.K25' });

  const started = await call('A 1-minute CL session', 'Replay/start', { instrumentSymbol: 'CL', startDate: '2025-02-27', timeframe: '1m' });
  await call('Unknown timeframe', 'Replay/start', { instrumentSymbol: 'CL', startDate: '2025-02-27', timeframe: '2m' });
  const accountId: number = started.accountId;
  const contractId: string = started.contractId;
  const challengeId = (await t.s.challenges.create(await userIdOf(t, t.email), '50K', 'performance', 'standard')).account.id;
  await call('Active accounts', 'Account/search', { onlyActiveAccounts: true });
  const stepped = await call('Two bars', 'Replay/step', { accountId, steps: 2 });
  const last: number = stepped.bars[stepped.bars.length - 1].c;

  await call('Buy 2 at market', 'Order/place', { accountId, contractId, type: 2, side: 0, size: 2 });
  const limit = await call('Buy limit 1 below the market', 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: Math.round((last - 0.5) * 100) / 100 });
  await call('Limit without a price', 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1 });
  await call('One bar', 'Replay/step', { accountId, steps: 1 });
  await call('Working orders', 'Order/searchOpen', { accountId });
  await call('Every order', 'Order/search', { accountId });
  await call('Raise the limit order to 2', 'Order/modify', { orderId: limit.orderId, size: 2 });
  await call('Open positions', 'Position/searchOpen', { accountId });
  await call('Cancel the limit order', 'Order/cancel', { orderId: limit.orderId });
  await call('Cancel it again', 'Order/cancel', { orderId: limit.orderId });
  await call('Close 1 of 2', 'Position/partialCloseContract', { accountId, contractId, size: 1 });
  await call('Close the rest', 'Position/closeContract', { accountId, contractId });
  await call('Nothing to close', 'Position/closeContract', { accountId, contractId });
  await call('Fills, oldest first', 'Trade/search', { accountId });
  await call('The last three 5-minute bars', 'History/retrieveBars', { contractId, unit: 2, unitNumber: 5, barsBack: 3 });
  await call('Jump half an hour', 'Replay/jumpTo', { accountId, timestamp: '2025-02-27T00:30:00Z' });
  await call('Play at 2x', 'Replay/play', { accountId, speed: 2 });
  await call('Pause', 'Replay/pause', { accountId });
  await call('End with results', 'Replay/end', { accountId });

  await call('A funded challenge', 'Payout/eligibility', { accountId: challengeId });
  await call('Not eligible yet', 'Payout/request', { accountId: challengeId, amount: 500 });
  await call('No payouts yet', 'Payout/history', { accountId: challengeId });
  await call('Log out', 'Auth/logout', {});
  return r.book;
}

/** The web login (`/api/auth/`) and the Playground: templates, a template run to its end, a saved strategy and its runs. */
async function capturePlayground(): Promise<Record<string, CapturedExample[]>> {
  const t = await makeApp();
  const { email, password } = await makeWebUser(t);
  const r = new Recorder(t.app);
  const pg = (path: string) => `/api/playground${path}`;
  const web = (path: string) => `/api/auth${path}`;

  await r.call('Wrong password', 'POST', web('/login'), { email, password: 'not it' });
  await r.call('Sign in', 'POST', web('/login'), { email, password });
  const jar = () => ({ cookie: `rd_session=${r.cookie}` });
  await r.call('The signed-in user', 'GET', web('/me'), undefined, jar());
  await r.call('Whether a key exists', 'GET', web('/api-key'), undefined, jar());
  await r.call('A new key, shown once', 'POST', web('/api-key'), {}, jar());

  await r.call('The template catalog', 'GET', pg('/templates'), undefined);
  await r.call('Nothing running', 'POST', pg('/stop'), {}, jar());
  await r.call('Speed out of range', 'POST', pg('/speed'), { speed: 500 }, jar());
  const run = await r.call('Run a template', 'POST', pg('/run'), {
    templateId: 'sma_cross',
    instrument: 'NQ',
    startDate: '2025-02-27',
    timeframe: '5m',
    params: { fast: 10, slow: 30 },
  }, jar());
  await r.call('No instrument', 'POST', pg('/run'), { templateId: 'sma_cross', startDate: '2025-02-27', timeframe: '5m' }, jar());
  const id: string = run.executionId;
  await waitForEnd(r.app, id, jar());
  await r.call('A finished run', 'GET', pg(`/executions/${id}`), undefined, jar(), pg('/executions/:id'));
  await r.call('The end of a finished run as Server-Sent Events', 'GET', pg(`/executions/${id}/events`), undefined, jar(), pg('/executions/:id/events'));
  await r.call('A page of a run\'s trades', 'GET', pg(`/executions/${id}/trades?offset=2&limit=3`), undefined, jar(), pg('/executions/:id/trades'));
  await r.call('A limit over the page size', 'GET', pg(`/executions/${id}/trades?limit=5000`), undefined, jar(), pg('/executions/:id/trades'));
  await r.call('Every trade of a run as CSV', 'GET', pg(`/executions/${id}/trades.csv`), undefined, jar(), pg('/executions/:id/trades.csv'));

  const code = 'def on_bar(ctx, bar):\n    if ctx.position.qty == 0 and bar.close < bar.open:\n        ctx.buy(1, stop_loss=20, take_profit=40)\n';
  const saved = await r.call('Save a strategy', 'POST', pg('/strategies/save'), { name: 'Buy the dip', code, instrument: 'NQ', timeframe: '5m', params: {} }, jar());
  const sid: string = saved.id;
  await r.call('Saved strategies', 'GET', pg('/strategies'), undefined, jar());
  await r.call('One strategy', 'GET', pg(`/strategies/${sid}`), undefined, jar(), pg('/strategies/:id'));
  const own = await r.call('Run a saved strategy', 'POST', pg('/run'), { strategyId: sid, instrument: 'NQ', startDate: '2025-02-27', timeframe: '5m' }, jar());
  await waitForEnd(r.app, own.executionId, jar());
  await r.call('Runs of a strategy', 'GET', pg(`/strategies/${sid}/runs`), undefined, jar(), pg('/strategies/:id/runs'));
  await r.call('Delete a strategy', 'DELETE', pg(`/strategies/${sid}`), undefined, jar(), pg('/strategies/:id'));
  await r.call('Not there any more', 'GET', pg(`/strategies/${sid}`), undefined, jar(), pg('/strategies/:id'));
  // The CSRF guard wants a POST to say JSON, though the body is not read.
  await r.call('Sign out', 'POST', web('/logout'), undefined, { ...jar(), 'content-type': 'application/json' });
  await r.call('Signed out', 'GET', web('/me'), undefined, jar());
  await t.s.runs.shutdown();
  return r.book;
}

/** Polls an execution until it is no longer running (not recorded). */
async function waitForEnd(app: App, id: string, headers: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await app.handle(new Request(`${HOST}/api/playground/executions/${id}`, { headers }));
    const body = (await res.json()) as { execution?: { status: string } };
    if (body.execution && body.execution.status !== 'running') return;
    if (Date.now() > deadline) throw new Error(`execution ${id} still running after 60 s`);
    await Bun.sleep(100);
  }
}

const FAMILIES = { sim: captureSim, legacy: captureLegacy, playground: capturePlayground } as const;

async function main(): Promise<void> {
  for (const [name, capture] of Object.entries(FAMILIES)) {
    const out = join(EXAMPLES_DIR, `${name}.json`);
    await Bun.write(out, `${JSON.stringify(await capture(), null, 2)}\n`);
    console.log(`wrote ${out}`);
  }
  process.exit(0);
}

if (import.meta.main) await main();
