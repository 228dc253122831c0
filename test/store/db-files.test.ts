// The data directory and the database files are owner-only: DATA_DIR 0700; replaydesk.db, -wal and
// -shm 0600, on a first start and on a start over files an older version left 0755/0644.
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, it } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../../src/config.ts';
import { openInstance } from '../../src/instance.ts';
import type { Services } from '../../src/service/services.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('data directory permissions', () => {
  const opened: Services[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) {
      await s.shutdown();
      s.db.close();
    }
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function open(dataDir: string): Promise<Services> {
    const s = await openInstance(defaultConfig({ dataDir }), { restoreSessions: false });
    opened.push(s);
    // A write, so the WAL and its index exist.
    s.db.exec('CREATE TABLE IF NOT EXISTS perm_probe (x INTEGER)');
    s.db.exec('INSERT INTO perm_probe VALUES (1)');
    return s;
  }

  function files(dataDir: string) {
    const db = join(dataDir, 'replaydesk.db');
    return { dir: modeOf(dataDir), db: modeOf(db), wal: modeOf(`${db}-wal`), shm: modeOf(`${db}-shm`), secret: modeOf(join(dataDir, 'jwt-secret')) };
  }

  const PRIVATE = { dir: 0o700, db: 0o600, wal: 0o600, shm: 0o600, secret: 0o600 };

  it('a first start makes DATA_DIR 0700 and the database, -wal and -shm 0600', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rd-perm-'));
    dirs.push(root);
    const dataDir = join(root, 'nested', 'data');
    await open(dataDir);
    expect(files(dataDir)).toEqual(PRIVATE);
  });

  it('a start over files an older version left world-readable narrows them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rd-perm-'));
    dirs.push(dataDir);
    chmodSync(dataDir, 0o755);
    const path = join(dataDir, 'replaydesk.db');
    const old = new Database(path, { create: true });
    old.exec('PRAGMA journal_mode = WAL');
    old.exec('CREATE TABLE t (x INTEGER)');
    for (const p of [path, `${path}-wal`, `${path}-shm`]) chmodSync(p, 0o644);
    expect(modeOf(`${path}-wal`)).toBe(0o644);
    await open(dataDir);
    old.close();
    expect(files(dataDir)).toEqual(PRIVATE);
  });
});
