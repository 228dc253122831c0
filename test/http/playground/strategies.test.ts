// Playground strategies (Pro, session cookie): list, save (create and update), read, delete, runs.
import { describe, expect, it, setDefaultTimeout } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { isoFromEpochMs } from '../../../src/lib/iso-time.ts';
import { findTemplate } from '../../../src/service/playground/templates.ts';
import { makeApp, makeWebUser, T0, type TestApp, webCall, webLogin } from '../../support/app.ts';

// Most tests log a web user in; on a loaded machine bun's default of 5 s per test (bunfig's
// `timeout` is not read) is too short. A bound, not an estimate.
setDefaultTimeout(120_000);

const NOT_FOUND = { success: false, errorCode: 1, errorMessage: 'Strategy not found' };
const UNAUTHORIZED = { success: false, errorCode: 401, errorMessage: 'Unauthorized' };
const BASE = '/api/playground/strategies';
const VALID = { name: 'Breakout', code: 'def on_bar(ctx, bar):\n    pass\n', instrument: 'NQ', timeframe: '5m', params: { length: 20, side: 'long', trail: true } };

interface Web extends TestApp {
  cookie: string;
}

async function setup(config = {}): Promise<Web> {
  const t = await makeApp({ config });
  const u = await makeWebUser(t, { email: 'ann@example.com' });
  return Object.assign(t, { cookie: await webLogin(t, u.email, u.password) });
}

/** A second Pro user on the same app, with its own cookie. */
async function otherUser(t: TestApp): Promise<string> {
  const u = await makeWebUser(t, { email: 'bob@example.com' });
  return webLogin(t, u.email, u.password);
}

const save = (t: TestApp, cookie: string, body: unknown) => webCall(t, 'POST', `${BASE}/save`, { cookie, body });
const get = (t: TestApp, cookie: string, id: string) => webCall(t, 'GET', `${BASE}/${id}`, { cookie });
const list = (t: TestApp, cookie: string) => webCall(t, 'GET', BASE, { cookie });
const del = (t: TestApp, cookie: string, id: string) => webCall(t, 'DELETE', `${BASE}/${id}`, { cookie });
const runs = (t: TestApp, cookie: string, id: string) => webCall(t, 'GET', `${BASE}/${id}/runs`, { cookie });

async function saved(t: Web, body: Record<string, unknown> = {}, cookie = t.cookie): Promise<string> {
  const r = await save(t, cookie, { ...VALID, ...body });
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

async function userIdOf(t: TestApp, email: string): Promise<number> {
  return (await t.s.users.list()).find((u) => u.email === email)!.id;
}

/** Inserts a playground run row as the run service would (the run endpoint is not part of this change). */
async function insertRun(t: TestApp, r: { id: string; userId: number; strategyId: string | null; startedMs: number; status?: string; completedMs?: number | null; pnlCents?: number | null; trades?: number | null; winRate?: number | null; params?: object; templateId?: string }) {
  // Through the app's store (SQLite or, with TEST_STORE=postgres, PostgreSQL).
  await t.s.sql.run(
      `INSERT INTO playground_runs (id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date, params_json,
         context_timeframes_json, speed, status, error, total_pnl_cents, total_trades, win_rate, bars_done, bars_total, result_json, started_ms, completed_ms)
       VALUES ($id, $u, $s, $tpl, 'NQ', '5m', '2025-03-03', '2025-03-04', $p, '[]', NULL, $status, NULL, $pnl, $trades, $win, 10, 10, NULL, $started, $completed)`,
    {
      id: r.id,
      u: r.userId,
      s: r.strategyId,
      tpl: r.templateId ?? null,
      p: JSON.stringify(r.params ?? { length: 20 }),
      status: r.status ?? 'completed',
      pnl: r.pnlCents === undefined ? 12_345 : r.pnlCents,
      trades: r.trades === undefined ? 7 : r.trades,
      win: r.winRate === undefined ? 57.14 : r.winRate,
      started: r.startedMs,
      completed: r.completedMs === undefined ? r.startedMs + 5000 : r.completedMs,
    },
  );
}

describe('access', () => {
  it.each([
    ['GET', BASE],
    ['POST', `${BASE}/save`],
    ['GET', `${BASE}/stg_0000000000000000`],
    ['DELETE', `${BASE}/stg_0000000000000000`],
    ['GET', `${BASE}/stg_0000000000000000/runs`],
  ])('%s %s without a session cookie → HTTP 401', async (method, path) => {
    const t = await makeApp();
    const r = await webCall(t, method, path, { body: VALID });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
  });

  it('malformed JSON on save → HTTP 400', async () => {
    const t = await setup();
    const r = await save(t, t.cookie, '{"name":');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, errorCode: 400, errorMessage: 'Malformed JSON body' });
  });
});

describe('POST strategies/save', () => {
  it('creates a strategy: id stg_ + 16 hex; name trimmed, instrument and timeframe canonical', async () => {
    const t = await setup();
    const r = await save(t, t.cookie, { ...VALID, name: '  Breakout  ', instrument: 'enq', timeframe: '60m' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.stringMatching(/^stg_[0-9a-f]{16}$/), success: true, errorCode: 0, errorMessage: null });
    const g = await get(t, t.cookie, r.body.id);
    expect(g.body).toEqual({
      strategy: {
        id: r.body.id,
        name: 'Breakout',
        instrument: 'NQ',
        timeframe: '1h',
        createdAt: '2025-03-03T14:30:00.000Z',
        updatedAt: '2025-03-03T14:30:00.000Z',
        code: VALID.code,
        params: { length: 20, side: 'long', trail: true },
      },
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });

  it('updates by id: same id, fields replaced, createdAt kept, updatedAt moved', async () => {
    const t = await setup();
    const id = await saved(t);
    t.clock.advance(60_000);
    const r = await save(t, t.cookie, { id, name: 'Breakout v2', code: 'print(2)', instrument: 'GC', timeframe: '1d', params: {} });
    expect(r.body).toEqual({ id, success: true, errorCode: 0, errorMessage: null });
    expect((await get(t, t.cookie, id)).body.strategy).toEqual({
      id,
      name: 'Breakout v2',
      instrument: 'GC',
      timeframe: '1d',
      createdAt: isoFromEpochMs(T0),
      updatedAt: isoFromEpochMs(T0 + 60_000),
      code: 'print(2)',
      params: {},
    });
    expect((await list(t, t.cookie)).body.strategies.length).toBe(1);
  });

  it('id null means create', async () => {
    const t = await setup();
    const r = await save(t, t.cookie, { ...VALID, id: null });
    expect(r.body.id).toMatch(/^stg_/);
  });

  const required = (field: string) => ({ success: false, errorCode: 1, errorMessage: `${field} is required` });

  it.each([
    ['empty body', {}, required('name')],
    ['name missing', { name: undefined }, required('name')],
    ['name empty', { name: '' }, required('name')],
    ['name blank', { name: '   ' }, required('name')],
    ['name not a string', { name: 42 }, required('name')],
    ['name over 100 characters', { name: 'n'.repeat(101) }, { success: false, errorCode: 1, errorMessage: 'name must be at most 100 characters' }],
    ['code missing', { code: undefined }, required('code')],
    ['code empty', { code: '' }, required('code')],
    ['code blank', { code: ' \n ' }, required('code')],
    ['code not a string', { code: ['print(1)'] }, required('code')],
    ['code over 200 KB', { code: '#'.repeat(200 * 1024 + 1) }, { success: false, errorCode: 2, errorMessage: 'Script exceeds 200 KB' }],
    ['code over 200 KB in UTF-8 bytes', { code: 'é'.repeat(102_401) }, { success: false, errorCode: 2, errorMessage: 'Script exceeds 200 KB' }],
    ['instrument missing', { instrument: undefined }, required('instrument')],
    ['instrument not a string', { instrument: 1 }, required('instrument')],
    ['instrument unknown', { instrument: 'XYZ' }, { success: false, errorCode: 3, errorMessage: 'Instrument not found' }],
    ['timeframe missing', { timeframe: undefined }, required('timeframe')],
    ['timeframe not a string', { timeframe: 5 }, required('timeframe')],
    ['timeframe garbage', { timeframe: 'five minutes' }, { success: false, errorCode: 4, errorMessage: 'Invalid timeframe' }],
    ['timeframe custom while custom timeframes are off', { timeframe: '7m' }, { success: false, errorCode: 4, errorMessage: 'Invalid timeframe' }],
    ['timeframe finer than the stored resolution', { instrument: 'GC', timeframe: '5s' }, { success: false, errorCode: 4, errorMessage: 'Invalid timeframe' }],
    ['params missing', { params: undefined }, required('params')],
    ['params null', { params: null }, required('params')],
    ['params an array', { params: [1, 2] }, required('params')],
    ['params a string', { params: '{}' }, required('params')],
    [
      'params with 51 keys',
      { params: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      { success: false, errorCode: 6, errorMessage: 'Invalid params: too many keys (at most 50)' },
    ],
    ['params with a nested object', { params: { a: 1, b: { c: 2 } } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: b must be a number, a string or a boolean' }],
    ['params with an array value', { params: { a: [1] } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: a must be a number, a string or a boolean' }],
    ['params with a null value', { params: { a: null } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: a must be a number, a string or a boolean' }],
    ['params with an empty key', { params: { '': 1 } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: keys must be 1 to 64 characters' }],
    ['params with a long key', { params: { ['k'.repeat(65)]: 1 } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: keys must be 1 to 64 characters' }],
    ['params with a long string', { params: { s: 's'.repeat(1001) } }, { success: false, errorCode: 6, errorMessage: 'Invalid params: s must be at most 1000 characters' }],
    ['an unknown id', { id: 'stg_0000000000000000' }, { success: false, errorCode: 5, errorMessage: 'Strategy not found' }],
    ['an id that is not a string', { id: 12 }, { success: false, errorCode: 5, errorMessage: 'Strategy not found' }],
  ])('%s → its row', async (_name, patch, expected) => {
    const t = await setup();
    const body = Object.keys(patch).length === 0 ? {} : { ...VALID, ...patch };
    const r = await save(t, t.cookie, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expected);
    expect((await list(t, t.cookie)).body.strategies).toEqual([]);
  });

  it('checks fields in order: name, code, instrument, timeframe, params, then the id', async () => {
    const t = await setup();
    const bad = { name: '', code: '', instrument: 'XYZ', timeframe: 'x', params: [], id: 'stg_nope' };
    const seen: string[] = [];
    let body: Record<string, unknown> = { ...bad };
    for (const [field, good] of Object.entries({ name: 'N', code: 'c', instrument: 'NQ', timeframe: '1m', params: {} })) {
      seen.push((await save(t, t.cookie, body)).body.errorMessage);
      body = { ...body, [field]: good };
    }
    seen.push((await save(t, t.cookie, body)).body.errorMessage);
    expect(seen).toEqual(['name is required', 'code is required', 'Instrument not found', 'Invalid timeframe', 'params is required', 'Strategy not found']);
  });

  it('accepts the limits exactly: 100-character name, 200 KB script, 50 params, custom timeframes when switched on', async () => {
    const t = await setup({ customTimeframes: true });
    const id = await saved(t, {
      name: 'n'.repeat(limits.strategyNameMax),
      code: '#'.repeat(200 * 1024),
      params: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i % 2 ? 'v' : i])),
      timeframe: '7m',
    });
    const s = (await get(t, t.cookie, id)).body.strategy;
    expect(s.name.length).toBe(100);
    expect(s.code.length).toBe(200 * 1024);
    expect(Object.keys(s.params).length).toBe(50);
    expect(s.timeframe).toBe('7m');
  });

  it('cannot update another user\'s strategy (errorCode 5), which stays unchanged', async () => {
    const t = await setup();
    const id = await saved(t);
    const bob = await otherUser(t);
    expect((await save(t, bob, { ...VALID, id, name: 'Stolen' })).body).toEqual({ success: false, errorCode: 5, errorMessage: 'Strategy not found' });
    expect((await get(t, t.cookie, id)).body.strategy.name).toBe('Breakout');
    expect((await list(t, bob)).body.strategies).toEqual([]);
  });
});

describe('GET strategies', () => {
  it('lists only the user\'s own summaries, most recently updated first', async () => {
    const t = await setup();
    const a = await saved(t, { name: 'A' });
    t.clock.advance(1000);
    const b = await saved(t, { name: 'B', instrument: 'ES', timeframe: '15m' });
    t.clock.advance(1000);
    const c = await saved(t, { name: 'C' });
    const bob = await otherUser(t);
    const bobs = await saved(t, { name: 'Bob' }, bob);
    t.clock.advance(1000);
    await saved(t, { id: a, name: 'A2' }); // touching A moves it to the top
    const r = await list(t, t.cookie);
    expect(r.body).toEqual({
      strategies: [
        { id: a, name: 'A2', instrument: 'NQ', timeframe: '5m', createdAt: isoFromEpochMs(T0), updatedAt: isoFromEpochMs(T0 + 3000) },
        { id: c, name: 'C', instrument: 'NQ', timeframe: '5m', createdAt: isoFromEpochMs(T0 + 2000), updatedAt: isoFromEpochMs(T0 + 2000) },
        { id: b, name: 'B', instrument: 'ES', timeframe: '15m', createdAt: isoFromEpochMs(T0 + 1000), updatedAt: isoFromEpochMs(T0 + 1000) },
      ],
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
    expect((await list(t, bob)).body.strategies.map((s: any) => s.id)).toEqual([bobs]);
  });

  it('an empty list for a new user', async () => {
    const t = await setup();
    expect((await list(t, t.cookie)).body).toEqual({ strategies: [], success: true, errorCode: 0, errorMessage: null });
  });
});

describe('GET / DELETE strategies/:id', () => {
  it('unknown and foreign ids → HTTP 200, errorCode 1 Strategy not found', async () => {
    const t = await setup();
    const id = await saved(t);
    const bob = await otherUser(t);
    for (const cookie of [t.cookie, bob]) {
      for (const bad of cookie === bob ? [id] : ['stg_0000000000000000', 'nope']) {
        for (const call of [get, del, runs]) {
          const r = await call(t, cookie, bad);
          expect(r.status).toBe(200);
          expect(r.body).toEqual(NOT_FOUND);
        }
      }
    }
    // Bob's delete did not touch Ann's strategy.
    expect((await get(t, t.cookie, id)).body.success).toBe(true);
  });

  it('delete: the strategy is gone from every endpoint, its runs stay in the store', async () => {
    const t = await setup();
    const id = await saved(t);
    const keep = await saved(t, { name: 'Keep' });
    await insertRun(t, { id: 'run_1', userId: await userIdOf(t, 'ann@example.com'), strategyId: id, startedMs: T0 });
    const r = await del(t, t.cookie, id);
    expect(r.body).toEqual({ success: true, errorCode: 0, errorMessage: null });
    expect((await get(t, t.cookie, id)).body).toEqual(NOT_FOUND);
    expect((await runs(t, t.cookie, id)).body).toEqual(NOT_FOUND);
    expect((await del(t, t.cookie, id)).body).toEqual(NOT_FOUND);
    expect((await save(t, t.cookie, { ...VALID, id })).body).toEqual({ success: false, errorCode: 5, errorMessage: 'Strategy not found' });
    expect((await list(t, t.cookie)).body.strategies.map((s: any) => s.id)).toEqual([keep]);
    const row = await t.s.sql.get('SELECT strategy_id FROM playground_runs WHERE id = $id', { id: 'run_1' });
    expect(row).toEqual({ strategy_id: id });
  });
});

describe('GET strategies/:id/runs', () => {
  it('lists the strategy\'s runs newest first, with every Run field', async () => {
    const t = await setup();
    const id = await saved(t);
    const other = await saved(t, { name: 'Other' });
    const ann = await userIdOf(t, 'ann@example.com');
    await insertRun(t, { id: 'run_old', userId: ann, strategyId: id, startedMs: T0 - 60_000, status: 'failed', pnlCents: null, trades: null, winRate: null });
    await insertRun(t, { id: 'run_mid', userId: ann, strategyId: id, startedMs: T0, pnlCents: -2550, trades: 4, winRate: 25, params: { length: 10, side: 'short' } });
    await insertRun(t, { id: 'run_new', userId: ann, strategyId: id, startedMs: T0 + 60_000, status: 'running', completedMs: null, pnlCents: null, trades: null, winRate: null });
    await insertRun(t, { id: 'run_other', userId: ann, strategyId: other, startedMs: T0 });
    await insertRun(t, { id: 'run_template', userId: ann, strategyId: null, startedMs: T0 });
    const r = await runs(t, t.cookie, id);
    expect(r.body).toEqual({
      runs: [
        {
          id: 'run_new',
          strategyId: id,
          instrument: 'NQ',
          timeframe: '5m',
          startDate: '2025-03-03',
          endDate: '2025-03-04',
          status: 'running',
          totalPnl: null,
          totalTrades: null,
          winRate: null,
          params: { length: 20 },
          startedAt: isoFromEpochMs(T0 + 60_000),
          completedAt: null,
        },
        {
          id: 'run_mid',
          strategyId: id,
          instrument: 'NQ',
          timeframe: '5m',
          startDate: '2025-03-03',
          endDate: '2025-03-04',
          status: 'completed',
          totalPnl: -25.5,
          totalTrades: 4,
          winRate: 25,
          params: { length: 10, side: 'short' },
          startedAt: isoFromEpochMs(T0),
          completedAt: isoFromEpochMs(T0 + 5000),
        },
        {
          id: 'run_old',
          strategyId: id,
          instrument: 'NQ',
          timeframe: '5m',
          startDate: '2025-03-03',
          endDate: '2025-03-04',
          status: 'failed',
          totalPnl: null,
          totalTrades: null,
          winRate: null,
          params: { length: 20 },
          startedAt: isoFromEpochMs(T0 - 60_000),
          completedAt: isoFromEpochMs(T0 - 55_000),
        },
      ],
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
    expect((await runs(t, t.cookie, other)).body.runs.map((x: any) => x.id)).toEqual(['run_other']);
  });

  it('a strategy without runs → empty list; other users\' rows never show', async () => {
    const t = await setup();
    const id = await saved(t);
    const bob = await otherUser(t);
    // A row of Bob's that names Ann's strategy id (cannot happen through the API) is still not Ann's.
    await insertRun(t, { id: 'run_bob', userId: await userIdOf(t, 'bob@example.com'), strategyId: id, startedMs: T0 });
    expect((await runs(t, t.cookie, id)).body).toEqual({ runs: [], success: true, errorCode: 0, errorMessage: null });
    expect((await runs(t, bob, id)).body).toEqual(NOT_FOUND);
  });

  it(`lists at most ${limits.strategyRunsListedMax} runs`, async () => {
    const t = await setup();
    const id = await saved(t);
    const ann = await userIdOf(t, 'ann@example.com');
    for (let i = 0; i < limits.strategyRunsListedMax + 5; i++) await insertRun(t, { id: `run_${i}`, userId: ann, strategyId: id, startedMs: T0 + i });
    const r = await runs(t, t.cookie, id);
    expect(r.body.runs.length).toBe(limits.strategyRunsListedMax);
    expect(r.body.runs[0].id).toBe(`run_${limits.strategyRunsListedMax + 4}`);
  });
});

describe('POST strategies/save with runId (Save as strategy after a run)', () => {
  it('lists the ended run it was saved from under the new strategy; a run of other params, market or template code, a running, foreign or strategy run stays out', async () => {
    const t = await setup();
    const ann = await userIdOf(t, 'ann@example.com');
    await otherUser(t);
    const ids = async (id: string) => (await runs(t, t.cookie, id)).body.runs.map((x: any) => x.id);
    await insertRun(t, { id: 'run_mine', userId: ann, strategyId: null, startedMs: T0, params: VALID.params });
    const id = await saved(t, { runId: 'run_mine' });
    expect(await ids(id)).toEqual(['run_mine']);
    // Saved again as another new strategy: the run is the first one's now.
    expect(await ids(await saved(t, { name: 'Again', runId: 'run_mine' }))).toEqual([]);

    const sma = findTemplate('sma_cross')!;
    const smaParams = { fast: 10, slow: 30, size: 1 };
    await insertRun(t, { id: 'run_sma', userId: ann, strategyId: null, startedMs: T0, params: smaParams, templateId: 'sma_cross' });
    expect(await ids(await saved(t, { name: 'Edited', code: `${sma.code}\n# edited\n`, params: smaParams, runId: 'run_sma' }))).toEqual([]);
    expect(await ids(await saved(t, { name: 'SMA', code: sma.code, params: smaParams, runId: 'run_sma' }))).toEqual(['run_sma']);

    await insertRun(t, { id: 'run_params', userId: ann, strategyId: null, startedMs: T0, params: { length: 10 } });
    await insertRun(t, { id: 'run_going', userId: ann, strategyId: null, startedMs: T0, params: VALID.params, status: 'running', completedMs: null });
    await insertRun(t, { id: 'run_bob', userId: await userIdOf(t, 'bob@example.com'), strategyId: null, startedMs: T0, params: VALID.params });
    for (const [runId, body] of [['run_params', {}], ['run_going', {}], ['run_bob', {}], ['run_mine', {}], ['run_params', { timeframe: '1m', params: { length: 10 } }]] as const) {
      expect(await ids(await saved(t, { name: `Not ${runId}`, ...body, runId }))).toEqual([]);
    }
    // A runId of the wrong type is ignored: the save stands.
    expect((await save(t, t.cookie, { ...VALID, name: 'Typed', runId: 42 })).body.success).toBe(true);
  });
});

describe('per-user bounds', () => {
  /** Fills Ann's strategies straight into the store (the API's save rate would take minutes). */
  async function fill(t: Web, n: number, codeBytes = 100): Promise<void> {
    const ann = await userIdOf(t, 'ann@example.com');
    for (let i = 0; i < n; i++) {
      await t.s.sql.run(
        `INSERT INTO strategies (id, user_id, name, code, instrument, timeframe, params_json, created_ms, updated_ms)
         VALUES ($id, $u, 'x', $code, 'NQ', '5m', '{}', $now, $now)`,
        { id: `stg_fill${String(i).padStart(12, '0')}`, u: ann, code: 'x'.repeat(codeBytes - 3), now: T0 },
      );
    }
  }

  it(`refuses a new strategy beyond ${limits.strategiesPerUserMax} per user (errorCode 7); updates still work`, async () => {
    const t = await setup();
    await fill(t, limits.strategiesPerUserMax - 1);
    const last = await saved(t);
    const over = await save(t, t.cookie, VALID);
    expect(over.body).toEqual({ success: false, errorCode: 7, errorMessage: `At most ${limits.strategiesPerUserMax} strategies per user; delete one first` });
    expect((await save(t, t.cookie, { ...VALID, id: last, name: 'Renamed' })).body).toEqual({ id: last, success: true, errorCode: 0, errorMessage: null });
    // Another user has a quota of their own.
    const bob = await otherUser(t);
    expect((await save(t, bob, VALID)).body.success).toBe(true);
    await del(t, t.cookie, last);
    expect((await save(t, t.cookie, VALID)).body.success).toBe(true);
  });

  it(`refuses a save that would take the user's strategies past ${limits.strategyBytesPerUserMax} bytes (errorCode 8)`, async () => {
    const t = await setup();
    const script = limits.playgroundScriptBytesMax;
    // A strategy named 'x' with params {} stores its code's bytes + 3. One filler row leaves room
    // for one full-size script and 10 bytes more.
    await fill(t, 1, limits.strategyBytesPerUserMax - (script + 3) - 10);
    const bigCode = `#${'x'.repeat(script - 1)}`;
    const first = await save(t, t.cookie, { ...VALID, name: 'x', params: {}, code: bigCode });
    expect(first.body.success).toBe(true);
    const over = await save(t, t.cookie, VALID);
    expect(over.body).toEqual({ success: false, errorCode: 8, errorMessage: `Your strategies would exceed ${limits.strategyBytesPerUserMax / 1048576} MB; delete or shorten some first` });
    // Rewriting a strategy replaces its bytes: the same size fits, one byte more does not.
    expect((await save(t, t.cookie, { ...VALID, id: first.body.id, name: 'x', params: {}, code: bigCode })).body.success).toBe(true);
    expect((await save(t, t.cookie, { ...VALID, id: first.body.id, name: 'x', params: { a: 1234567 }, code: bigCode })).body).toMatchObject({ success: false, errorCode: 8 });
    await del(t, t.cookie, first.body.id);
    expect((await save(t, t.cookie, VALID)).body.success).toBe(true);
  });

  it(`answers HTTP 429 with Retry-After past ${limits.strategySavesPerWindowMax} saves a minute, per user`, async () => {
    const t = await setup();
    for (let i = 0; i < limits.strategySavesPerWindowMax; i++) {
      // Refused saves count too: the rate bounds the work, whatever the outcome.
      const r = await save(t, t.cookie, i % 2 === 0 ? VALID : { ...VALID, instrument: 'CL' });
      expect(r.status).toBe(200);
    }
    const over = await save(t, t.cookie, VALID);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe(String(limits.strategySaveWindowMs / 1000));
    expect(over.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many strategy saves; retry shortly' });
    const bob = await otherUser(t);
    expect((await save(t, bob, VALID)).body.success).toBe(true);
    t.clock.advance(limits.strategySaveWindowMs);
    expect((await save(t, t.cookie, VALID)).body.success).toBe(true);
  });
});
