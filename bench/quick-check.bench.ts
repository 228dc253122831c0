// What the integrity check at start costs (openDb runs PRAGMA quick_check on every start): a
// database of about 200 MB (50,000 rows of 4 KB with an index), checkpointed, checked five times
// from a fresh connection; prints the median and the rate in MB a second.
//
// A/B: measures SQLite's own check, no code of the checkout: ROOT=<checkout> changes nothing.
// Run: ./node_modules/.bin/bun bench/quick-check.bench.ts

import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './support.ts';

const ROWS = 50_000;
const RUNS = 5;

const dir = mkdtempSync(join(tmpdir(), 'rd-quick-check-'));
const path = join(dir, 'replaydesk.db');
try {
  const db = new Database(path, { create: true });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('CREATE TABLE chunks (id INTEGER PRIMARY KEY, k TEXT, v BLOB)');
  db.exec('CREATE INDEX chunks_k ON chunks (k)');
  const insert = db.query('INSERT INTO chunks (k, v) VALUES (?, ?)');
  const blob = new Uint8Array(4000).map((_, i) => i % 251);
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) insert.run(`key-${i}`, blob);
  })();
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  const mb = statSync(path).size / 1e6;
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const d = new Database(path);
    const t0 = performance.now();
    const r = d.query('PRAGMA quick_check(5)').all() as { quick_check: string }[];
    ms.push(performance.now() - t0);
    d.close();
    if (r.length !== 1 || r[0].quick_check !== 'ok') throw new Error(`quick_check: ${JSON.stringify(r)}`);
  }
  const m = median(ms);
  console.log(`quick_check of ${mb.toFixed(0)} MB: median ${m.toFixed(0)} ms over ${RUNS} runs (${((mb * 1000) / m).toFixed(0)} MB/s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
