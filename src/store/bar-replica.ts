// A node's local copy of the shared store's imported market data (PostgreSQL), kept in its own
// DATA_DIR file so the bar loops read it synchronously (src/service/market-replica.ts decides when).
// An instrument is replaced whole, in one local transaction: its chunks, the rollups an import
// wrote, the imported files, the shared version it copies, and a bump of the local data version so
// every cached day and rollup of the instrument is dropped (src/data/bar-source.ts).

import type { BarChunkStore } from './bar-chunks.ts';
import { type Db, inTransaction } from './db.ts';
import type { InstrumentRows } from './shared-bars.ts';

const REPLICA_PREFIX = 'replica_version:';

export class BarReplicaStore {
  constructor(
    private readonly db: Db,
    private readonly chunks: BarChunkStore,
  ) {}

  /** The shared version last copied for the instrument; -1 when never copied. */
  version(symbol: string): number {
    const r = this.db.query('SELECT value FROM meta WHERE key = $k').get({ k: REPLICA_PREFIX + symbol }) as { value: string } | null;
    return r ? Number(r.value) : -1;
  }

  /** Symbols with imported chunks in the local file (a copy the shared store may no longer hold). */
  symbolsHeld(): string[] {
    return (this.db.query('SELECT DISTINCT symbol FROM bar_chunks').all() as { symbol: string }[]).map((r) => r.symbol);
  }

  replace(symbol: string, version: number, rows: InstrumentRows): void {
    inTransaction(this.db, () => {
      const days = new Set<number>([...this.localDays(symbol), ...rows.chunks.map((c) => c.day)]);
      this.db.query('DELETE FROM bar_chunks WHERE symbol = $symbol').run({ symbol });
      this.db.query('DELETE FROM imports WHERE symbol = $symbol').run({ symbol });
      // Every rollup of a day that is (or was) imported goes: the generated ones of a day now imported too.
      const dropRollups = this.db.query('DELETE FROM bar_rollups WHERE symbol = $symbol AND day = $day');
      for (const day of days) dropRollups.run({ symbol, day });
      const chunk = this.db.query(
        `INSERT INTO bar_chunks (symbol, day, source, bar_count, first_s, last_s, bars)
         VALUES ($symbol, $day, $source, $n, $first, $last, $bars)`,
      );
      for (const c of rows.chunks) chunk.run({ symbol, day: c.day, source: c.source, n: c.bar_count, first: c.first_s, last: c.last_s, bars: c.bars });
      const rollup = this.db.query(
        'INSERT INTO bar_rollups (symbol, day, width_s, source, bar_count, bars) VALUES ($symbol, $day, $w, $source, $n, $bars)',
      );
      for (const r of rows.rollups) rollup.run({ symbol, day: r.day, w: r.width_s, source: r.source, n: r.bar_count, bars: r.bars });
      const imported = this.db.query(
        `INSERT INTO imports (symbol, file_sha256, file_name, format, bar_count, first_s, last_s, imported_ms)
         VALUES ($symbol, $sha, $name, $format, $n, $first, $last, $ms)`,
      );
      for (const i of rows.imports) {
        imported.run({ symbol, sha: i.file_sha256, name: i.file_name, format: i.format, n: i.bar_count, first: i.first_s, last: i.last_s, ms: i.imported_ms });
      }
      this.db.query('INSERT INTO meta (key, value) VALUES ($k, $v) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run({
        k: REPLICA_PREFIX + symbol,
        v: String(version),
      });
      this.chunks.bumpDataVersion(symbol);
    });
  }

  private localDays(symbol: string): number[] {
    return (this.db.query('SELECT day FROM bar_chunks WHERE symbol = $symbol').all({ symbol }) as { day: number }[]).map((r) => r.day);
  }
}
