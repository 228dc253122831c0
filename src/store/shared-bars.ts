// Imported market data in the instance's store, written by `admin data import` and read by the
// nodes of a cluster: bar chunks, their rollups, the imported files and each instrument's data
// version. With SQLite these are the very tables the server reads (src/store/bar-chunks.ts); with
// PostgreSQL they are the shared copy every node replicates into its own DATA_DIR
// (src/service/market-replica.ts), so the bar loops keep reading a local, synchronous file.
//
// An import holds a lock on its instrument for the whole parse and write, and History answers 503
// for the instrument meanwhile. With SQLite the lock is a row naming the importing process (a lock
// whose process is gone is ignored). With PostgreSQL it is a transaction-level advisory lock held by
// the import's transaction: it ends with that transaction, or with its connection when the importing
// process dies, so a crashed import can never leave an instrument locked, on any machine.

import { type BarColumns, packBars, unpackBars } from '../data/bar-columns.ts';
import type { BarChunkStore } from './bar-chunks.ts';
import type { Sql } from './sql.ts';

export interface ImportRecord {
  symbol: string;
  sha256: string;
  fileName: string;
  format: string;
  barCount: number;
  firstS: number;
  lastS: number;
  nowMs: number;
}

/** Rows of one instrument as stored, bytes unparsed: what a node copies into its local file. */
export interface InstrumentRows {
  chunks: { day: number; source: string; bar_count: number; first_s: number; last_s: number; bars: Uint8Array }[];
  /** The rollups an import wrote (synthetic days' rollups are built by each node). */
  rollups: { day: number; width_s: number; source: string; bar_count: number; bars: Uint8Array }[];
  imports: { file_sha256: string; file_name: string; format: string; bar_count: number; first_s: number; last_s: number; imported_ms: number }[];
}

const VERSION_PREFIX = 'data_version:';

/** Bytes as both drivers bind a BLOB / BYTEA. */
function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class SharedBarStore {
  constructor(readonly sql: Sql) {}

  async chunk(symbol: string, day: number): Promise<BarColumns | null> {
    const r = await this.sql.get<{ bars: Uint8Array }>('SELECT bars FROM bar_chunks WHERE symbol = $symbol AND day = $day', { symbol, day });
    return r ? unpackBars(r.bars) : null;
  }

  async putChunk(symbol: string, day: number, bars: BarColumns): Promise<void> {
    await this.sql.run(
      `INSERT INTO bar_chunks (symbol, day, source, bar_count, first_s, last_s, bars)
       VALUES ($symbol, $day, 'import', $n, $first, $last, $bars)
       ON CONFLICT (symbol, day) DO UPDATE SET source = excluded.source, bar_count = excluded.bar_count,
         first_s = excluded.first_s, last_s = excluded.last_s, bars = excluded.bars`,
      {
        symbol,
        day,
        n: bars.length,
        first: bars.length ? bars.time[0] : 0,
        last: bars.length ? bars.time[bars.length - 1] : 0,
        bars: blob(packBars(bars)),
      },
    );
  }

  /** Replaces the day's rollup at `widthS` with one built from imported bars. */
  async putRollup(symbol: string, day: number, widthS: number, bars: BarColumns): Promise<void> {
    await this.sql.run(
      `INSERT INTO bar_rollups (symbol, day, width_s, source, bar_count, bars)
       VALUES ($symbol, $day, $w, 'import', $n, $bars)
       ON CONFLICT (symbol, day, width_s) DO UPDATE SET source = excluded.source,
         bar_count = excluded.bar_count, bars = excluded.bars`,
      { symbol, day, w: widthS, n: bars.length, bars: blob(packBars(bars)) },
    );
  }

  /** Drops a day's rollup (an imported day that cannot have one at this width). */
  async dropRollup(symbol: string, day: number, widthS: number): Promise<void> {
    await this.sql.run('DELETE FROM bar_rollups WHERE symbol = $symbol AND day = $day AND width_s = $w', { symbol, day, w: widthS });
  }

  /** Bumped once by every import that changed the instrument's days; readers drop what they cached. */
  async bumpDataVersion(symbol: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO meta (key, value) VALUES ($k, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)`,
      { k: VERSION_PREFIX + symbol },
    );
  }

  /** Every instrument's data version (instruments never imported are absent). */
  async versions(): Promise<Map<string, number>> {
    const rows = await this.sql.all<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key LIKE 'data\\_version:%' ESCAPE '\\'`);
    return new Map(rows.map((r) => [r.key.slice(VERSION_PREFIX.length), Number(r.value)]));
  }

  async wasImported(symbol: string, sha256: string): Promise<boolean> {
    return (await this.sql.get('SELECT 1 AS hit FROM imports WHERE symbol = $symbol AND file_sha256 = $sha', { symbol, sha: sha256 })) !== null;
  }

  async recordImport(r: ImportRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO imports (symbol, file_sha256, file_name, format, bar_count, first_s, last_s, imported_ms)
       VALUES ($symbol, $sha, $name, $format, $n, $first, $last, $now) ON CONFLICT DO NOTHING`,
      { symbol: r.symbol, sha: r.sha256, name: r.fileName, format: r.format, n: r.barCount, first: r.firstS, last: r.lastS, now: r.nowMs },
    );
  }

  /** The instrument's imported rows, read in one transaction so they belong to one version. */
  async rowsOf(symbol: string): Promise<{ version: number; rows: InstrumentRows }> {
    return this.sql.transaction(async () => {
      const v = await this.sql.get<{ value: string }>('SELECT value FROM meta WHERE key = $k', { k: VERSION_PREFIX + symbol });
      const chunks = await this.sql.all<InstrumentRows['chunks'][number]>(
        'SELECT day, source, bar_count, first_s, last_s, bars FROM bar_chunks WHERE symbol = $symbol ORDER BY day',
        { symbol },
      );
      const rollups = await this.sql.all<InstrumentRows['rollups'][number]>(
        `SELECT day, width_s, source, bar_count, bars FROM bar_rollups WHERE symbol = $symbol AND source = 'import' ORDER BY day, width_s`,
        { symbol },
      );
      const imports = await this.sql.all<InstrumentRows['imports'][number]>(
        'SELECT file_sha256, file_name, format, bar_count, first_s, last_s, imported_ms FROM imports WHERE symbol = $symbol',
        { symbol },
      );
      return { version: v ? Number(v.value) : 0, rows: { chunks, rollups, imports } };
    }, { unbounded: true }); // background, and a large instrument reads long: no statement time-out
  }
}

/** Who may import an instrument now, and whether an import holds it. */
export interface ImportLocks {
  /** Runs `work` holding the instrument's import lock; null when another import holds it. */
  hold<T>(symbol: string, work: () => Promise<T>): Promise<T | null>;
  isImporting(symbol: string): Promise<boolean>;
}

/** SQLite: a row naming the importing process, in the same file the server reads. */
export class LocalImportLocks implements ImportLocks {
  constructor(
    private readonly chunks: BarChunkStore,
    private readonly nowMs: () => number,
  ) {}

  async hold<T>(symbol: string, work: () => Promise<T>): Promise<T | null> {
    // isImporting first clears a lock left behind by a crashed import, which would otherwise refuse every import.
    if (this.chunks.isImporting(symbol) || !this.chunks.lockImport(symbol, this.nowMs(), process.pid)) return null;
    try {
      return await work();
    } finally {
      this.chunks.unlockImport(symbol);
    }
  }

  async isImporting(symbol: string): Promise<boolean> {
    return this.chunks.isImporting(symbol);
  }
}

/** The advisory lock key of an instrument's import (a 64-bit hash of the text). */
const importKey = (symbol: string) => `import:${symbol}`;

/** PostgreSQL: a transaction-level advisory lock, held by the import's own transaction. */
export class SharedImportLocks implements ImportLocks {
  constructor(private readonly sql: Sql) {}

  async hold<T>(symbol: string, work: () => Promise<T>): Promise<T | null> {
    return this.sql.transaction(async () => {
      const r = await this.sql.get<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($k::text, 0)) AS got', { k: importKey(symbol) });
      if (!r?.got) return null;
      return work();
    });
  }

  /** Whether any session of this database holds the instrument's lock (pg_locks splits the key in two halves). */
  async isImporting(symbol: string): Promise<boolean> {
    const r = await this.sql.get<{ held: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM pg_locks, (SELECT hashtextextended($k::text, 0) AS v) AS key
         WHERE locktype = 'advisory' AND objsubid = 1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid::bigint = ((key.v >> 32) & 4294967295) AND objid::bigint = (key.v & 4294967295)
       ) AS held`,
      { k: importKey(symbol) },
    );
    return r?.held === true;
  }
}
