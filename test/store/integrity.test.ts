// A damaged database file is refused at start (PRAGMA quick_check), with a message that says what to
// do, by openDb and by the server process, which exits instead of serving part of it.
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, it } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptDatabaseError, openDb } from '../../src/store/db.ts';
import { spawnServer } from '../support/server-process.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database of several pages in `dir`, closed and checkpointed (no WAL left). */
function makeDb(dir: string): string {
  const path = join(dir, 'replaydesk.db');
  const db = openDb(path);
  db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, v TEXT)');
  db.exec('CREATE INDEX filler_v ON filler (v)');
  const insert = db.query('INSERT INTO filler (v) VALUES (?)');
  for (let i = 0; i < 2000; i++) insert.run(`row ${i} ${'x'.repeat(100)}`);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return path;
}

function overwrite(path: string, offset: number, bytes: Uint8Array): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rd-integrity-'));
  dirs.push(d);
  return d;
}

describe('integrity check at start', () => {
  it('a sound file opens', () => {
    const path = makeDb(tmp());
    openDb(path).close();
  });

  it('a page overwritten with garbage → CorruptDatabaseError naming the file and the way out', () => {
    const path = makeDb(tmp());
    const pageSize = (() => {
      const d = new Database(path);
      const n = (d.query('PRAGMA page_size').get() as { page_size: number }).page_size;
      d.close();
      return n;
    })();
    expect(statSync(path).size).toBeGreaterThan(pageSize * 20);
    overwrite(path, pageSize * 10, new Uint8Array(pageSize).fill(0xa5));
    expect(() => openDb(path)).toThrow(CorruptDatabaseError);
    expect(() => openDb(path)).toThrow(/failed its integrity check \(PRAGMA quick_check\).*Refusing to start.*restore the file from a backup/);
  });

  it('a file that is not a database at all → CorruptDatabaseError, not a raw SQLite error', () => {
    const path = makeDb(tmp());
    overwrite(path, 0, new TextEncoder().encode('this is not a sqlite file, not at all'));
    expect(() => openDb(path)).toThrow(CorruptDatabaseError);
  });

  it('the server process refuses to start on it: one clear line, exit, nothing served', async () => {
    const dir = tmp();
    const path = makeDb(dir);
    overwrite(path, 0, new TextEncoder().encode('this is not a sqlite file, not at all'));
    let failure = '';
    try {
      await spawnServer({ env: { DATA_DIR: dir }, timeoutMs: 60_000 });
    } catch (e) {
      failure = String(e);
    }
    expect(failure).toContain('server exited');
    expect(failure).toContain('failed its integrity check');
    expect(failure).not.toContain('listening');
  });
});
