// Reading stored day chunks back into typed columns: 30 weekdays of generated NQ 1 s bars
// (82,800 a day Monday–Thursday, 79,200 on Fridays) are written to a temp-dir database with
// BarChunkStore.put, then read with BarChunkStore.get after reopening the database, so nothing is
// cached by our code (SQLite's page cache starts empty; the operating system's file cache is warm,
// as on a running server). Each run reopens the database and reads every day once.
// Targets (bench/README.md): one day ≤ 3 ms, 30 days ≤ 150 ms.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only chunk-read` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/chunk-read.bench.ts

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './support.ts';
import { load } from './root.ts';

const { generateDay } = await load<typeof import('../src/data/generator.ts')>('src/data/generator.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { weekdayOf } = await load<typeof import('../src/domain/trading-hours.ts')>('src/domain/trading-hours.ts');
const { BarChunkStore } = await load<typeof import('../src/store/bar-chunks.ts')>('src/store/bar-chunks.ts');
const { inTransaction, openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const DAYS = 30;
const RUNS = 9;

const NQ = findInstrument('NQ');
if (!NQ) throw new Error('NQ missing from the catalog');
const days: number[] = [];
for (let d = daysFromCivil(2025, 3, 3); days.length < DAYS; d++) if (weekdayOf(d) % 6 !== 0) days.push(d);

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-chunks-'));
const path = join(dir, 'replaydesk.db');
{
  const db = openDb(path);
  const store = new BarChunkStore(db);
  inTransaction(db, () => {
    for (const d of days) store.put('NQ', d, 'import', generateDay(NQ, d));
  });
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

// Checksum of what was read, so the reads cannot be optimised away and are known to be whole.
let checksum = 0;
let bars = 0;

/** Reopens the database and reads every day once; returns each read's milliseconds and the total. */
function readAll(): { perDay: number[]; totalMs: number } {
  const db = openDb(path);
  const store = new BarChunkStore(db);
  const perDay: number[] = [];
  bars = 0;
  const start = Bun.nanoseconds();
  for (const d of days) {
    const t0 = Bun.nanoseconds();
    const b = store.get('NQ', d);
    perDay.push((Bun.nanoseconds() - t0) / 1e6);
    if (!b) throw new Error(`day ${d} missing`);
    bars += b.length;
    checksum = (checksum + b.close[b.length - 1] + b.time[0]) | 0;
  }
  const totalMs = (Bun.nanoseconds() - start) / 1e6;
  db.close();
  return { perDay, totalMs };
}

readAll(); // warm-up: loads the code paths and the OS file cache
const dayMs: number[] = [];
const totalMs: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const { perDay, totalMs: t } = readAll();
  dayMs.push(...perDay);
  totalMs.push(t);
}

const fileMb = statSync(path).size / 1e6;
console.log(`NQ 1 s chunks: ${DAYS} days, ${bars.toLocaleString('en-US')} bars, database ${fileMb.toFixed(1)} MB (checksum ${checksum})`);
console.log(
  `one day (${(bars / DAYS).toLocaleString('en-US')} bars), first read after reopening: ` +
    `median ${median(dayMs).toFixed(3)} ms, min ${Math.min(...dayMs).toFixed(3)} ms (n=${dayMs.length}; target ≤ 3 ms)`,
);
console.log(
  `all ${DAYS} days after reopening: median ${median(totalMs).toFixed(2)} ms, min ${Math.min(...totalMs).toFixed(2)} ms ` +
    `(n=${RUNS}; target ≤ 150 ms)`,
);
rmSync(dir, { recursive: true, force: true });
