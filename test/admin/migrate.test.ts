// `admin data migrate --to postgres://…` as a user who outgrew one machine runs it: a DATA_DIR made by
// a real instance (users, a replay session with orders and fills, a challenge with a payout, a
// strategy, a finished playground run with its packed trades, imported bars), the CLI as a process
// against a fresh PostgreSQL database, then the same questions asked of a PostgreSQL-backed instance
// with the same token: the same answers. A non-empty target, a second run and a copy that reads
// back wrong all leave the target as they found it.

import { afterEach, beforeAll, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { buildApp } from '../../src/app.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { dbPathOf, jwtSecretPathOf, openInstance } from '../../src/instance.ts';
import type { Services } from '../../src/service/services.ts';
import { ChallengeStore } from '../../src/store/challenges.ts';
import { openDb } from '../../src/store/db.ts';
import { PlaygroundRunStore } from '../../src/store/playground-runs.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { readReply, type Reply } from '../support/app.ts';
import { barsOf, dayOf } from '../support/bars.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';
import { DAY, OPEN_S, ticks, WALL_MS } from '../support/replay.ts';

const ROOT = join(import.meta.dir, '..', '..');
const SPAN = { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' };
const EMAIL = 'trader@example.com';
const PASSWORD = 'correct horse battery';

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', DATA_START_DATE: SPAN.dataStartDate, DATA_END_DATE: SPAN.dataEndDate },
  });
  const stdout = p.stdout.toString();
  return { code: p.exitCode, stderr: p.stderr.toString(), json: JSON.parse(stdout) as Record<string, any> };
}

async function call(s: Services, path: string, body: unknown, token: string): Promise<Reply> {
  const res = await buildApp(s).handle(
    new Request(`http://localhost/api/sim/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
  );
  return readReply(res);
}

async function ok(s: Services, path: string, body: unknown, token: string): Promise<any> {
  const r = await call(s, path, body, token);
  if (!r.body.success) throw new Error(`${path} failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** NQ on DAY: one flat 1 s bar per minute from 14:30, at these prices. */
function putBars(s: Services, prices: number[]): void {
  s.chunks.put('NQ', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(prices.map((p, i) => [OPEN_S + i * 60, ticks(p), ticks(p), ticks(p), ticks(p), 1])));
}

interface Made {
  token: string;
  /** The web login's cookie value (a web_sessions row). */
  cookie: string;
  userId: number;
  replayAccount: number;
  challengeAccount: number;
  strategyId: string;
}

/** What a trader leaves in a DATA_DIR: bars, a session with a round trip, a challenge with a payout, a strategy and a run. */
async function fill(s: Services): Promise<Made> {
  putBars(s, [20_000, 20_000, 20_010, 20_020, 20_005, 20_030]);
  const created = await s.users.create({ email: EMAIL, plan: 'pro', password: PASSWORD });
  if (!created.ok) throw new Error('cannot create user');
  await s.users.create({ email: 'second@example.com', plan: 'free' });
  const userId = (await s.users.list()).find((u) => u.email === EMAIL)!.id;
  const token = (await readReply(await buildApp(s).handle(new Request('http://localhost/api/sim/Auth/loginKey', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: EMAIL, apiKey: created.value.apiKey }),
  })))).body.token as string;
  const web = await s.webAuth.login(EMAIL, PASSWORD, '127.0.0.1');
  if (!web.ok) throw new Error('cannot log in on the web');
  const started = await ok(s, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, token);
  const x = { accountId: started.accountId as number, contractId: started.instrument.contractId as string };
  const market = (side: number, size: number) => ok(s, 'Order/place', { ...x, type: 2, side, size }, token);
  await ok(s, 'Replay/step', { accountId: x.accountId, steps: 1 }, token);
  await market(0, 2);
  await ok(s, 'Replay/step', { accountId: x.accountId, steps: 2 }, token);
  await market(1, 2);
  await ok(s, 'Order/place', { ...x, type: 1, side: 0, size: 1, limitPrice: 19_000 }, token);
  await ok(s, 'Replay/step', { accountId: x.accountId, steps: 1 }, token);
  const challenge = await s.challenges.create(userId, '50K', 'performance', 'standard');
  await new ChallengeStore(s.sql).insertPayout({
    id: 'payout-1', accountId: challenge.account.id, amountCents: 50_000, balanceBeforeCents: 5_100_000, balanceAfterCents: 5_050_000,
    status: 'approved', simTradeDate: dayOf(`${DAY}T00:00:00Z`), requestedMs: WALL_MS,
  });
  const saved = await s.strategies.save(userId, { name: 'Breakout', code: 'def on_bar(ctx, bar):\n    pass\n', instrument: 'NQ', timeframe: '5m', params: { n: 3 } });
  if (!saved.ok) throw new Error('cannot save strategy');
  await finishedRun(s, userId, saved.value.id);
  return { token, cookie: web.value.cookieValue, userId, replayAccount: x.accountId, challengeAccount: challenge.account.id, strategyId: saved.value.id };
}

async function finishedRun(s: Services, userId: number, strategyId: string): Promise<void> {
  const runs = new PlaygroundRunStore(s.sql);
  await runs.insert({
    id: 'run-1', userId, strategyId, templateId: null, instrument: 'NQ', timeframe: '5m', startDate: DAY, endDate: DAY,
    params: { n: 3 }, contextTimeframes: ['1h'], speed: null, barsTotal: 78, startedMs: WALL_MS,
  });
  await runs.end('run-1', {
    status: 'completed', error: null, totalPnlCents: 12_345, totalTrades: 1, winRate: 0.5, barsDone: 78, speed: null, result: { note: 'done' },
    completedMs: WALL_MS + 1_000,
    trades: [{ direction: 1, entryTimeS: OPEN_S, exitTimeS: OPEN_S + 600, entryQty: 2, entryValueTicks: 160_000, exitValueTicks: 160_100, pnlCents: 12_345, feesCents: 560 }],
    tradesPerChunk: 1000,
  });
}

/** The answers compared before and after. */
async function view(s: Services, m: Made) {
  return {
    users: await s.users.list(),
    webUser: (await s.webAuth.authenticate(m.cookie))?.user.email,
    accounts: (await ok(s, 'Account/search', { onlyActiveAccounts: false }, m.token)).accounts,
    orders: (await ok(s, 'Order/search', { accountId: m.replayAccount, startTimestamp: '2020-01-01T00:00:00Z' }, m.token)).orders,
    trades: (await ok(s, 'Trade/search', { accountId: m.replayAccount, startTimestamp: '2020-01-01T00:00:00Z' }, m.token)).trades,
    payouts: (await ok(s, 'Payout/history', { accountId: m.challengeAccount }, m.token)).payouts,
    challenges: await s.challenges.listOwned(m.userId),
    strategies: await s.strategies.list(m.userId),
    runs: await s.strategies.runs(m.userId, m.strategyId),
    trades1: await new PlaygroundRunStore(s.sql).tradesPage(m.userId, 'run-1', 0, 10),
  };
}

/** Rows per table and the two money sums, read from the SQLite file on a connection of our own. */
function sqliteFigures(dataDir: string) {
  const db = openDb(dbPathOf(defaultConfig({ dataDir })));
  try {
    const names = (db.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((r) => r.name);
    const count = (t: string) => (db.query(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    return {
      tables: Object.fromEntries(names.map((t) => [t, count(t)])),
      balancesCents: (db.query('SELECT SUM(balance_cents) AS n FROM accounts').get() as { n: number }).n,
      realizedCents: (db.query('SELECT SUM(realized_cents) AS n FROM fills').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

const CHUNKS = 'SELECT symbol, day, source, bar_count, first_s, last_s, bars FROM bar_chunks ORDER BY symbol, day';
const IMPORTS = 'SELECT symbol, file_sha256, file_name, format, bar_count, first_s, last_s, imported_ms FROM imports ORDER BY symbol, file_sha256';
const hexBars = (rows: any[]) => rows.map((r) => ({ ...r, bars: Buffer.from(r.bars).toString('hex') }));

/** Every day chunk (bytes as hex) and import record of the SQLite file. */
function sqliteMarketData(dataDir: string) {
  const db = openDb(dbPathOf(defaultConfig({ dataDir })));
  try {
    return { chunks: hexBars(db.query(CHUNKS).all()), imports: db.query(IMPORTS).all() };
  } finally {
    db.close();
  }
}

/** The same read from PostgreSQL through the store's own Sql (whole numbers as numbers). */
async function pgMarketData(url: string) {
  const pg = await openPostgres(url, { max: 1 });
  try {
    return { chunks: hexBars(await pg.all(CHUNKS)), imports: await pg.all(IMPORTS) };
  } finally {
    await pg.close();
  }
}

/** Rows per table of the target, on a connection of our own. */
async function pgCounts(url: string, tables: string[]): Promise<Record<string, number>> {
  const sql = new SQL(url, { max: 1 });
  try {
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = Number(((await sql.unsafe(`SELECT COUNT(*) AS n FROM ${t}`)) as { n: string }[])[0].n);
    return out;
  } finally {
    await sql.close();
  }
}

const config = (dataDir: string, over: Partial<Config> = {}) => defaultConfig({ dataDir, ...SPAN, ...over });

describePg('admin data migrate', () => {
  let dataDir: string;
  let made: Made;
  let before: Awaited<ReturnType<typeof view>>;
  let figures: ReturnType<typeof sqliteFigures>;
  const opened: Services[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rd-migrate-'));
    const s = await openInstance(config(dataDir), { clock: new ManualClock(WALL_MS), restoreSessions: false });
    made = await fill(s);
    before = await view(s, made);
    await s.shutdown();
    s.db.close();
    const imported = admin(dataDir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', 'test/fixtures/import/generic-nq-1s.csv');
    expect(imported.json.files?.[0]?.status).toBe('imported');
    figures = sqliteFigures(dataDir);
  });

  // Closed after each test, before describePg drops the databases (a node's shutdown hands back its leases).
  afterEach(async () => {
    for (const s of opened.splice(0)) {
      await s.shutdown();
      s.db.close();
    }
  });

  /** A PostgreSQL-backed instance on `url`, on a DATA_DIR of its own (the node's local one). */
  async function pgInstance(url: string): Promise<Services> {
    const s = await openInstance(config(mkdtempSync(join(tmpdir(), 'rd-node-')), { databaseUrl: url }), { clock: new ManualClock(WALL_MS), restoreSessions: false });
    opened.push(s);
    return s;
  }

  it('the DATA_DIR holds every kind of row the issue names', () => {
    const t = figures.tables;
    for (const name of ['users', 'tokens', 'accounts', 'replay_sessions', 'orders', 'fills', 'challenges', 'payouts', 'strategies', 'playground_runs', 'playground_run_trades', 'bar_chunks', 'bar_rollups', 'imports', 'web_sessions']) {
      expect([name, t[name] > 0]).toEqual([name, true]);
    }
    expect(figures.realizedCents).not.toBe(0);
    // The answers compared after the move are not empty ones.
    expect([before.users.length, before.accounts.length, before.orders.length, before.trades.length, before.payouts.length, before.strategies.length]).toEqual([2, 2, 3, 2, 1, 1]);
    expect(before.runs.ok && before.runs.value.map((r) => [r.id, r.status, r.totalPnlCents])).toEqual([['run-1', 'completed', 12_345]]);
    expect(before.trades1?.stored).toBe(1);
    expect(before.challenges.map((c) => c.account.id)).toEqual([made.challengeAccount]);
    expect(before.webUser).toBe(EMAIL);
  });

  it('copies everything into an empty database: counts and sums in the summary, the same answers from a PostgreSQL instance with the same token', async () => {
    const url = await freshDatabase();
    const r = admin(dataDir, 'data', 'migrate', '--to', url);
    expect([r.code, r.stderr, r.json.error]).toEqual([0, '', undefined]);
    if (process.env.SHOW_SUMMARY) console.log(JSON.stringify(r.json));
    const { session_leases: leases, ...liteTables } = figures.tables;
    expect(leases).toBe(0);
    expect(r.json.tables).toEqual(liteTables);
    expect(r.json.skipped).toEqual({ session_leases: 'which node holds each live session: runtime state of the nodes, the new ones take their own' });
    expect([r.json.balancesCents, r.json.realizedCents]).toEqual([figures.balancesCents, figures.realizedCents]);
    expect(r.json.jwtSecret).toBe('copied');
    expect(r.json.to).toBe(`postgres://${new URL(url).host}${new URL(url).pathname}`);
    expect(r.json.marketData).toContain('every node copies them into its own DATA_DIR when it starts and after each import');
    // Rows in order: the tables a foreign key names come first.
    const order = Object.keys(r.json.tables);
    for (const [child, parent] of [['accounts', 'users'], ['fills', 'accounts'], ['payouts', 'accounts'], ['playground_run_trades', 'playground_runs']]) {
      expect(order.indexOf(parent)).toBeLessThan(order.indexOf(child));
    }

    const counts = await pgCounts(url, Object.keys(figures.tables));
    expect(counts).toEqual({ ...figures.tables, meta: figures.tables.meta + 1 });
    const secret = new SQL(url, { max: 1 });
    const stored = (await secret.unsafe(`SELECT value FROM meta WHERE key = 'jwt_secret'`)) as { value: string }[];
    await secret.close();
    expect(stored[0].value).toBe(readFileSync(jwtSecretPathOf(config(dataDir))).toString('hex'));

    expect(await pgMarketData(url)).toEqual(sqliteMarketData(dataDir));

    const s = await pgInstance(url);
    expect(s.sql.dialect).toBe('postgres');
    expect(await view(s, made)).toEqual(before);
    // A new account takes the id after the copied ones (the identity sequence was moved past them).
    // The node reads market data from its own DATA_DIR today (the summary says so): give it the bars.
    putBars(s, [20_000, 20_000]);
    const next = await ok(s, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' }, made.token);
    expect(next.accountId).toBe(r.json.nextIds.accounts);
    expect(r.json.nextIds.accounts).toBe(Math.max(...before.accounts.map((a: any) => a.id)) + 1);
    const user = await s.users.create({ email: 'third@example.com', plan: 'free' });
    expect(user.ok).toBe(true);
    expect((await s.users.list()).find((u) => u.email === 'third@example.com')!.id).toBe(r.json.nextIds.users);

    // A second run finds the target full and changes nothing.
    const again = admin(dataDir, 'data', 'migrate', '--to', url);
    expect(again.code).toBe(1);
    expect(again.json.kind).toBe('refused');
    expect(again.json.error).toContain('the target database is not empty: it holds users (3 rows), accounts (');
    expect(await pgCounts(url, ['users', 'accounts', 'orders'])).toEqual({ users: 3, accounts: figures.tables.accounts + 1, orders: figures.tables.orders });
  }, 120_000);

  it('refuses a target that already has users, naming what it found, and writes nothing', async () => {
    const url = await freshDatabase();
    const s = await pgInstance(url);
    await s.users.create({ email: 'someone@example.com', plan: 'pro' });
    const r = admin(dataDir, 'data', 'migrate', '--to', url);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      error: 'the target database is not empty: it holds users (1 row); migrate only into an empty database (nothing was written)',
      kind: 'refused',
    });
    const counts = await pgCounts(url, Object.keys(figures.tables));
    expect(Object.entries(counts).filter(([, n]) => n > 0)).toEqual([['meta', 1], ['users', 1]]);
  }, 120_000);

  it('rolls everything back when the copy reads back different from the source', async () => {
    const url = await freshDatabase();
    const pg = await openPostgres(url, { max: 1 });
    // A trigger that skims a cent off every copied account: the verification must catch it.
    await pg.run(`CREATE FUNCTION skim() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN NEW.balance_cents := NEW.balance_cents - 1; RETURN NEW; END'`);
    await pg.run('CREATE TRIGGER skim BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION skim()');
    await pg.close();
    const r = admin(dataDir, 'data', 'migrate', '--to', url);
    expect(r.code).toBe(1);
    expect(r.json.kind).toBe('mismatch');
    expect(r.json.error).toContain(`balancesCents: ${figures.balancesCents} in SQLite, ${figures.balancesCents - figures.tables.accounts} in PostgreSQL`);
    expect(r.json.error).toMatch(/accounts \{"id":\d+\}\.balance_cents: \d+ in SQLite, \d+ in PostgreSQL/);
    const counts = await pgCounts(url, Object.keys(figures.tables));
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  }, 120_000);

  it('refuses bad input with one JSON error line', () => {
    expect(admin(dataDir, 'data', 'migrate').json).toEqual({ error: '--to is required' });
    expect(admin(dataDir, 'data', 'migrate', '--to', 'mysql://x/y').json).toEqual({ error: '--to must be a postgres:// URL' });
    const empty = mkdtempSync(join(tmpdir(), 'rd-none-'));
    const r = admin(empty, 'data', 'migrate', '--to', 'postgres://127.0.0.1:1/x');
    expect(r.code).toBe(1);
    expect(r.json.error).toBe(`no database in DATA_DIR ${empty} (expected ${join(empty, 'replaydesk.db')})`);
  });
});
