// Hostile requests (the bounds are in docs/decisions.md, the figures in bench/README.md): the
// probe's worst cases and the other loops a request can size, each sent alone to a real server on
// 127.0.0.1, with the answer's status and code and the longest event-loop stall the server saw from
// the request's sending until 300 ms after its answer (a 2 ms interval timer's lateness, measured in
// the server's own process).
//
// Two processes, so the stall is the server's and not the client's: this one serves (the production
// fetch handler, a SQLite file in a temporary directory, the synthetic data from 2024-01-01, no
// rollups warmed, so History and Replay read cold); a client process (this file with `client`) sends
// each request it is given on stdin and answers on stdout. Optimisations that are accepted are
// stopped at once (their combinations never reach a runner: this server gives them none), and
// runs never start (`runnerMaxConcurrent` 0: the plan's checks run, then the runner share refuses).
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only hostile-requests` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/hostile-requests.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../src/service/services.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig, limits } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { AccountStore } = await load<typeof import('../src/store/accounts.ts')>('src/store/accounts.ts');
const { PlaygroundRunStore } = await load<typeof import('../src/store/playground-runs.ts')>('src/store/playground-runs.ts');
const { ReplayStore } = await load<typeof import('../src/store/replay.ts')>('src/store/replay.ts');

const PROBE_MS = 2;
const SETTLE_MS = 300;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  errorCode: number | null;
  errorMessage: string | null;
  body: Record<string, unknown> | null;
  ms: number;
}

/** Replay/jumpTo and legacy Replay/step name the account the start before them opened (filled in when sent). */
let simAccount = 0;
let legacyAccount = 0;
let lastOptimization = '';

if (process.argv[2] === 'client') await runClient(process.argv[3]);
else await runServer();

// ---- The client: one request per stdin line, one answer per stdout line. ----
async function runClient(base: string): Promise<void> {
  for await (const line of console) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as Sent;
    const t0 = performance.now();
    const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
    const text = await res.text();
    const ms = performance.now() - t0;
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text);
    } catch {}
    const out: Answer = { status: res.status, errorCode: (body?.errorCode as number) ?? null, errorMessage: (body?.errorMessage as string) ?? null, body, ms };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
}

// ---- The server and the cases. ----
async function runServer(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-hostile-'));
  const db = openDb(join(dir, 'replaydesk.db'));
  const config = defaultConfig({ dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerPoolSize: 0, runnerMaxConcurrent: 0, runnerOptimizeMaxConcurrent: 0, trustProxy: true });
  const s = await createServices({ config, clock: systemClock, db, jwtSecret: new TextEncoder().encode(randomSecret()) });
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  const base = `http://127.0.0.1:${server.port}`;

  let stallMs = 0;
  let lastMs = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - lastMs - PROBE_MS);
    lastMs = now;
  }, PROBE_MS);

  const client = Bun.spawn([process.execPath, import.meta.path, 'client', base], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
  const lines = lineReader(client.stdout);
  const send = async (r: Sent): Promise<{ answer: Answer; stallMs: number }> => {
    await Bun.sleep(50);
    stallMs = 0;
    lastMs = performance.now();
    client.stdin.write(`${JSON.stringify(r)}\n`);
    client.stdin.flush();
    const answer = JSON.parse(await lines()) as Answer;
    await Bun.sleep(SETTLE_MS);
    return { answer, stallMs };
  };

  const cases = await buildCases(s, base);
  console.log(`Hostile requests: each alone, the server's longest event-loop stall (a ${PROBE_MS} ms timer's lateness) from sending to ${SETTLE_MS} ms after the answer`);
  console.log(`${'case'.padEnd(64)} ${'HTTP'.padStart(4)} ${'code'.padStart(4)}  ${'answer'.padStart(9)}  ${'stall'.padStart(9)}  message`);
  let worst = 0;
  for (const c of cases) {
    const { answer, stallMs: stall } = await send(c.request);
    worst = Math.max(worst, stall);
    const message = (answer.errorMessage ?? (answer.status === 200 ? 'ok' : '(no envelope)')).slice(0, 70);
    console.log(`${c.name.padEnd(64)} ${String(answer.status).padStart(4)} ${String(answer.errorCode ?? '-').padStart(4)}  ${answer.ms.toFixed(1).padStart(6)} ms  ${stall.toFixed(1).padStart(6)} ms  ${message}`);
    if (c.after) await c.after(answer);
  }
  console.log(`longest stall over all cases: ${worst.toFixed(1)} ms`);

  client.stdin.end();
  await client.exited;
  clearInterval(probe);
  server.stop(true);
  await s.shutdown();
  s.db.close();
  rmSync(dir, { recursive: true, force: true });
}

function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return async () => {
    for (;;) {
      const nl = buffered.indexOf('\n');
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the client process ended');
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

interface Case {
  name: string;
  request: Sent;
  after?: (a: Answer) => Promise<void>;
}

async function buildCases(s: Services, base: string): Promise<Case[]> {
  const web = async (email: string) => {
    const password = 'correct horse battery staple';
    await s.users.create({ email, password, plan: 'pro' });
    const r = await s.webAuth.login(email, password, 'bench');
    if (!r.ok) throw new Error('web login');
    return { cookie: `rd_session=${r.value.cookieValue}`, 'content-type': 'application/json' };
  };
  const bearer = async (email: string) => {
    const created = await s.users.create({ email, plan: 'pro' });
    if (!created.ok) throw new Error('user');
    const r = await s.auth.login(email, created.value.apiKey, `bench-${email}`);
    if (!r.ok) throw new Error('login');
    return { authorization: `Bearer ${r.value.token}`, 'content-type': 'application/json' };
  };
  const quant = await web('quant@example.com');
  const stopOptimisation = (h: Record<string, string>) => async (a: Answer) => {
    const id = a.body?.optimizationId;
    if (typeof id === 'string') await (await fetch(`${base}/api/playground/optimizations/${id}/stop`, { method: 'POST', headers: h, body: '{}' })).text();
  };
  const opt = (name: string, body: unknown, stop = false): Case => ({
    name, request: { method: 'POST', path: '/api/playground/optimize', headers: quant, body: JSON.stringify(body) }, after: stop ? stopOptimisation(quant) : undefined,
  });
  const DAY = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', code: 'def on_bar(ctx, bar):\n    pass\n' };
  const ranges = (n: number, k: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { min: 1, max: k, step: 1 }]));
  const lists = (n: number, k: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { values: Array.from({ length: k }, (_, v) => v + 0.5) }]));
  const axes22k = Object.fromEntries(Array.from({ length: 22_000 }, (_, i) => [`axis${i}`, { values: [1, 2] }]));
  const sim = await bearer('bot@example.com');
  const legacy = await bearer('legacy@example.com');
  const post = (path: string, headers: Record<string, string>, body: unknown): Sent => ({ method: 'POST', path, headers, body: JSON.stringify(body) });
  return [
    opt('optimize random 500 of 6 axes x 500 values (past 2^53)', { ...DAY, params: ranges(6, 500), method: 'random', count: 500 }, true),
    opt('optimize random 500 of 50 axes x 500 values (~10^135)', { ...DAY, params: ranges(50, 500), method: 'random', count: 500 }, true),
    { ...opt('optimize random 500 of 50 lists x 500 values', { ...DAY, params: lists(50, 500), method: 'random', count: 500 }, true), after: async (a: Answer) => {
      lastOptimization = String(a.body?.optimizationId);
      await stopOptimisation(quant)(a);
    } },
    { name: 'its heatmap, 500 x 500 cells', request: { method: 'GET', get path() { return `/api/playground/optimizations/${lastOptimization}/heatmap?x=p0&y=p1`; }, headers: quant } },
    { name: 'GET optimizations (3 of 500 combinations each)', request: { method: 'GET', path: '/api/playground/optimizations?limit=100', headers: quant } },
    { name: 'its 500 combinations, one page', request: { method: 'GET', get path() { return `/api/playground/optimizations/${lastOptimization}/combinations?limit=500`; }, headers: quant } },
    opt('optimize grid of 50 axes x 500 values', { ...DAY, params: ranges(50, 500) }),
    opt('optimize 22,000 axes, custom code (~1 MB body)', { ...DAY, params: axes22k }),
    opt('optimize 22,000 axes, template sma_cross', { ...DAY, code: undefined, templateId: 'sma_cross', params: axes22k }),
    opt('optimize walk-forward over 2 years, 1 + 1 trade dates', { ...DAY, startDate: '2024-01-02', endDate: '2025-12-31', params: { x: 1 }, walkForward: { inSampleDays: 1, outOfSampleDays: 1 } }),
    { name: 'run over 2 years of 1 s bars, 3 context timeframes', request: post('/api/playground/run', quant, { ...DAY, startDate: '2024-01-02', endDate: '2025-12-31', timeframe: '1s', contextTimeframes: ['1m', '1h', '1d'] }) },
    { name: 'History 1 s bars, 30 days (cold), limit 20,000', request: post('/api/sim/History/retrieveBars', sim, { contractId: 'CON.F.US.ENQ.H25', live: false, startTime: '2025-01-02T00:00:00Z', endTime: '2025-02-01T00:00:00Z', unit: 1, unitNumber: 1, limit: 20_000, includePartialBar: false }) },
    { name: 'History 1 d bars over 365 days (cold)', request: post('/api/sim/History/retrieveBars', sim, { contractId: 'CON.F.US.ENQ.H25', live: false, startTime: '2024-01-01T00:00:00Z', endTime: '2024-12-31T00:00:00Z', unit: 4, unitNumber: 1, limit: 20_000, includePartialBar: false }) },
    { name: 'legacy History barsBack 1,000,000 of 1 s bars', request: post('/api/legacy-sim/History/retrieveBars', legacy, { contractId: 'NQ', unit: 1, unitNumber: 1, endTime: '2025-06-02T20:00:00Z', barsBack: 1_000_000 }) },
    { name: 'Replay/start 2 years of 1 m bars', request: post('/api/sim/Replay/start', sim, { instrumentSymbol: 'NQ', startDate: '2024-01-02', endDate: '2025-12-30', timeframe: '1m' }) },
    { name: 'Replay/jumpTo the end of 2 years (cold)', request: { method: 'POST', path: '/api/sim/Replay/jumpTo', headers: sim, body: '' }, after: undefined },
    { name: 'legacy Replay/start 2 years of 1 s bars', request: post('/api/legacy-sim/Replay/start', legacy, { instrumentSymbol: 'NQ', startDate: '2024-01-02', endDate: '2025-12-30', timeframe: '1s' }) },
    { name: 'legacy Replay/step 1,000 bars of 1 s', request: { method: 'POST', path: '/api/legacy-sim/Replay/step', headers: legacy, body: '' } },
    { name: 'trades.csv of a run with 200,000 trades', request: { method: 'GET', path: `/api/playground/executions/${await bigRun(s, 'quant@example.com')}/trades.csv`, headers: quant } },
    { name: 'journal detail of a session with 200,000 fills', request: { method: 'GET', path: `/api/auth/journal/${await bigSession(s, 'quant@example.com', 200_000)}`, headers: quant } },
    { name: 'journal list after the session ended', request: { method: 'GET', path: '/api/auth/journal', headers: quant } },
    { name: 'strategy save, 200 KB of code', request: post('/api/playground/strategies/save', quant, { name: 'big', code: `# ${'x'.repeat(200 * 1024 - 4)}\n`, instrument: 'NQ', timeframe: '1m', params: {} }) },
    { name: 'headers of 70 KiB (over the 64 KiB launch cap)', request: { method: 'GET', path: '/api/sim/Status/ping', headers: { 'x-pad': 'a'.repeat(70 * 1024) } } },
  ].map((c) => fillAccount(c as Case));
}

function fillAccount(c: Case): Case {
  if (c.request.path === '/api/sim/Replay/start') return { ...c, after: async (a) => void (simAccount = a.body?.accountId as number) };
  if (c.request.path === '/api/legacy-sim/Replay/start') return { ...c, after: async (a) => void (legacyAccount = a.body?.accountId as number) };
  if (c.request.path === '/api/sim/Replay/jumpTo') return { ...c, request: { ...c.request, get body() { return JSON.stringify({ accountId: simAccount, targetTime: '2025-12-30T21:00:00Z' }); } } };
  if (c.request.path === '/api/legacy-sim/Replay/step') return { ...c, request: { ...c.request, get body() { return JSON.stringify({ accountId: legacyAccount, steps: 1000 }); } } };
  return c;
}

/** An ended run of the user's with the most trades a run stores (written to the store directly). */
async function bigRun(s: Services, email: string): Promise<string> {
  const userId = (await s.users.list()).find((u) => u.email === email)!.id;
  const store = new PlaygroundRunStore(s.sql);
  const id = 'exe_bench_many_trades';
  await store.insert({ id, userId, strategyId: null, templateId: null, instrument: 'NQ', timeframe: '1s', startDate: '2025-02-27', endDate: '2025-02-27', params: {}, contextTimeframes: [], speed: null, barsTotal: 1, startedMs: Date.now() });
  const t0 = 1_740_610_800;
  const trades = Array.from({ length: limits.playgroundTradesStoredMax }, (_, i) => ({
    direction: (i % 2 ? 1 : -1) as 1 | -1, entryTimeS: t0 + i * 2, exitTimeS: t0 + i * 2 + 1, entryQty: 1, entryValueTicks: 84_000 + (i % 50), exitValueTicks: 84_010, pnlCents: 100 - (i % 200), feesCents: 280,
  }));
  await store.end(id, { status: 'completed', error: null, totalPnlCents: 0, totalTrades: trades.length, winRate: 50, barsDone: 1, speed: null, completedMs: Date.now(), trades, tradesPerChunk: limits.playgroundTradesPerChunk, result: { balanceCents: 5_000_000, tradesTotal: trades.length, equity: [], logs: [] } });
  return id;
}

/** An ended replay session of the user's with `n` fills (100,000 round trips), written to the store directly. */
async function bigSession(s: Services, email: string, n: number): Promise<number> {
  const userId = (await s.users.list()).find((u) => u.email === email)!.id;
  const accounts = new AccountStore(s.sql);
  const replay = new ReplayStore(s.sql);
  const account = await accounts.insert({ userId, kind: 'replay', name: 'many fills', balanceCents: 5_000_000, nowMs: Date.now() });
  const t0 = 1_740_610_800;
  await replay.insertSession({
    accountId: account.id, sessionId: `ses_${account.id}`, userId, symbol: 'NQ', timeframe: '1s', startS: t0, endS: t0 + 86_400, cursorS: t0 + 86_400,
    currentIndex: 82_800, totalBars: 82_800, historyBars: 0, status: 'ended', endReason: 'ended', challengeId: null, engineCore: '{}', createdMs: Date.now(),
    lastActivityMs: Date.now(), endedMs: Date.now(),
  });
  const fills = Array.from({ length: n }, (_, i) => ({
    id: i + 1, orderId: i + 1, side: (i % 2 === 0 ? 0 : 1) as 0 | 1, size: 1, priceTicks: 84_000 + (i % 7), timeS: t0 + Math.floor(i / 3), feeCents: 140, realizedPnlCents: i % 2 === 0 ? 0 : ((i * 37) % 2001) - 1000,
  }));
  await s.sql.transaction(() => replay.insertFills(account.id, fills));
  return account.id;
}
