// src/store/copy.ts on more rows than one INSERT takes: many small rows (several batches by row
// count), BLOBs larger than a batch's byte budget (several batches by size), an AUTOINCREMENT
// record past the highest id kept, and a JWT secret, read back byte for byte.

import { expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyRefusedError, copySqliteToPostgres } from '../../src/store/copy.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

const USAGE_ROWS = 1_234;
const BLOB_BYTES = 3 * 1024 * 1024;
const BLOB_DAYS = 5;

/** A deterministic BLOB: byte i is (i * seed) mod 251. */
function blob(seed: number): Uint8Array {
  const b = new Uint8Array(BLOB_BYTES);
  for (let i = 0; i < b.length; i++) b[i] = (i * seed) % 251;
  return b;
}

describePg('copySqliteToPostgres', () => {
  it('copies in several batches by rows and by bytes, keeps ids, moves sequences past deleted ids', async () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'rd-copy-')), 'replaydesk.db'));
    db.exec(`INSERT INTO users (id, email, plan, verified, disabled, created_ms) VALUES (7, 'a@example.com', 'pro', 1, 0, 1), (9, 'B@example.com', 'free', 0, 1, 2)`);
    for (let i = 0; i < 4; i++) db.exec(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms) VALUES (7, 'replay', 'R${i}', ${5_000_000 + i * 1_001}, 1, 3)`);
    db.exec('DELETE FROM accounts WHERE id = 4'); // AUTOINCREMENT remembers 4: the next id must be 5
    const usage = db.query('INSERT INTO history_usage (user_id, day, bars, source_bars) VALUES ($u, $d, $b, $s)');
    for (let d = 0; d < USAGE_ROWS; d++) usage.run({ u: 7, d, b: d * 3, s: d * 60 });
    const chunk = db.query(`INSERT INTO bar_chunks (symbol, day, source, bar_count, first_s, last_s, bars) VALUES ('NQ', $d, 'import', 1, 0, 0, $bars)`);
    for (let d = 0; d < BLOB_DAYS; d++) chunk.run({ d: 20_000 + d, bars: blob(d + 2) });
    db.exec(`INSERT INTO meta (key, value) VALUES ('data_version:NQ', '4')`);

    const pg = await openPostgres(await freshDatabase(), { max: 1 });
    try {
      const secret = new Uint8Array(32).map((_, i) => i * 7);
      const summary = await copySqliteToPostgres(db, pg, secret);
      expect(summary.tables).toMatchObject({ users: 2, accounts: 3, history_usage: USAGE_ROWS, bar_chunks: BLOB_DAYS, meta: 1 });
      expect(summary.balancesCents).toBe(3 * 5_000_000 + 1_001 * (0 + 1 + 2));
      expect(summary.nextIds).toEqual({ accounts: 5, users: 10 });
      expect(summary.jwtSecret).toBe('copied');

      const chunks = await pg.all<{ day: number; bars: Uint8Array }>('SELECT day, bars FROM bar_chunks ORDER BY day');
      expect(chunks.map((c) => c.day)).toEqual([20_000, 20_001, 20_002, 20_003, 20_004]);
      for (const [d, c] of chunks.entries()) expect(Buffer.from(c.bars).equals(Buffer.from(blob(d + 2)))).toBe(true);
      const sums = await pg.get<{ n: number; b: number; s: number }>('SELECT COUNT(*) AS n, SUM(bars) AS b, SUM(source_bars) AS s FROM history_usage');
      expect(sums).toEqual({ n: USAGE_ROWS, b: (3 * USAGE_ROWS * (USAGE_ROWS - 1)) / 2, s: (60 * USAGE_ROWS * (USAGE_ROWS - 1)) / 2 });
      expect(await pg.all('SELECT id, email, verified, disabled FROM users ORDER BY id')).toEqual([
        { id: 7, email: 'a@example.com', verified: 1, disabled: 0 },
        { id: 9, email: 'B@example.com', verified: 0, disabled: 1 },
      ]);
      expect(await pg.get(`SELECT value FROM meta WHERE key = 'jwt_secret'`)).toEqual({ value: Buffer.from(secret).toString('hex') });
      expect(await pg.get(`SELECT value FROM meta WHERE key = 'data_version:NQ'`)).toEqual({ value: '4' });
      const next = await pg.get<{ id: number }>(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms) VALUES (9, 'replay', 'N', 1, 1, 4) RETURNING id`);
      expect(next?.id).toBe(5);
    } finally {
      await pg.close();
      db.close();
    }
  }, 120_000);

  it('two copies into one database at once: one copies, the other waits on the lock and is refused', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'rd-copy-')), 'replaydesk.db');
    const seed = openDb(path);
    seed.exec(`INSERT INTO users (id, email, plan, verified, disabled, created_ms) VALUES (1, 'a@example.com', 'pro', 1, 0, 1)`);
    seed.exec(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms) VALUES (1, 'replay', 'R', 5000000, 1, 2)`);
    seed.close();
    const url = await freshDatabase();
    const sides = [0, 1].map(() => ({ db: openDb(path) }));
    const pools = await Promise.all(sides.map(() => openPostgres(url, { max: 1 })));
    try {
      const outcomes = await Promise.allSettled(sides.map((side, i) => copySqliteToPostgres(side.db, pools[i], null)));
      const done = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect([done.length, refused.length]).toEqual([1, 1]);
      expect(refused[0].reason).toBeInstanceOf(CopyRefusedError);
      expect((refused[0].reason as Error).message).toContain('not empty: it holds users (1 row), accounts (1 row);');
      expect(await pools[0].get('SELECT COUNT(*) AS n FROM accounts')).toEqual({ n: 1 });
    } finally {
      for (const p of pools) await p.close();
      for (const side of sides) side.db.close();
    }
  }, 120_000);
});
