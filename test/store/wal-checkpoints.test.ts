// A serving node's WAL checkpoints (src/store/wal-checkpoints.ts): the server's own commits leave the
// WAL's pages where they are up to the backstop, a worker thread copies them into the database file,
// and the WAL starts over afterwards; stopped, the connection has SQLite's own threshold back.
import { afterEach, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/db.ts';
import { WalCheckpoints } from '../../src/store/wal-checkpoints.ts';

const open: { db: Db; dir: string; c: WalCheckpoints | null }[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) {
    await x.c?.stop();
    x.db.close();
    rmSync(x.dir, { recursive: true, force: true });
  }
});

const HOUR_MS = 3_600_000;
const BLOB = new Uint8Array(3000);

function fresh(settings: { intervalMs: number; backstopPages: number }) {
  const withStop = { ...settings, stopWaitMs: 5000 };
  const dir = mkdtempSync(join(tmpdir(), 'rd-wal-'));
  const path = join(dir, 'replaydesk.db');
  const db = openDb(path);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const c = WalCheckpoints.start(db, path, withStop);
  open.push({ db, dir, c });
  return { db, path, c: c!, size: () => statSync(path).size };
}

/** `n` commits of one row of 3,000 bytes each (a page of the WAL or more apiece). */
function commit(db: Db, n: number): void {
  const insert = db.query('INSERT INTO blobs (b) VALUES (?)');
  for (let i = 0; i < n; i++) insert.run(BLOB);
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe('WAL checkpoints on a worker thread', () => {
  it('1,500 commits copy nothing into the file themselves; the worker copies all of it and the WAL starts over', async () => {
    const t = fresh({ intervalMs: HOUR_MS, backstopPages: 10_000 });
    const before = t.size();
    commit(t.db, 1500); // past SQLite's own threshold of 1,000 pages
    expect(t.size()).toBe(before);
    const r = await t.c.checkpointNow();
    expect(r.log).toBeGreaterThanOrEqual(1500);
    expect(r.checkpointed).toBe(r.log);
    expect(t.size()).toBeGreaterThan(before + 1500 * BLOB.length);
    expect((t.db.query('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(1500);
    commit(t.db, 1); // the next writer starts the wholly copied WAL over
    expect((await t.c.checkpointNow()).log).toBeLessThan(10);
  });

  it('checkpoints every interval without being asked', async () => {
    const t = fresh({ intervalMs: 20, backstopPages: 10_000 });
    const before = t.size();
    commit(t.db, 300);
    await until('the worker to copy the WAL into the file', () => t.size() > before + 300 * BLOB.length);
  });

  it('the server connection checkpoints itself at the backstop (a worker that fell behind)', () => {
    const t = fresh({ intervalMs: HOUR_MS, backstopPages: 200 });
    const before = t.size();
    commit(t.db, 500);
    expect(t.size()).toBeGreaterThan(before);
  });

  it('stopped, the server connection has SQLite\'s own threshold back', async () => {
    const t = fresh({ intervalMs: HOUR_MS, backstopPages: 10_000 });
    expect(t.db.query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 10_000 });
    await t.c.stop();
    expect(t.db.query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1000 });
  });

  it('an in-memory database has no worker', () => {
    const db = openDb(':memory:');
    expect(WalCheckpoints.start(db, ':memory:', { intervalMs: 20, backstopPages: 10_000, stopWaitMs: 5000 })).toBeNull();
    db.close();
  });
});
