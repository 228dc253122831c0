// Bytes and read cost of storing every trade of a year-long run (14,041 trades, the sma_cross year of
// NQ 1 m), side by side: the packed columns the store uses (store/playground-runs.ts), the same
// columns through msgpackr (plain arrays and typed arrays), rows as msgpackr records and as JSON, and
// on SQLite (file pages, as stored) the packed columns as one BLOB a run, in chunks of 1,000 (the
// store) and a table with one row per trade. A page read is 1,000 trades near the end, decoded to the
// engine's trade records. Prints sizes and medians.
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only run-trades-storage` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/run-trades-storage.bench.ts   (TRADES=200000 for the stored maximum)

import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr, pack, unpack } from 'msgpackr';
import type { StoredTrade } from '../src/store/playground-runs.ts';
import { median } from './support.ts';
import { load } from './root.ts';

const { chunkTrades, decodeTrades, encodeTrades } = await load<typeof import('../src/store/playground-runs.ts')>('src/store/playground-runs.ts');

const N = Number(process.env.TRADES ?? 14_041);
const PAGE = 1000;
const ROUNDS = 15;

/** `N` NQ trades over a year: 1–3 contracts, prices near 20,000 (80,000 ticks), fees 2.80 a side a contract. */
function trades(): StoredTrade[] {
  let seed = 0x2545f491;
  const rnd = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const out: StoredTrade[] = [];
  let t = Date.UTC(2024, 0, 2) / 1000;
  let px = 80_000;
  for (let i = 0; i < N; i++) {
    const qty = 1 + Math.floor(rnd() * 3);
    const dir = rnd() < 0.5 ? 1 : -1;
    const held = 60 * (1 + Math.floor(rnd() * 120));
    const move = Math.round((rnd() - 0.5) * 200);
    const fees = 280 * qty * 2;
    out.push({
      direction: dir, entryTimeS: t, exitTimeS: t + held, entryQty: qty, entryValueTicks: px * qty, exitValueTicks: (px + move) * qty,
      pnlCents: dir * move * qty * 500 - fees, feesCents: fees,
    });
    t += held + 60 * Math.floor(rnd() * 30);
    px += move;
  }
  return out;
}

const COLS = ['direction', 'entryTimeS', 'exitTimeS', 'entryQty', 'entryValueTicks', 'exitValueTicks', 'pnlCents', 'feesCents'] as const;

function columns(ts: readonly StoredTrade[]): Record<string, number[]> {
  return Object.fromEntries(COLS.map((k) => [k, ts.map((t) => t[k])]));
}

function typedColumns(ts: readonly StoredTrade[]): Record<string, Float64Array | Uint32Array | Int32Array> {
  return {
    entryValueTicks: Float64Array.from(ts, (t) => t.entryValueTicks),
    exitValueTicks: Float64Array.from(ts, (t) => t.exitValueTicks),
    pnlCents: Float64Array.from(ts, (t) => t.pnlCents),
    feesCents: Float64Array.from(ts, (t) => t.feesCents),
    entryTimeS: Uint32Array.from(ts, (t) => t.entryTimeS),
    exitTimeS: Uint32Array.from(ts, (t) => t.exitTimeS),
    size: Int32Array.from(ts, (t) => t.direction * t.entryQty),
  };
}

function rowsFromColumns(c: Record<string, number[]>, from: number, to: number): StoredTrade[] {
  const out: StoredTrade[] = [];
  for (let i = from; i < to; i++) {
    out.push({
      direction: c.direction[i] as 1 | -1, entryTimeS: c.entryTimeS[i], exitTimeS: c.exitTimeS[i], entryQty: c.entryQty[i],
      entryValueTicks: c.entryValueTicks[i], exitValueTicks: c.exitValueTicks[i], pnlCents: c.pnlCents[i], feesCents: c.feesCents[i],
    });
  }
  return out;
}

function timed(f: () => unknown): number {
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/** The store's layout: packed chunks of `PAGE` trades, a row each; a page read takes the one or two chunks it spans. */
function sqliteChunks(ts: readonly StoredTrade[], dir: string): { bytes: number; pageReadMs: number } {
  const db = new Database(join(dir, 'chunks.db'));
  db.run('PRAGMA journal_mode = WAL');
  db.run(`CREATE TABLE playground_run_trades (run_id TEXT NOT NULL, first_index INTEGER NOT NULL, trade_count INTEGER NOT NULL, trades BLOB NOT NULL,
    PRIMARY KEY (run_id, first_index))`);
  const pages = () => (db.query('PRAGMA page_count').get() as { page_count: number }).page_count;
  const before = pages();
  const ins = db.query('INSERT INTO playground_run_trades VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const c of chunkTrades(ts, PAGE)) ins.run('exe_0123456789abcdef', c.firstIndex, c.count, c.packed);
  })();
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = (db.query('PRAGMA page_size').get() as { page_size: number }).page_size;
  const bytes = (pages() - before) * pageSize;
  const sel = db.query(`SELECT first_index AS first, trade_count AS n, trades AS packed FROM playground_run_trades WHERE run_id = ?1 AND first_index < ?3
    AND first_index >= (SELECT MAX(first_index) FROM playground_run_trades WHERE run_id = ?1 AND first_index <= ?2) ORDER BY first_index`);
  // A page across two chunks (the dearer case), as the store reads it.
  const from = N - PAGE - PAGE / 2;
  const pageReadMs = timed(() => {
    for (const r of sel.all('exe_0123456789abcdef', from, from + PAGE) as { first: number; n: number; packed: Uint8Array }[]) {
      decodeTrades(r.packed, r.n, Math.max(from, r.first) - r.first, Math.min(from + PAGE, r.first + r.n) - r.first);
    }
  });
  db.close();
  return { bytes, pageReadMs };
}

/** Bytes a table of one row per trade takes in an SQLite file (pages after the insert, less an empty file's). */
function sqliteRowTable(ts: readonly StoredTrade[], dir: string): { bytes: number; pageReadMs: number } {
  const db = new Database(join(dir, 'rows.db'));
  db.run('PRAGMA journal_mode = WAL');
  db.run(`CREATE TABLE playground_trades (
    run_id TEXT NOT NULL, i INTEGER NOT NULL, direction INTEGER NOT NULL, entry_time INTEGER NOT NULL, exit_time INTEGER NOT NULL,
    qty INTEGER NOT NULL, entry_value INTEGER NOT NULL, exit_value INTEGER NOT NULL, pnl_cents INTEGER NOT NULL, fees_cents INTEGER NOT NULL,
    PRIMARY KEY (run_id, i)) WITHOUT ROWID`);
  const pages = () => (db.query('PRAGMA page_count').get() as { page_count: number }).page_count;
  const before = pages();
  const ins = db.query('INSERT INTO playground_trades VALUES (?,?,?,?,?,?,?,?,?,?)');
  db.transaction(() => {
    ts.forEach((t, i) => ins.run('exe_0123456789abcdef', i, t.direction, t.entryTimeS, t.exitTimeS, t.entryQty, t.entryValueTicks, t.exitValueTicks, t.pnlCents, t.feesCents));
  })();
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = (db.query('PRAGMA page_size').get() as { page_size: number }).page_size;
  const bytes = (pages() - before) * pageSize;
  const sel = db.query('SELECT * FROM playground_trades WHERE run_id = ? AND i >= ? ORDER BY i LIMIT ?');
  const pageReadMs = timed(() => sel.all('exe_0123456789abcdef', N - PAGE, PAGE));
  db.close();
  return { bytes, pageReadMs };
}

/** The packed BLOB stored as the store stores it (one row), its pages, and reading a page back. */
function sqliteBlob(blob: Uint8Array, dir: string): { bytes: number; pageReadMs: number } {
  const db = new Database(join(dir, 'blob.db'));
  db.run('PRAGMA journal_mode = WAL');
  db.run('CREATE TABLE playground_run_trades (run_id TEXT PRIMARY KEY, trade_count INTEGER NOT NULL, trades BLOB NOT NULL)');
  const pages = () => (db.query('PRAGMA page_count').get() as { page_count: number }).page_count;
  const before = pages();
  db.query('INSERT INTO playground_run_trades VALUES (?, ?, ?)').run('exe_0123456789abcdef', N, blob);
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = (db.query('PRAGMA page_size').get() as { page_size: number }).page_size;
  const bytes = (pages() - before) * pageSize;
  const sel = db.query('SELECT trade_count, trades FROM playground_run_trades WHERE run_id = ?');
  const pageReadMs = timed(() => {
    const r = sel.get('exe_0123456789abcdef') as { trade_count: number; trades: Uint8Array };
    decodeTrades(r.trades, r.trade_count, N - PAGE, N);
  });
  db.close();
  return { bytes, pageReadMs };
}

function main(): void {
  const load = require('node:fs').readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${N.toLocaleString('en-US')} trades; page = the last ${PAGE}; medians of ${ROUNDS}; load average ${load}`);
  const ts = trades();
  const dir = mkdtempSync(join(tmpdir(), 'rd-trades-bench-'));
  try {
    const packed = encodeTrades(ts);
    const cols = columns(ts);
    const mpCols = pack(cols);
    const mpTyped = pack(typedColumns(ts));
    const records = new Packr({ useRecords: true });
    const mpRecords = records.pack(ts);
    const json = new TextEncoder().encode(JSON.stringify(ts));
    const row = (label: string, bytes: number, pageMs: number) =>
      console.log(`${label.padEnd(44)} ${bytes.toLocaleString('en-US').padStart(10)} B  ${(bytes / N).toFixed(1).padStart(6)} B/trade  page ${pageMs.toFixed(3).padStart(7)} ms`);
    row('packed columns, DataView', packed.byteLength, timed(() => decodeTrades(packed, N, N - PAGE, N)));
    row('msgpackr, columns as number arrays', mpCols.byteLength, timed(() => rowsFromColumns(unpack(mpCols), N - PAGE, N)));
    row('msgpackr, columns as typed arrays', mpTyped.byteLength, timed(() => {
      const c = unpack(mpTyped);
      const out: StoredTrade[] = [];
      for (let i = N - PAGE; i < N; i++) {
        out.push({
          direction: c.size[i] > 0 ? 1 : -1, entryTimeS: c.entryTimeS[i], exitTimeS: c.exitTimeS[i], entryQty: Math.abs(c.size[i]),
          entryValueTicks: c.entryValueTicks[i], exitValueTicks: c.exitValueTicks[i], pnlCents: c.pnlCents[i], feesCents: c.feesCents[i],
        });
      }
    }));
    row('msgpackr, rows as records', mpRecords.byteLength, timed(() => records.unpack(mpRecords).slice(N - PAGE)));
    row('JSON, rows', json.byteLength, timed(() => JSON.parse(new TextDecoder().decode(json)).slice(N - PAGE)));
    const blob = sqliteBlob(packed, dir);
    row('SQLite file: the packed BLOB, one row', blob.bytes, blob.pageReadMs);
    const chunks = sqliteChunks(ts, dir);
    row(`SQLite file: packed chunks of ${PAGE} (the store)`, chunks.bytes, chunks.pageReadMs);
    const table = sqliteRowTable(ts, dir);
    row('SQLite file: a row a trade (WITHOUT ROWID)', table.bytes, table.pageReadMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
