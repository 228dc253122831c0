// The real server process, as a newcomer and an operator meet it: first start, graceful stop, and
// a kill -9 in the middle of a session followed by a restart that resumes exactly where it was.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_END_WAIT_MS, SANDBOX_TEST_MS } from '../support/playground.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';

const ROOT = join(import.meta.dir, '..', '..');

type Server = ServerProcess;

/** Starts `bun src/main.ts` on an ephemeral port with a short synthetic span. */
function startServer(dataDir: string, cwd = ROOT, extraEnv: Record<string, string> = {}): Promise<Server> {
  return spawnServer({ cwd, timeoutMs: 60_000, env: { ...extraEnv, DATA_DIR: dataDir, DATA_START_DATE: '2025-02-24', DATA_END_DATE: '2025-03-07' } });
}

async function call(base: string, path: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return res.json();
}

async function login(base: string, dataDir: string): Promise<string> {
  const creds = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
  return (await call(base, 'Auth/loginKey', creds)).token;
}

describe('the server process', () => {
  it('first start: demo user on Pro, credentials file 0600, key in the log once; SIGTERM stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-e2e-'));
    const s = await startServer(dir);
    const creds = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
    expect(creds).toEqual({ userName: 'demo@replaydesk.local', apiKey: expect.stringMatching(/^rdk_/), password: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/) });
    expect(statSync(join(dir, 'demo-credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(s.log()).toContain(creds.apiKey);
    expect(await (await fetch(`${s.base}/api/sim/Status/ping`)).text()).toBe('pong');
    // Over-limit headers and bodies answer with the envelope, not Bun's empty 413/431 (the start
    // flags raise Bun's own header cap above ours).
    const big = await fetch(`${s.base}/api/sim/Status/ping`, { headers: { 'x-padding': 'a'.repeat(40_000) } });
    expect([big.status, await big.json()]).toEqual([431, { success: false, errorCode: 431, errorMessage: 'Request headers exceed 12288 bytes' }]);
    const huge = await fetch(`${s.base}/api/sim/Contract/search`, { method: 'POST', body: 'x'.repeat(5_000_000) });
    expect([huge.status, await huge.json()]).toEqual([413, { success: false, errorCode: 413, errorMessage: 'Request body exceeds 1048576 bytes' }]);
    const token = await login(s.base, dir);
    expect((await call(s.base, 'Contract/search', { searchText: 'NQ' }, token)).success).toBe(true);
    // The password signs the demo user in to the web application (cookie session); it is not logged.
    expect(s.log()).not.toContain(creds.password);
    const web = await fetch(`${s.base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: creds.userName, password: creds.password }),
    });
    expect(await web.json()).toEqual({ user: { email: 'demo@replaydesk.local', plan: 'pro' }, success: true, errorCode: 0, errorMessage: null });
    expect(web.headers.get('set-cookie')).toMatch(/^rd_session=[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    s.proc.kill('SIGTERM');
    expect(await s.proc.exited).toBe(0);
    expect(s.log()).toContain('INFO stopped');

    // Second start: no new demo user, the key is not printed again, the old key still works.
    const again = await startServer(dir);
    expect(again.log()).not.toContain('demo user created');
    expect(await login(again.base, dir)).toEqual(expect.any(String));
    again.proc.kill('SIGTERM');
    expect(await again.proc.exited).toBe(0);
  }, 60_000);

  it('kill -9 in the middle of a session loses nothing a client was told', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-e2e-'));
    const a = await startServer(dir);
    const token = await login(a.base, dir);
    const start = await call(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-04', timeframe: '1m' }, token);
    const acc = start.accountId;
    const contractId = start.instrument.contractId;
    await call(a.base, 'Replay/step', { accountId: acc, steps: 30 }, token);
    await call(a.base, 'Order/place', { accountId: acc, contractId, type: 2, side: 0, size: 2, stopLossBracket: { ticks: 200 }, takeProfitBracket: { ticks: 400 } }, token);
    await call(a.base, 'Order/place', { accountId: acc, contractId, type: 1, side: 0, size: 1, limitPrice: 1000 }, token);
    const lastStep = await call(a.base, 'Replay/step', { accountId: acc, steps: 20 }, token);
    const views = async (base: string, tok: string) => ({
      orders: await call(base, 'Order/search', { accountId: acc }, tok),
      open: await call(base, 'Order/searchOpen', { accountId: acc }, tok),
      positions: await call(base, 'Position/searchOpen', { accountId: acc }, tok),
      trades: await call(base, 'Trade/search', { accountId: acc }, tok),
      accounts: await call(base, 'Account/search', { onlyActiveAccounts: true }, tok),
    });
    const before = await views(a.base, token);
    a.proc.kill('SIGKILL');
    await a.proc.exited;

    const b = await startServer(dir);
    const token2 = await login(b.base, dir);
    const after = await views(b.base, token2);
    // Positions carry the query's (simulated) time, which is the same; everything else is identical.
    expect(after).toEqual(before);
    const next = await call(b.base, 'Replay/step', { accountId: acc, steps: 1 }, token2);
    expect(next.currentIndex).toBe(lastStep.currentIndex + 1);
    b.proc.kill('SIGTERM');
    expect(await b.proc.exited).toBe(0);
  }, 60_000);

  it('the playground as a newcomer meets it: web login with the demo password, templates, a run polled to completed, a saved strategy and its runs (relative DATA_DIR)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rd-e2e-playground-'));
    const server = await startServer('data', cwd, { RUNNER_CACHE_DIR: '' });
    try {
      const creds = JSON.parse(readFileSync(join(cwd, 'data', 'demo-credentials.json'), 'utf8'));
      const json = { 'content-type': 'application/json' };
      const login = await fetch(`${server.base}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: creds.userName, password: creds.password }) });
      expect(((await login.json()) as any).success).toBe(true);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
      const h = { ...json, cookie };
      const pg = async (method: string, path: string, body?: unknown) =>
        (await fetch(`${server.base}/api/playground/${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;
      const templates: any[] = (await pg('GET', 'templates')).templates;
      expect(templates.map((t: any) => t.id)).toContain('sma_cross');
      const run: any = await pg('POST', 'run', { templateId: 'sma_cross', instrument: 'NQ', startDate: '2025-03-04', timeframe: '5m' });
      expect(run).toMatchObject({ success: true, status: 'running' });
      let x: any;
      for (const deadline = Date.now() + RUN_END_WAIT_MS; ; await Bun.sleep(50)) {
        x = (await pg('GET', `executions/${run.executionId}`)).execution;
        if (x.status !== 'running' || Date.now() > deadline) break;
      }
      expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
      expect(x.progress.barsDone).toBe(x.progress.barsTotal);
      const saved: any = await pg('POST', 'strategies/save', { name: 'Forked SMA', code: templates.find((t: any) => t.id === 'sma_cross').code, instrument: 'NQ', timeframe: '5m', params: { fast: 10, slow: 30, size: 1 } });
      const again: any = await pg('POST', 'run', { strategyId: saved.id, instrument: 'NQ', startDate: '2025-03-04', timeframe: '5m' });
      for (const deadline = Date.now() + RUN_END_WAIT_MS; ; await Bun.sleep(50)) {
        x = (await pg('GET', `executions/${again.executionId}`)).execution;
        if (x.status !== 'running' || Date.now() > deadline) break;
      }
      const runs: any[] = (await pg('GET', `strategies/${saved.id}/runs`)).runs;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ id: again.executionId, strategyId: saved.id, status: 'completed' });
      expect(server.log()).toContain('playground runner ready');
    } finally {
      server.proc.kill('SIGTERM');
      await server.proc.exited;
    }
    // The first run waits for the snapshot build in the new data directory: a minute on a busy machine.
  }, SANDBOX_TEST_MS);
});
