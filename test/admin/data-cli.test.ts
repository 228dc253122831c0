// `admin data import` and `admin data list` as a user runs them: the CLI as a subprocess on a fresh
// data directory, one JSON object on stdout, progress on stderr, exit 1 with {"error"} on bad input;
// then a server opened on the same directory serves the imported bars in place of synthetic ones.
//
// The synthetic span is pinned to the week 2024-01-01 (Monday) to 2024-01-07 (Sunday) so `data list`
// has exact counts. In January, CME Globex trades Sunday 23:00Z to Friday 22:00Z with a daily halt
// 22:00–23:00Z: UTC Monday–Thursday 82,800 s, Friday 79,200 s, Sunday 3,600 s, Saturday none.
// Spot forex trades Sunday 22:00Z to Friday 22:00Z without a halt: 86,400 / 79,200 / 7,200 s.

import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { dbPathOf, openInstance } from '../../src/instance.ts';
import { BarChunkStore } from '../../src/store/bar-chunks.ts';
import { openDb } from '../../src/store/db.ts';

const ROOT = join(import.meta.dir, '..', '..');
const FIX = 'test/fixtures/import';
const SPAN = { dataStartDate: '2024-01-01', dataEndDate: '2024-01-07' };

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATA_START_DATE: SPAN.dataStartDate, DATA_END_DATE: SPAN.dataEndDate },
  });
  const stdout = p.stdout.toString();
  return { code: p.exitCode, stdout, stderr: p.stderr.toString(), json: JSON.parse(stdout) };
}

const freshDir = () => mkdtempSync(join(tmpdir(), 'rd-data-'));

/** Every stored chunk and import record, bytes included, read on a connection of our own. */
function storedState(dataDir: string) {
  const db = openDb(dbPathOf(defaultConfig({ dataDir })));
  try {
    return {
      chunks: db.query('SELECT symbol, day, source, bar_count, first_s, last_s, hex(bars) AS bars FROM bar_chunks ORDER BY symbol, day').all(),
      imports: db.query('SELECT symbol, file_sha256, file_name, format, bar_count, first_s, last_s FROM imports ORDER BY rowid').all(),
    };
  } finally {
    db.close();
  }
}

function listOf(dataDir: string): Record<string, any> {
  const r = admin(dataDir, 'data', 'list');
  expect(r.code).toBe(0);
  return Object.fromEntries(r.json.instruments.map((i: any) => [i.symbol, i]));
}

const GENERIC_NQ = {
  file: 'generic-nq-1s.csv',
  status: 'imported',
  bars: 30,
  days: 1,
  sourceResolutionS: 1,
  first: '2024-01-02T14:30:00Z',
  last: '2024-01-02T14:30:32Z',
};

const UNCHANGED = { status: 'unchanged', bars: 0, days: 0, sourceResolutionS: 0, first: null, last: null };

describe('admin data import', () => {
  it('imports a generic CSV: one JSON line on stdout with exact figures, progress on stderr only', () => {
    const dir = freshDir();
    const r = admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n').length).toBe(1);
    expect(r.json).toEqual({ symbol: 'NQ', files: [GENERIC_NQ] });
    expect(r.stderr).toBe(`${FIX}/generic-nq-1s.csv: 31/31 lines\n`);
    const state = storedState(dir);
    expect(state.chunks.map((c: any) => [c.symbol, c.day, c.source, c.bar_count, c.first_s, c.last_s])).toEqual([
      ['NQ', 19724, 'import', 30, 1704205800, 1704205832],
    ]);
    expect(state.imports).toEqual([
      {
        symbol: 'NQ',
        file_sha256: new Bun.CryptoHasher('sha256').update(readFileSync(join(ROOT, FIX, 'generic-nq-1s.csv'))).digest('hex'),
        file_name: 'generic-nq-1s.csv',
        format: 'csv',
        bar_count: 30,
        first_s: 1704205800,
        last_s: 1704205832,
      },
    ]);
  });

  it('importing the same file again is "unchanged" and changes nothing', () => {
    const dir = freshDir();
    admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`);
    const listBefore = admin(dir, 'data', 'list').json;
    const stateBefore = storedState(dir);
    // Lower-case symbol and another spelling of the path: the content decides, not the name.
    const again = admin(dir, 'data', 'import', '--symbol', 'nq', '--format', 'csv', join(ROOT, FIX, 'generic-nq-1s.csv'));
    expect(again.code).toBe(0);
    expect(again.json).toEqual({ symbol: 'NQ', files: [{ file: 'generic-nq-1s.csv', ...UNCHANGED }] });
    expect(admin(dir, 'data', 'list').json).toEqual(listBefore);
    expect(storedState(dir)).toEqual(stateBefore);
  });

  // Each format with a fixture in its real layout and the instrument it fits (HistData and
  // NinjaTrader minute files are coarser than the 1 s instruments, so their tick files are used).
  it.each([
    ['csv', 'GC', ['--tz', 'America/New_York'], 'generic-gc-1s-new-york.csv', 3, 1, '2024-01-02T14:29:50Z', '2024-01-02T14:30:10Z'],
    ['databento', 'NQ', [], 'databento-nq-ohlcv-1s.csv', 24, 1, '2024-01-02T14:30:00Z', '2024-01-02T14:30:26Z'],
    ['databento', 'GC', [], 'databento-gc-ohlcv-1s-raw.csv', 5, 1, '2024-02-05T14:59:50Z', '2024-02-05T15:00:30Z'],
    ['ninjatrader', 'GC', [], 'ninjatrader-gc-ticks.txt', 2, 0, '2024-02-05T14:59:50Z', '2024-02-05T15:00:00Z'],
    ['histdata', 'EURUSD', [], 'histdata-eurusd-ticks-202407.csv', 14, 0, '2024-07-01T14:29:58Z', '2024-07-01T14:30:11Z'],
  ])('format %s: %s from %p %s', (format, symbol, tz, file, bars, sourceResolutionS, first, last) => {
    const dir = freshDir();
    const r = admin(dir, 'data', 'import', '--symbol', symbol, '--format', format, ...tz, `${FIX}/${file}`);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ symbol, files: [{ file, status: 'imported', bars, days: 1, sourceResolutionS, first, last }] });
    expect(listOf(dir)[symbol].imported).toEqual({ source: 'import', days: 1, bars, first, last });
  });

  // The first bad line, by number (header = line 1), exactly as the importer words it.
  it.each([
    ['NQ', 'csv', [], 'bad-number.csv', 'line 4: low "16835.OO" is not a number'],
    ['NQ', 'csv', [], 'out-of-order.csv', 'line 5: time 2024-01-02T14:30:00Z is before 2024-01-02T14:30:02Z on line 4'],
    ['NQ', 'csv', [], 'off-grid.csv', 'line 4: high 16835.3 is not on the 0.25 tick grid of NQ'],
    ['NQ', 'databento', [], 'databento-mixed-symbols.csv',
      'line 3: symbol "NQM4" differs from "NQH4" on line 2; export one instrument per file (a continuous symbol such as NQ.c.0 keeps one name across rolls)'],
    ['NQ', 'ninjatrader', ['--tz', 'America/New_York'], 'ninjatrader-spring-gap.txt',
      'line 2: local time "20240310 023000" does not exist in America/New_York (clocks moved forward); check the time zone'],
    ['EURUSD', 'histdata', [], 'histdata-metatrader.csv',
      "line 1: this is HistData's MetaTrader layout (DAT_MT_...); download the Generic ASCII files (DAT_ASCII_...)"],
  ])('%s %s %p bad/%s → exit 1, %s, nothing written', (symbol, format, tz, file, message) => {
    const dir = freshDir();
    // A good import first, so "nothing written" is checked against a non-empty store.
    admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`);
    const listBefore = listOf(dir);
    const stateBefore = storedState(dir);
    const path = `${FIX}/bad/${file}`;
    const r = admin(dir, 'data', 'import', '--symbol', symbol, '--format', format, ...tz, path);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').length).toBe(1);
    expect(r.json).toEqual({ error: `${path} ${message}`, files: [] });
    const listAfter = listOf(dir);
    for (const s of ['NQ', 'EURUSD']) expect(listAfter[s].imported).toEqual(listBefore[s].imported);
    expect(storedState(dir)).toEqual(stateBefore);
  });

  it('several files: the good ones before a bad one are kept and listed, the bad one writes nothing', () => {
    const dir = freshDir();
    const bad = `${FIX}/bad/bad-time.csv`;
    const r = admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`, bad);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: `${bad} line 3: unparseable time "2024-01-02T14:30:61Z"`, files: [GENERIC_NQ] });
    expect(listOf(dir).NQ.imported).toEqual({ source: 'import', days: 1, bars: 30, first: GENERIC_NQ.first, last: GENERIC_NQ.last });
  });

  it('refuses bars coarser than the stored resolution with the importer\'s message', () => {
    const dir = freshDir();
    const path = `${FIX}/databento-nq-ohlcv-1m.csv`;
    const r = admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'databento', path);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      error: `${path}: Bars are 60-second bars; NQ is stored at 1-second resolution and cannot be built from coarser bars`,
      files: [],
    });
    expect(storedState(dir)).toEqual({ chunks: [], imports: [] });
  });

  it.each([
    ['unknown symbol', ['--symbol', 'ZZ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`],
      { error: 'unknown symbol "ZZ"; expected one of NQ, ES, MNQ, MES, GC, EURUSD, LIGHTCMDUSD, YM, MYM, RTY, M2K, CL, MCL, MGC, NG, ZN, ZB, 6E, 6B, 6J', files: [] }],
    ['unknown format', ['--symbol', 'NQ', '--format', 'parquet', `${FIX}/generic-nq-1s.csv`],
      { error: '--format must be one of csv, databento, ninjatrader, histdata' }],
    ['missing file', ['--symbol', 'NQ', '--format', 'csv', `${FIX}/nope.csv`],
      { error: `${FIX}/nope.csv: cannot read file: ENOENT: no such file or directory, open '${FIX}/nope.csv'`, files: [] }],
    ['no file named', ['--symbol', 'NQ', '--format', 'csv'], { error: 'name at least one FILE to import' }],
    ['no symbol', ['--format', 'csv', `${FIX}/generic-nq-1s.csv`], { error: '--symbol is required' }],
    ['no format', ['--symbol', 'NQ', `${FIX}/generic-nq-1s.csv`], { error: '--format is required' }],
    ['unknown zone', ['--symbol', 'NQ', '--format', 'csv', '--tz', 'Mars/Olympus', `${FIX}/generic-nq-1s.csv`],
      { error: `${FIX}/generic-nq-1s.csv: Unknown time zone "Mars/Olympus"; use an IANA name such as America/New_York`, files: [] }],
  ])('%s → exit 1 with the error text', (_name, args, body) => {
    const dir = freshDir();
    const r = admin(dir, 'data', 'import', ...(args as string[]));
    expect(r.code).toBe(1);
    expect(r.json).toEqual(body);
    expect(storedState(dir)).toEqual({ chunks: [], imports: [] });
  });

  it('unknown data command → exit 1', () => {
    const r = admin(freshDir(), 'data', 'frob');
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: 'unknown data command "frob"; expected import, list or migrate' });
  });

  it('refuses while a live process holds the import lock; a lock left by a dead process is ignored', () => {
    const dir = freshDir();
    const db = openDb(dbPathOf(defaultConfig({ dataDir: dir })));
    const chunks = new BarChunkStore(db);
    const args = ['data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`];
    try {
      expect(chunks.lockImport('NQ', 0, process.pid)).toBe(true);
      const busy = admin(dir, ...args);
      expect(busy.code).toBe(1);
      expect(busy.json).toEqual({ error: 'another import of this instrument is running', files: [] });
      expect(storedState(dir).chunks).toEqual([]);
      chunks.unlockImport('NQ');

      expect(chunks.lockImport('NQ', 0, 999_999)).toBe(true);
      const r = admin(dir, ...args);
      expect(r.code).toBe(0);
      expect(r.json).toEqual({ symbol: 'NQ', files: [GENERIC_NQ] });
      expect(chunks.importLocks()).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('admin data list', () => {
  const globexWeek = { days: 6, bars: 4 * 82_800 + 79_200 + 3_600 };
  const fxWeek = { days: 6, bars: 4 * 86_400 + 79_200 + 7_200 };
  const synthetic = (days: number, bars: number, replacedByImport = 0) => ({
    source: 'synthetic (deterministic generator)',
    days,
    bars,
    replacedByImport,
  });
  const row = (symbol: string, storedResolutionS: number, syn: object, imported: object | null = null, lastDate = '2024-01-07') => ({
    symbol,
    storedResolutionS,
    importing: false,
    available: { firstDate: '2024-01-01', lastDate },
    imported,
    synthetic: syn,
  });

  it('per instrument: stored resolution, available span, imported summary (null before), synthetic summary', () => {
    const dir = freshDir();
    const before = admin(dir, 'data', 'list');
    expect(before.code).toBe(0);
    expect(before.stdout.trim().split('\n').length).toBe(1);
    expect(before.json).toEqual({
      instruments: [
        row('NQ', 1, synthetic(globexWeek.days, globexWeek.bars)),
        row('ES', 1, synthetic(globexWeek.days, globexWeek.bars)),
        row('MNQ', 1, synthetic(globexWeek.days, globexWeek.bars)),
        row('MES', 1, synthetic(globexWeek.days, globexWeek.bars)),
        row('GC', 10, synthetic(globexWeek.days, globexWeek.bars / 10)),
        row('EURUSD', 1, synthetic(fxWeek.days, fxWeek.bars)),
        row('LIGHTCMDUSD', 10, synthetic(globexWeek.days, globexWeek.bars / 10)),
        // The live profile's rows (src/domain/instruments.json): all CME Globex.
        ...['YM', 'MYM', 'RTY', 'M2K'].map((sym) => row(sym, 1, synthetic(globexWeek.days, globexWeek.bars))),
        ...['CL', 'MCL', 'MGC', 'NG', 'ZN', 'ZB', '6E', '6B', '6J'].map((sym) => row(sym, 10, synthetic(globexWeek.days, globexWeek.bars / 10))),
      ],
    });

    // NQ's Tuesday is replaced by the import; EURUSD's July day extends its available span.
    admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`);
    admin(dir, 'data', 'import', '--symbol', 'EURUSD', '--format', 'histdata', `${FIX}/histdata-eurusd-ticks-202407.csv`);
    const after = listOf(dir);
    expect(after.NQ).toEqual(
      row('NQ', 1, synthetic(globexWeek.days - 1, globexWeek.bars - 82_800, 1), {
        source: 'import', days: 1, bars: 30, first: '2024-01-02T14:30:00Z', last: '2024-01-02T14:30:32Z',
      }),
    );
    // The July day lies outside the synthetic span, so no synthetic day is replaced by it.
    expect(after.EURUSD).toEqual(
      row('EURUSD', 1, synthetic(fxWeek.days, fxWeek.bars, 0), {
        source: 'import', days: 1, bars: 14, first: '2024-07-01T14:29:58Z', last: '2024-07-01T14:30:11Z',
      }, '2024-07-01'),
    );
    expect(after.ES).toEqual(before.json.instruments[1]);
  });

  it('shows an instrument as importing while a live process holds its lock', () => {
    const dir = freshDir();
    const db = openDb(dbPathOf(defaultConfig({ dataDir: dir })));
    new BarChunkStore(db).lockImport('GC', 0, process.pid);
    try {
      expect(listOf(dir).GC.importing).toBe(true);
      expect(listOf(dir).NQ.importing).toBe(false);
    } finally {
      db.close();
    }
  });
});

describe('imported bars on the server', () => {
  const NQ = 'CON.F.US.ENQ.H24';

  /** A server on `dir`, as `bun src/main.ts` would open it, with a logged-in Pro user. */
  async function serverOn(dir: string) {
    const s = await openInstance(defaultConfig({ dataDir: dir, ...SPAN }));
    const app = buildApp(s);
    const created = await s.users.create({ email: 'bars@example.com', plan: 'pro' });
    if (!created.ok) throw new Error('cannot create user');
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await app.handle(
        new Request(`http://localhost/api/sim/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }),
      );
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const login = await post('Auth/loginKey', { userName: 'bars@example.com', apiKey: created.value.apiKey });
    const token = login.body.token as string;
    return { s, bars: (body: object) => post('History/retrieveBars', { contractId: NQ, ...body }, token) };
  }

  /** The fixture's rows as the wire shows them, read the obvious way. */
  function fixtureBars(): object[] {
    const lines = readFileSync(join(ROOT, FIX, 'generic-nq-1s.csv'), 'utf8').trim().split('\n').slice(1);
    return lines.map((l) => {
      const [t, o, h, lo, c, v] = l.split(',');
      return { t, o: +o, h: +h, l: +lo, c: +c, v: +v };
    });
  }

  const secondsOfTuesday = { unit: 1, unitNumber: 1, startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };

  it('History/retrieveBars returns exactly the imported bars for the range: imports override synthetic data', async () => {
    const dir = freshDir();
    const { s, bars } = await serverOn(dir);
    try {
      const synthetic = await bars(secondsOfTuesday);
      expect(synthetic.body.success).toBe(true);
      expect(synthetic.body.bars.length).toBe(20_000); // capped: the synthetic day has 82,800 bars

      expect(admin(dir, 'data', 'import', '--symbol', 'NQ', '--format', 'csv', `${FIX}/generic-nq-1s.csv`).code).toBe(0);
      // The whole UTC day is the file's now, also for the identical request answered a moment ago.
      const imported = await bars(secondsOfTuesday);
      expect(imported.body).toEqual({ bars: fixtureBars(), success: true, errorCode: 0, errorMessage: null });
      // A minute bar built from them: o of the first, c of the last, h/l extremes, v summed.
      const minute = await bars({ unit: 2, unitNumber: 1, startTime: '2024-01-02T14:30:00Z', endTime: '2024-01-02T14:31:00Z' });
      const rows = fixtureBars() as { o: number; h: number; l: number; c: number; v: number }[];
      expect(minute.body.bars).toEqual([{
        t: '2024-01-02T14:30:00Z',
        o: rows[0].o,
        h: Math.max(...rows.map((r) => r.h)),
        l: Math.min(...rows.map((r) => r.l)),
        c: rows[rows.length - 1].c,
        v: rows.reduce((sum, r) => sum + r.v, 0),
      }]);
      expect(minute.body.bars[0]).toMatchObject({ o: 16834.25, c: 16834.75 }); // lines 2 and 31 of the file, by eye
      // The next day is still synthetic.
      const wednesday = await bars({ ...secondsOfTuesday, startTime: '2024-01-03T00:00:00Z', endTime: '2024-01-03T00:00:10Z' });
      expect(wednesday.body.bars.length).toBe(10);
    } finally {
      s.db.close();
    }
  });

  it('answers 503 with Retry-After 30 while a live process holds the import lock; a dead process\'s lock is ignored', async () => {
    const dir = freshDir();
    const { s, bars } = await serverOn(dir);
    // The lock is written through another connection, as the admin CLI would.
    const db = openDb(dbPathOf(defaultConfig({ dataDir: dir })));
    const chunks = new BarChunkStore(db);
    try {
      chunks.lockImport('NQ', Date.now(), process.pid);
      const busy = await bars(secondsOfTuesday);
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('30');
      expect(busy.body).toEqual({
        success: false,
        errorCode: 503,
        errorMessage: 'Market data for this contract is being re-imported; retry later',
      });
      chunks.unlockImport('NQ');

      chunks.lockImport('NQ', Date.now(), 999_999);
      const served = await bars({ ...secondsOfTuesday, limit: 5 });
      expect(served.status).toBe(200);
      expect(served.body.bars.length).toBe(5);
      // The dead process's lock is cleared on the way.
      expect(chunks.importLocks()).toEqual([]);
    } finally {
      db.close();
      s.db.close();
    }
  });
});
