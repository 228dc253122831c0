// What `admin data migrate` costs on a DATA_DIR of some size: 200 users, 1,000 accounts, 100,000
// orders and 100,000 fills, 100 day chunks of 1 MB, copied into a fresh PostgreSQL database (the
// tests' throwaway server on loopback: fsync off, so the figure is the copy's, not the disk's) with
// src/store/copy.ts, three times; prints the median and rows and MB a second.
//
// A/B: ROOT=<checkout> measures that checkout's copy and stores (bench/root.ts); the throwaway
// PostgreSQL is this checkout's test/support/postgres.ts (a harness). `npm run bench -- --baseline
// <commit> --only migrate` runs both in turn.
// Run: ./node_modules/.bin/bun bench/migrate.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '../test/support/postgres.ts';
import { median } from './support.ts';
import { load } from './root.ts';

const { copySqliteToPostgres } = await load<typeof import('../src/store/copy.ts')>('src/store/copy.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { openPostgres } = await load<typeof import('../src/store/postgres.ts')>('src/store/postgres.ts');

const USERS = 200;
const ACCOUNTS = 1_000;
const ORDERS = 100_000;
const CHUNKS = 100;
const CHUNK_BYTES = 1_000_000;
const RUNS = 3;

function build(path: string): void {
  const db = openDb(path);
  db.transaction(() => {
    const user = db.query(`INSERT INTO users (id, email, plan, verified, disabled, created_ms) VALUES ($id, $email, 'pro', 1, 0, 1)`);
    for (let u = 1; u <= USERS; u++) user.run({ id: u, email: `u${u}@example.com` });
    const account = db.query(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms) VALUES ($u, 'replay', $n, $b, 1, 2)`);
    for (let a = 1; a <= ACCOUNTS; a++) account.run({ u: 1 + (a % USERS), n: `R${a}`, b: 5_000_000 + a });
    const order = db.query(`INSERT INTO orders (account_id, id, type, side, size, status, fill_volume, filled_price_ticks, created_s, updated_s, triggered)
      VALUES ($a, $id, 2, $side, 1, 2, 1, 80000, $t, $t, 0)`);
    const fill = db.query(`INSERT INTO fills (account_id, id, order_id, side, size, price_ticks, time_s, fee_cents, realized_cents)
      VALUES ($a, $id, $id, $side, 1, 80000, $t, 140, $r)`);
    for (let i = 0; i < ORDERS; i++) {
      const p = { a: 1 + (i % ACCOUNTS), id: 1 + Math.floor(i / ACCOUNTS), side: i % 2, t: 1_700_000_000 + i };
      order.run(p);
      fill.run({ ...p, r: (i % 7) * 100 - 300 });
    }
    const chunk = db.query(`INSERT INTO bar_chunks (symbol, day, source, bar_count, first_s, last_s, bars) VALUES ('NQ', $d, 'import', 1, 0, 0, $bars)`);
    const bars = new Uint8Array(CHUNK_BYTES).map((_, i) => i % 251);
    for (let d = 0; d < CHUNKS; d++) chunk.run({ d: 19_000 + d, bars });
  })();
  db.close();
}

const dir = mkdtempSync(join(tmpdir(), 'rd-migrate-bench-'));
const path = join(dir, 'replaydesk.db');
try {
  build(path);
  const rows = USERS + ACCOUNTS + 2 * ORDERS + CHUNKS;
  const mb = (CHUNKS * CHUNK_BYTES) / 1e6;
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const db = openDb(path);
    const pg = await openPostgres(await freshDatabase(), { max: 1 });
    const t0 = performance.now();
    await copySqliteToPostgres(db, pg, null);
    times.push(performance.now() - t0);
    await pg.close();
    db.close();
  }
  const ms = median(times);
  console.log(
    `migrate: ${rows.toLocaleString('en')} rows + ${mb.toFixed(0)} MB of chunks, median of ${RUNS}: ${(ms / 1000).toFixed(1)} s ` +
      `(${Math.round(rows / (ms / 1000)).toLocaleString('en')} rows/s, ${(mb / (ms / 1000)).toFixed(1)} MB/s); runs ${times.map((t) => (t / 1000).toFixed(1)).join(', ')} s`,
  );
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// The throwaway server's admin connection would keep the process alive.
process.exit();
