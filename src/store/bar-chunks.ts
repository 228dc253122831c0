// Stored bar chunks: one BLOB of columns per instrument per UTC day, read back into typed arrays
// without per-bar parsing (src/data/bar-columns.ts describes the layout).

import { type BarColumns, packBars, unpackBars } from '../data/bar-columns.ts';
import type { Db } from './db.ts';

export interface ChunkInfo {
  day: number;
  source: string;
  barCount: number;
  firstS: number;
  lastS: number;
}

export interface SymbolSummary {
  symbol: string;
  days: number;
  barCount: number;
  firstS: number;
  lastS: number;
}

export class BarChunkStore {
  constructor(private readonly db: Db) {}

  get(symbol: string, day: number): BarColumns | null {
    const r = this.db.query('SELECT bars FROM bar_chunks WHERE symbol = $symbol AND day = $day').get({ symbol, day }) as {
      bars: Uint8Array;
    } | null;
    return r ? unpackBars(r.bars) : null;
  }

  /** Which of `days` have a stored chunk (one query for a whole range). */
  daysStored(symbol: string, fromDay: number, toDay: number): Set<number> {
    const rows = this.db
      .query('SELECT day FROM bar_chunks WHERE symbol = $symbol AND day BETWEEN $from AND $to')
      .all({ symbol, from: fromDay, to: toDay }) as { day: number }[];
    return new Set(rows.map((r) => r.day));
  }

  /** Stores a day's bars and bumps the instrument's data version, so readers drop cached copies. */
  put(symbol: string, day: number, source: string, bars: BarColumns): void {
    this.bumpDataVersion(symbol);
    this.db
      .query(
        `INSERT INTO bar_chunks (symbol, day, source, bar_count, first_s, last_s, bars)
         VALUES ($symbol, $day, $source, $n, $first, $last, $bars)
         ON CONFLICT (symbol, day) DO UPDATE SET source = excluded.source, bar_count = excluded.bar_count,
           first_s = excluded.first_s, last_s = excluded.last_s, bars = excluded.bars`,
      )
      .run({
        symbol,
        day,
        source,
        n: bars.length,
        first: bars.length ? bars.time[0] : 0,
        last: bars.length ? bars.time[bars.length - 1] : 0,
        bars: packBars(bars),
      });
  }

  summary(symbol: string): SymbolSummary | null {
    const r = this.db
      .query(
        `SELECT COUNT(*) AS days, COALESCE(SUM(bar_count), 0) AS n, MIN(first_s) AS first, MAX(last_s) AS last
         FROM bar_chunks WHERE symbol = $symbol`,
      )
      .get({ symbol }) as { days: number; n: number; first: number | null; last: number | null };
    if (r.days === 0) return null;
    return { symbol, days: r.days, barCount: r.n, firstS: r.first ?? 0, lastS: r.last ?? 0 };
  }

  /** Bumped by every import that changes the instrument's days; servers drop cached days on change. */
  dataVersion(symbol: string): number {
    const r = this.db.query('SELECT value FROM meta WHERE key = $k').get({ k: `data_version:${symbol}` }) as { value: string } | null;
    return r ? Number(r.value) : 0;
  }

  bumpDataVersion(symbol: string): void {
    this.db
      .query(
        `INSERT INTO meta (key, value) VALUES ($k, '1')
         ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)`,
      )
      .run({ k: `data_version:${symbol}` });
  }

  // ---- import locks (SQLite; with PostgreSQL see src/store/shared-bars.ts) ----

  lockImport(symbol: string, nowMs: number, pid: number): boolean {
    return this.db.query('INSERT OR IGNORE INTO import_locks (symbol, started_ms, pid) VALUES ($symbol, $now, $pid)').run({ symbol, now: nowMs, pid }).changes === 1;
  }

  unlockImport(symbol: string): void {
    this.db.query('DELETE FROM import_locks WHERE symbol = $symbol').run({ symbol });
  }

  /**
   * Whether an import holds the instrument. A lock whose process is gone (a crashed import) is
   * ignored and removed, so a crash cannot leave an instrument answering 503 forever.
   */
  isImporting(symbol: string): boolean {
    const r = this.db.query('SELECT pid FROM import_locks WHERE symbol = $symbol').get({ symbol }) as { pid: number } | null;
    if (!r) return false;
    if (processAlive(r.pid)) return true;
    this.unlockImport(symbol);
    return false;
  }

  importLocks(): { symbol: string; startedMs: number; pid: number }[] {
    return (this.db.query('SELECT symbol, started_ms, pid FROM import_locks').all() as { symbol: string; started_ms: number; pid: number }[]).map(
      (r) => ({ symbol: r.symbol, startedMs: r.started_ms, pid: r.pid }),
    );
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
