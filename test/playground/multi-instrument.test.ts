// The playground over several instruments, through the real server process: the NQ/ES spread
// template run with instrumentSymbols ["NQ", "ES"] over HTTP, its trades (each naming its contract)
// against an independent plain reference below, which reads the same bars through History and
// applies the template's rules itself (no engine code); a single-instrument run keeps its answer's
// fields; and a bad instrument list gets its envelope error.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_END_WAIT_MS, RUNNER_TEST_CACHE, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';

const ROOT = join(import.meta.dir, '..', '..');
/** The catalogue's data (src/domain/instruments.json): tick value and fee per side of each contract. */
const CATALOGUE: { symbol: string; tickSize: number; tickValueCents: number; feePerSideCents: number }[] = JSON.parse(
  readFileSync(join(ROOT, 'src', 'domain', 'instruments.json'), 'utf8'),
);
const PARAMS = { hedge: 'ES', lookback: 30, entry_z: 1.5, exit_z: 0.3, size: 1 };
const DATE = '2025-03-04';
// Trade date 2025-03-04 on CME Globex (Chicago on CST): 17:00 CT the day before to 16:00 CT.
const SPAN = { startTime: '2025-03-03T23:00:00Z', endTime: '2025-03-04T22:00:00Z' };
const STARTING_CENTS = 5_000_000;

let server: ServerProcess;
let cookie = '';
let token = '';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rd-pgmulti-'));
  server = await spawnServer({
    timeoutMs: SANDBOX_HOOK_MS,
    env: { DATA_DIR: dir, DATA_START_DATE: '2025-03-03', DATA_END_DATE: '2025-03-05', RUNNER_CACHE_DIR: RUNNER_TEST_CACHE, RUNNER_POOL_SIZE: '1' },
  });
  const creds = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
  const web = await fetch(`${server.base}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: creds.userName, password: creds.password }),
  });
  cookie = /rd_session=([^;]+)/.exec(web.headers.get('set-cookie') ?? '')![1];
  token = (await sim('Auth/loginKey', creds)).token;
}, SANDBOX_HOOK_MS);

afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.proc.exited;
}, SANDBOX_HOOK_MS);

async function sim(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.base}/api/sim/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
  });
  return res.json();
}

async function playground(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.base}/api/playground/${path}`, {
    method, headers: { cookie: `rd_session=${cookie}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** Waits (bounded, by polling) until the execution has ended, then answers it. */
async function runToEnd(body: Record<string, unknown>): Promise<any> {
  const started = await playground('POST', 'run', body);
  expect(started).toMatchObject({ success: true, status: 'running' });
  const deadline = Date.now() + RUN_END_WAIT_MS;
  for (;;) {
    const r = await playground('GET', `executions/${started.executionId}`);
    if (r.execution.status !== 'running') return r.execution;
    if (Date.now() > deadline) throw new Error('the run did not end');
    await Bun.sleep(200);
  }
}

// ---- the plain reference ----

interface Bar { t: number; c: number }

/** The day's 1 m bars of a contract through History (prices as printed: tick multiples, exact doubles). */
async function bars(contractId: string): Promise<Bar[]> {
  const r = await sim('History/retrieveBars', { contractId, unit: 2, unitNumber: 1, ...SPAN, limit: 20000 });
  expect(r.success).toBe(true);
  return r.bars.map((b: any) => ({ t: Date.parse(b.t) / 1000, c: b.c }));
}

interface Leg { symbol: string; qty: number; entryPrice: number; entryS: number }
interface Trade { side: string; size: number; entryTime: string; entryPrice: number; exitTime: string; exitPrice: number; pnl: number; fees: number; symbol: string }

/**
 * The template's rules, written again: on each NQ bar, the last ES bar closed by its end; the ratio's
 * z-score over the last `lookback` ratios (sums in order); market orders fill at the closes of the
 * signal bar, at its end; whatever is open at the end closes at the last closes.
 */
function reference(nq: Bar[], es: Bar[]): { trades: Trade[]; balanceCents: number } {
  const ratios: number[] = [];
  const open: Leg[] = [];
  const trades: (Trade & { exitS: number; order: number })[] = [];
  let side = 0;
  let e = -1;
  let lastEs = 0;
  let lastEnd = 0;
  const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
  const closeAll = (nqPrice: number, esPrice: number, atS: number) => {
    open.forEach((l, order) => {
      const spec = CATALOGUE.find((c) => c.symbol === l.symbol)!;
      const exit = l.symbol === 'NQ' ? nqPrice : esPrice;
      const ticks = Math.round((exit - l.entryPrice) / spec.tickSize) * Math.sign(l.qty) * Math.abs(l.qty);
      const fees = 2 * Math.abs(l.qty) * spec.feePerSideCents;
      trades.push({
        side: l.qty > 0 ? 'long' : 'short', size: Math.abs(l.qty), entryTime: iso(l.entryS), entryPrice: l.entryPrice, exitTime: iso(atS),
        exitPrice: exit, pnl: (ticks * spec.tickValueCents - fees) / 100, fees: fees / 100, symbol: l.symbol, exitS: atS, order,
      });
    });
    open.length = 0;
  };
  for (const b of nq) {
    const end = b.t + 60;
    while (e + 1 < es.length && es[e + 1].t + 60 <= end) lastEs = es[++e].c;
    lastEnd = end;
    if (e < 0) continue;
    ratios.push(b.c / lastEs);
    if (ratios.length > PARAMS.lookback) ratios.shift();
    if (ratios.length < PARAMS.lookback) continue;
    let total = 0;
    for (const x of ratios) total += x;
    const mean = total / ratios.length;
    let square = 0;
    for (const x of ratios) square += (x - mean) * (x - mean);
    const sd = Math.sqrt(square / ratios.length);
    if (sd === 0) continue;
    const z = (ratios[ratios.length - 1] - mean) / sd;
    if (side === 0 && (z > PARAMS.entry_z || z < -PARAMS.entry_z)) {
      side = z > 0 ? -1 : 1;
      open.push({ symbol: 'NQ', qty: side, entryPrice: b.c, entryS: end }, { symbol: 'ES', qty: -side, entryPrice: lastEs, entryS: end });
    } else if ((side === 1 && z > -PARAMS.exit_z) || (side === -1 && z < PARAMS.exit_z)) {
      closeAll(b.c, lastEs, end);
      side = 0;
    }
  }
  closeAll(nq[nq.length - 1].c, lastEs, lastEnd);
  const balanceCents = STARTING_CENTS + trades.reduce((s, t) => s + Math.round(t.pnl * 100), 0);
  return { trades: trades.map(({ exitS: _, order: __, ...t }) => t), balanceCents };
}

describe('the playground over several instruments (real server)', () => {
  it('the NQ/ES spread template trades both contracts exactly as the plain reference', async () => {
    const x = await runToEnd({ templateId: 'spread_zscore', instrumentSymbols: ['NQ', 'ES'], startDate: DATE, timeframe: '1m', params: PARAMS });
    expect(x.error).toBeNull();
    expect(x.status).toBe('completed');
    expect(x.instrument).toBe('NQ');
    expect(x.instrumentSymbols).toEqual(['NQ', 'ES']);
    const ref = reference(await bars('CON.F.US.ENQ.H25'), await bars('CON.F.US.EP.H25'));
    // The spread traded, both legs each time.
    expect(ref.trades.length).toBeGreaterThanOrEqual(4);
    expect(ref.trades.filter((t) => t.symbol === 'ES').length).toBe(ref.trades.length / 2);
    const page = await playground('GET', `executions/${x.id}/trades?offset=0&limit=1000`);
    expect(page.trades).toEqual(ref.trades);
    expect(x.trades).toEqual(ref.trades);
    expect(x.tradesTotal).toBe(ref.trades.length);
    expect(Math.round(x.balance * 100)).toBe(ref.balanceCents);
    // The CSV names each trade's contract in a last column.
    const csv = await (await fetch(`${server.base}/api/playground/executions/${x.id}/trades.csv`, { headers: { cookie: `rd_session=${cookie}` } })).text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('side,size,entryTime,entryPrice,exitTime,exitPrice,pnl,fees,symbol');
    expect(lines.slice(1).map((l) => l.split(',').at(-1))).toEqual(ref.trades.map((t) => t.symbol));
  }, SANDBOX_TEST_MS);

  it('a limit order on the second contract fills on its stored bars as the plain reference finds it', async () => {
    // Every two hours (the first ten): a buy limit on ES 3 ticks under its last close; 65 bars later
    // flat again (a market close if it filled, else the order is canceled).
    const code = `
def on_bar(ctx, bar):
    es = ctx.data["ES"]
    i = bar.index
    if i < 1200 and i % 120 == 5:
        ctx.buy_limit(es.close - 3 * es.tick_size, symbol="ES")
    elif i < 1200 and i % 120 == 70:
        ctx.flatten(symbol="ES")
`;
    const x = await runToEnd({ code, instrumentSymbols: ['NQ', 'ES'], startDate: DATE, timeframe: '1m' });
    expect(x.error).toBeNull();
    const nq = await bars('CON.F.US.ENQ.H25');
    const es = await bars('CON.F.US.EP.H25');
    const spec = CATALOGUE.find((c) => c.symbol === 'ES')!;
    const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
    const closeBy = (endS: number) => es.filter((b) => b.t + 60 <= endS).at(-1)!.c;
    const expected: Trade[] = [];
    for (let i = 5; i < 1200 && i < nq.length; i += 120) {
      const placedS = nq[i].t + 60;
      const flatS = nq[i + 65].t + 60;
      const limit = closeBy(placedS) - 3 * spec.tickSize;
      // The stored (1 s) bars walked after the placement, up to the bar that flattens.
      const r = await sim('History/retrieveBars', { contractId: 'CON.F.US.EP.H25', unit: 1, unitNumber: 1, startTime: iso(placedS), endTime: iso(flatS), limit: 20000 });
      const hit = r.bars.find((b: any) => b.l <= limit);
      if (!hit) continue;
      const entry = hit.o <= limit ? hit.o : limit;
      const exit = closeBy(flatS);
      const fees = 2 * spec.feePerSideCents;
      const pnlCents = Math.round((exit - entry) / spec.tickSize) * spec.tickValueCents - fees;
      expected.push({ side: 'long', size: 1, entryTime: hit.t, entryPrice: entry, exitTime: iso(flatS), exitPrice: exit, pnl: pnlCents / 100, fees: fees / 100, symbol: 'ES' });
    }
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(x.trades).toEqual(expected);
    expect(Math.round(x.balance * 100)).toBe(STARTING_CENTS + expected.reduce((s, t) => s + Math.round(t.pnl * 100), 0));
  }, SANDBOX_TEST_MS);

  it('an optimisation over the spread runs every combination over both instruments', async () => {
    const started = await playground('POST', 'optimize', {
      templateId: 'spread_zscore', instrumentSymbols: ['NQ', 'ES'], startDate: DATE, timeframe: '1m', params: { ...PARAMS, entry_z: { values: [1.5, 2] } },
    });
    expect(started).toMatchObject({ success: true, status: 'running' });
    const deadline = Date.now() + RUN_END_WAIT_MS;
    let o: any;
    for (;;) {
      o = (await playground('GET', `optimizations/${started.optimizationId}`)).optimization;
      if (o.status !== 'running') break;
      if (Date.now() > deadline) throw new Error('the optimisation did not end');
      await Bun.sleep(500);
    }
    expect(o.status).toBe('completed');
    const combos = (await playground('GET', `optimizations/${started.optimizationId}/combinations?sort=index`)).combinations;
    expect(combos).toHaveLength(2);
    for (const c of combos) {
      const run = (await playground('GET', `executions/${c.runId}`)).execution;
      expect(run.instrumentSymbols).toEqual(['NQ', 'ES']);
      expect(new Set(run.trades.map((t: Trade) => t.symbol))).toEqual(new Set(['NQ', 'ES']));
    }
    // The combination at the run's own params trades as the single run did (the plain reference).
    const same = combos.find((c: any) => c.params.entry_z === PARAMS.entry_z);
    const ref = reference(await bars('CON.F.US.ENQ.H25'), await bars('CON.F.US.EP.H25'));
    expect((await playground('GET', `executions/${same.runId}`)).execution.trades).toEqual(ref.trades);
  }, SANDBOX_TEST_MS);

  it('a run of one instrument answers without instrumentSymbols, its trades without symbol', async () => {
    const x = await runToEnd({ templateId: 'sma_cross', instrument: 'NQ', startDate: DATE, timeframe: '5m' });
    expect(x.status).toBe('completed');
    expect('instrumentSymbols' in x).toBe(false);
    expect(x.trades.length).toBeGreaterThan(0);
    expect(Object.keys(x.trades[0])).toEqual(['side', 'size', 'entryTime', 'entryPrice', 'exitTime', 'exitPrice', 'pnl', 'fees']);
  }, SANDBOX_TEST_MS);

  it('a strategy sees the second instrument on the main one\'s clock, and an unknown symbol is its error', async () => {
    const code = `
def on_bar(ctx, bar):
    es = ctx.data["ES"]
    if bar.index < 3:
        print(bar.index, bar.end, es.end, len(es.history(5)), es.bar is es.bars[-1] or es.bar == es.bars[-1])
    if bar.index == 3:
        ctx.data["CL"]
`;
    const x = await runToEnd({ code, instrumentSymbols: ['NQ', 'ES'], startDate: DATE, timeframe: '1m' });
    expect(x.status).toBe('failed');
    expect(x.error).toContain("KeyError: \"'CL' is not an instrument of this run (its instruments: NQ, ES)");
    const first = Date.parse('2025-03-03T23:01:00Z') / 1000;
    expect(x.logs).toEqual([0, 1, 2].map((i) => `${i} ${first + 60 * i} ${first + 60 * i} ${i + 1} True`));
  }, SANDBOX_TEST_MS);

  it.each([
    [{ instrumentSymbols: ['NQ', 'XX'] }, 'Instrument not found: XX'],
    [{ instrumentSymbols: ['NQ', 'ES', 'nq'] }, 'instrumentSymbols names NQ twice'],
    [{ instrumentSymbols: ['NQ', 'ES', 'MNQ', 'MES', 'GC'] }, 'instrumentSymbols must be a list of 1 to 4 symbols'],
    [{ instrumentSymbols: [] }, 'instrumentSymbols must be a list of 1 to 4 symbols'],
    [{ instrumentSymbols: 'NQ,ES' }, 'instrumentSymbols must be a list of 1 to 4 symbols'],
    [{ instrument: 'ES', instrumentSymbols: ['NQ', 'ES'] }, 'instrumentSymbols must start with instrument (ES)'],
  ])('refuses %j: errorCode 5, %s', async (fields, message) => {
    const r = await playground('POST', 'run', { templateId: 'spread_zscore', startDate: DATE, timeframe: '1m', ...fields });
    expect(r).toEqual({ success: false, errorCode: 5, errorMessage: message });
  });
});
